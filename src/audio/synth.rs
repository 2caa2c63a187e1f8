//! The bundled sounds, made here rather than borrowed: footfalls (a click on a short
//! filtered-noise burst), lifts (a softer, shorter scrape) and thuds (a low, longer burst
//! with a falling tone), each in a few variations — all from a seed, so a run's mix is the
//! same on every machine.

use std::sync::Arc;

use super::SAMPLE_RATE;

/// A mono sound at [`SAMPLE_RATE`], samples in -1..1.
pub type Samples = Arc<[f32]>;

/// SplitMix64: a tiny, seedable, well-mixed generator (the mix must not depend on a
/// library's version).
#[derive(Clone, Debug)]
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x05EE_D50D_50A1_1D10)
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in 0..1.
    pub(crate) fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in -1..1.
    fn signed(&mut self) -> f32 {
        self.unit() * 2.0 - 1.0
    }
}

/// What a burst is made of.
struct Burst {
    /// Length, s.
    length: f32,
    /// Noise decay time constant, s.
    decay: f32,
    /// One-pole low-pass corner of the noise, Hz.
    corner: f32,
    /// A decaying tone under it: (start Hz, end Hz, level, decay s).
    tone: Option<(f32, f32, f32, f32)>,
    /// A click at the start: (Hz, level).
    click: Option<(f32, f32)>,
    /// Peak level.
    level: f32,
}

fn burst(b: &Burst, seed: u64) -> Samples {
    let mut rng = Rng::new(seed);
    let n = (b.length * SAMPLE_RATE as f32) as usize;
    let a = 1.0 - (-std::f32::consts::TAU * b.corner / SAMPLE_RATE as f32).exp();
    let mut lp = 0.0f32;
    let mut phase = 0.0f32;
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let t = i as f32 / SAMPLE_RATE as f32;
        lp += a * (rng.signed() - lp);
        // A 1 ms attack: no step at the start.
        let attack = (t / 0.001).min(1.0);
        let mut v = lp * (-t / b.decay).exp() * attack;
        if let Some((f0, f1, level, decay)) = b.tone {
            let f = f1 + (f0 - f1) * (-t / (b.length * 0.3)).exp();
            phase += std::f32::consts::TAU * f / SAMPLE_RATE as f32;
            v += phase.sin() * level * (-t / decay).exp() * attack;
        }
        if let Some((f, level)) = b.click {
            v += (std::f32::consts::TAU * f * t).sin() * level * (-t / 0.0015).exp();
        }
        // A short fade at the end.
        let tail = ((b.length - t) / 0.004).clamp(0.0, 1.0);
        out.push(v * tail);
    }
    let peak = out.iter().fold(0.0f32, |m, v| m.max(v.abs())).max(1e-6);
    out.iter_mut().for_each(|v| *v *= b.level / peak);
    out.into()
}

/// Variations of each bundled sound.
pub const VARIATIONS: usize = 4;

/// A foot planted: a click on a 70 ms burst of mid noise.
pub fn step(variation: usize) -> Samples {
    burst(
        &Burst {
            length: 0.07,
            decay: 0.014,
            corner: 2400.0,
            tone: Some((420.0, 180.0, 0.35, 0.02)),
            click: Some((2600.0, 0.5)),
            level: 0.9,
        },
        0x57E9 + variation as u64,
    )
}

/// A foot lifted: a soft 35 ms scrape of high noise.
pub fn lift(variation: usize) -> Samples {
    burst(
        &Burst {
            length: 0.035,
            decay: 0.008,
            corner: 5000.0,
            tone: None,
            click: None,
            level: 0.35,
        },
        0x11F7 + variation as u64,
    )
}

/// A body hitting the ground: 220 ms of low noise over a falling tone.
pub fn thud(variation: usize) -> Samples {
    burst(
        &Burst {
            length: 0.22,
            decay: 0.06,
            corner: 380.0,
            tone: Some((140.0, 55.0, 0.8, 0.09)),
            click: None,
            level: 1.0,
        },
        0x7A0D + variation as u64,
    )
}

/// A boot coming down (the soldiers'): a dull 110 ms thump of low noise over a short low
/// tone, with a scuff of mid noise on it.
pub fn boot(variation: usize) -> Samples {
    burst(
        &Burst {
            length: 0.11,
            decay: 0.025,
            corner: 900.0,
            tone: Some((170.0, 80.0, 0.6, 0.03)),
            click: Some((1400.0, 0.25)),
            level: 0.95,
        },
        0xB007 + variation as u64,
    )
}

/// A padded paw (the hound's): a soft 80 ms pat of low noise, no click.
pub fn paw(variation: usize) -> Samples {
    burst(
        &Burst {
            length: 0.08,
            decay: 0.018,
            corner: 700.0,
            tone: Some((220.0, 120.0, 0.3, 0.02)),
            click: None,
            level: 0.8,
        },
        0x9A3 + variation as u64,
    )
}

/// A tiny hard foot (the centipede's): a 30 ms bright tick.
pub fn tick(variation: usize) -> Samples {
    burst(
        &Burst {
            length: 0.03,
            decay: 0.005,
            corner: 6000.0,
            tone: None,
            click: Some((4200.0, 0.6)),
            level: 0.7,
        },
        0x71C + variation as u64,
    )
}

/// One of the bundled mods' sound files: the mod, the file inside it, and what it holds.
pub struct BundledFile {
    /// The bundled mod's folder name (`scripts/NAME`).
    pub mod_name: &'static str,
    /// Its path inside the mod (`assets/sounds/…`).
    pub file: String,
    /// The sound.
    pub samples: Samples,
}

/// Every sound file the bundled mods' creatures use, as the generator makes it: the
/// spider's clicks and scrapes, the soldiers' boots, the hound's paws, the centipede's ticks,
/// and the thuds of landings and ragdolls. Written to `scripts/` by the bless test
/// (`SKITTER_BLESS=1 cargo test --release --test docs`), checked against it otherwise.
pub fn bundled_files() -> Vec<BundledFile> {
    type Maker = fn(usize) -> Samples;
    let sets: [(&str, &str, Maker, usize); 10] = [
        ("spider", "step", step, VARIATIONS),
        ("spider", "lift", lift, VARIATIONS),
        ("spider", "thud", thud, 2),
        ("brawl", "boot", boot, VARIATIONS),
        ("brawl", "scuff", lift, 2),
        ("brawl", "thud", thud, VARIATIONS),
        ("menagerie", "paw", paw, VARIATIONS),
        ("menagerie", "tick", tick, VARIATIONS),
        ("menagerie", "lift", lift, 2),
        ("menagerie", "thud", thud, 2),
    ];
    sets.iter()
        .flat_map(|&(mod_name, name, make, n)| {
            (0..n).map(move |v| BundledFile {
                mod_name,
                file: format!("assets/sounds/{name}{}.wav", v + 1),
                samples: make(v),
            })
        })
        .collect()
}

/// A sound as a 16-bit mono WAV at [`SAMPLE_RATE`].
pub fn wav_bytes(samples: &[f32]) -> Result<Vec<u8>, hound::Error> {
    let spec = hound::WavSpec {
        channels: 1,
        sample_rate: SAMPLE_RATE,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut out = std::io::Cursor::new(Vec::new());
    let mut w = hound::WavWriter::new(&mut out, spec)?;
    for v in samples {
        w.write_sample((v.clamp(-1.0, 1.0) * 32767.0).round() as i16)?;
    }
    w.finalize()?;
    Ok(out.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sounds_are_the_same_every_time_different_by_variation_and_in_range() {
        for make in [step as fn(usize) -> Samples, lift, thud, boot, paw, tick] {
            let (a, b, c) = (make(0), make(0), make(1));
            assert_eq!(a, b);
            assert_ne!(a, c);
            assert!(a.iter().all(|v| v.abs() <= 1.0 + 1e-6));
            let peak = a.iter().fold(0.0f32, |m, v| m.max(v.abs()));
            assert!(peak > 0.3, "{peak}");
            // Silent at both ends: no click when a voice starts or stops.
            assert!(a[0].abs() < 0.05 && a[a.len() - 1].abs() < 0.01);
        }
        // A thud is longer and lower than a step: most of its energy below 500 Hz.
        assert!(thud(0).len() > 2 * step(0).len());
    }

    #[test]
    fn the_bundled_files_decode_back_to_their_sounds() {
        let files = bundled_files();
        assert!(files.len() >= 30);
        for f in &files {
            let bytes = wav_bytes(&f.samples).expect("a WAV");
            let back = crate::audio::decode::decode(bytes, "wav").expect(&f.file);
            assert_eq!(back.len(), f.samples.len(), "{}", f.file);
            let worst = back
                .iter()
                .zip(f.samples.iter())
                .map(|(a, b)| (a - b).abs())
                .fold(0.0f32, f32::max);
            assert!(worst < 1e-4, "{}: {worst}", f.file);
        }
    }
}
