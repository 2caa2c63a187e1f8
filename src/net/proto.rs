//! What travels between a server and its viewers: the channels, the reliable messages
//! (postcard), and the version check. Snapshots and foot events are bit-packed apart
//! (`snapshot.rs`, `feet.rs`): they are most of the bytes.

use glam::Vec3;
use serde::{Deserialize, Serialize};

use crate::sim::PieceDesc;

/// The wire protocol's number: a viewer of another number is told so and let go.
pub const PROTOCOL: u32 = 1;
/// netcode's protocol id: skitter's, and the protocol's number in its low bits (a client of
/// another protocol is refused by the transport before it says anything).
pub(crate) const NETCODE_PROTOCOL_ID: u64 = 0x736b_6974_0000_0000 | PROTOCOL as u64;
/// The server's default port.
pub const DEFAULT_PORT: u16 = 27_960;
/// The largest message a snapshot or a foot batch is cut to (bytes): below renet's (patched)
/// slice of 1 136 bytes, so it travels whole and decodes alone; every datagram, headers
/// included, stays within 1 200 bytes (docs/multiplayer.md).
pub(crate) const MAX_MESSAGE: usize = 1_100;

/// Channels, server to viewer and viewer to server alike.
pub mod channel {
    /// World state in order: types, level, spawns, despawns, foot events.
    pub const ORDERED: u8 = 0;
    /// Asset bytes (server to viewer), asset requests and inputs (viewer to server).
    pub const BULK: u8 = 1;
    /// Snapshots (server to viewer) and acknowledgements (viewer to server).
    pub const SNAPSHOT: u8 = 2;
}

/// renet's channels for skitter: ordered state, bulk and snapshots, with the memory each
/// may hold unacknowledged.
pub(crate) fn connection_config() -> renet::ConnectionConfig {
    use renet::{ChannelConfig, SendType};
    use std::time::Duration;
    let channels = vec![
        ChannelConfig {
            channel_id: channel::ORDERED,
            max_memory_usage_bytes: 32 << 20,
            send_type: SendType::ReliableOrdered {
                resend_time: Duration::from_millis(120),
            },
        },
        ChannelConfig {
            channel_id: channel::BULK,
            max_memory_usage_bytes: 8 << 20,
            send_type: SendType::ReliableOrdered {
                resend_time: Duration::from_millis(200),
            },
        },
        ChannelConfig {
            channel_id: channel::SNAPSHOT,
            max_memory_usage_bytes: 4 << 20,
            send_type: SendType::Unreliable,
        },
    ];
    renet::ConnectionConfig {
        available_bytes_per_tick: 1 << 20,
        server_channels_config: channels.clone(),
        client_channels_config: channels,
    }
}

/// A creature type as data (never Lua): its validated definition, and the model it brings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct TypeMsg {
    /// Qualified name.
    pub(crate) name: String,
    /// `ValidCreatureDef::to_bytes`.
    pub(crate) def: Vec<u8>,
    /// The model file it brings and how it was bound (its files are in the manifest).
    pub(crate) model: Option<crate::model::ModelSource>,
}

/// One leg of a creature's baseline: where its foot last stood, its last step, and the
/// swing it is in (foot units, see `feet.rs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct LegBase {
    /// Where the foot last stood (a swing starts there).
    pub(crate) at: [i32; 3],
    /// Its last step (plant to plant): the next plant is coded against `at + step`.
    pub(crate) step: [i32; 3],
    /// Its last swing's length (ticks) and height (mm): a lift says only when they change.
    pub(crate) dur: u32,
    pub(crate) height: u32,
    /// Swinging: lift tick, duration (ticks), height (mm).
    pub(crate) swing: Option<(u64, u32, u32)>,
}

/// A creature as a viewer first learns it (a spawn, a late join, a ragdoll's recovery).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Baseline {
    pub(crate) id: u32,
    /// Index into the types as sent.
    pub(crate) type_index: u32,
    pub(crate) tick: u64,
    pub(crate) position: Vec3,
    pub(crate) yaw: f32,
    pub(crate) legs: Vec<LegBase>,
    pub(crate) tint: Option<Vec3>,
    pub(crate) team: Option<u32>,
}

/// Server to viewer, on the ordered channel.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) enum Ordered {
    /// The join answered: the server's version, seed, tick and rates.
    Welcome {
        version: String,
        seed: u64,
        tick: u64,
        snapshot_every: u32,
        play: bool,
        your_id: u64,
    },
    /// The version or protocol differs (what, both sides): the viewer is let go.
    Refused { reason: String },
    /// The files the mods' models use, by content hash (again whole when it changes).
    Manifest(Vec<super::assets::AssetEntry>),
    /// Every creature type (sent again whole when one changes: a hot reload).
    Types(Vec<TypeMsg>),
    /// The whole level, piece by piece with its owner (again whole when it changes).
    Level(Vec<(String, PieceDesc)>),
    /// Named paths (again whole when one changes).
    Paths(Vec<(String, crate::math::bezier::BezierPath)>),
    /// Creatures first seen (or seen again, whole: a recovery from physics).
    Spawn(Vec<Baseline>),
    /// Creatures gone, from this tick.
    Despawn { tick: u64, ids: Vec<u32> },
    /// Tints and teams changed.
    Looks(Vec<(u32, Option<Vec3>, Option<u32>)>),
    /// A batch of foot lifts and plants (`feet.rs`).
    Feet(Vec<u8>),
    /// Hits (the lean's kick): tick, creature, direction, strength.
    Hits(Vec<(u64, u32, Vec3, f32)>),
}

/// Server to viewer, on the bulk channel: an asset's bytes, a piece at a time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Chunk {
    pub(crate) hash: [u8; 32],
    pub(crate) offset: u64,
    pub(crate) total: u64,
    pub(crate) data: Vec<u8>,
}

/// Bytes of an asset chunk.
pub(crate) const CHUNK: usize = 32 * 1024;

/// Viewer to server.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) enum FromViewer {
    /// The first message: who is asking.
    Hello { protocol: u32, version: String },
    /// Snapshots received: (tick, chunk), the newest last; and where the viewer looks
    /// (its camera), for priorities.
    Ack {
        got: Vec<(u64, u8)>,
        camera: Option<Vec3>,
    },
    /// Walk a creature to a point.
    Walk { id: u32, to: Vec3 },
    /// Knock a creature over along a direction.
    Knock { id: u32, dir: Vec3 },
    /// Send the asset of this hash (one the manifest lists).
    Asset { hash: [u8; 32] },
}

/// Encodes a message.
pub(crate) fn to_bytes<T: Serialize>(m: &T) -> Vec<u8> {
    postcard::to_allocvec(m).unwrap_or_default()
}

/// Decodes a message; `None` for anything malformed.
pub(crate) fn from_bytes<'a, T: Deserialize<'a>>(b: &'a [u8]) -> Option<T> {
    postcard::from_bytes(b).ok()
}

/// The one line a version mismatch gives, naming what differs.
pub(crate) fn mismatch(
    server_version: &str,
    viewer_version: &str,
    viewer_protocol: u32,
) -> Option<String> {
    if viewer_protocol != PROTOCOL {
        return Some(format!(
            "protocol differs: server speaks skitter protocol {PROTOCOL} (skitter {server_version}), viewer speaks {viewer_protocol} (skitter {viewer_version})"
        ));
    }
    (server_version != viewer_version).then(|| {
        format!("version differs: server is skitter {server_version}, viewer is skitter {viewer_version}")
    })
}
