//! Layer 3: multiplayer. One server runs the World with its mods; viewers join over UDP
//! (renet, its netcode transport and connection authentication), run no Lua and no
//! physics, and rebuild every creature — steps' arcs, lean, head, IK, skinning — from a
//! few bytes: quantised roots in snapshots (`snapshot.rs`, `state.rs`) and foot lifts and
//! plants as reliable events (`feet.rs`), shown a buffer delay behind the server
//! (`clock.rs`). `loopback.rs` carries packets in memory through a link conditioner
//! (`conditioner.rs`) for tests; `udp.rs` is the real transport.

mod assets;
mod bits;
mod clock;
mod conditioner;
mod feet;
mod loopback;
mod proto;
mod run;
mod server;
mod snapshot;
mod state;
mod udp;
mod viewer;

pub use conditioner::{Conditioner, LinkSim};
pub use loopback::{Link, Loopback};
pub use proto::{channel, DEFAULT_PORT, PROTOCOL};
pub use run::{join_headless, serve, JoinOptions, Serving};
pub use server::{Dropped, NetServer, ServerOptions, ViewerMode, ViewerStats};
pub use udp::{UdpServer, UdpViewer};
pub use viewer::{NetViewer, ViewerFigures, ViewerStatus};
