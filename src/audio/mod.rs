//! Layer 3: sound made from the procedural motion itself. The world already says, every
//! tick, which feet planted and lifted, where, how fast, and what was hit; [`Mix`] turns
//! those into voices for a listener — one voice for the feet of one creature that land
//! together, a cap on voices with the quietest at the listener left out, far creatures
//! culled — places them (distance, left and right) and mixes them, deterministically for a
//! seed, into 16-bit stereo at [`SAMPLE_RATE`]: `skitter run --headless --audio-out F.wav`.
//! The bundled sounds are made here ([`synth`]).

pub mod decode;
mod mix;
pub mod synth;

pub use mix::{Listener, Mix, MixStats, MAX_VOICES};

/// The sounds a script may play by name (`c:play`, `sound.play`): the bundled ones.
pub const SOUNDS: [&str; 3] = ["step", "lift", "thud"];

/// Samples a second.
pub const SAMPLE_RATE: u32 = 48_000;

/// Samples a tick (a tick is 1/60 s).
pub const TICK_SAMPLES: usize = SAMPLE_RATE as usize / 60;
