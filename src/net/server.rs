//! The server side: after each tick of the authoritative World, what changed is captured
//! once (roots, foot events, spawns, despawns, looks, types, level, paths); on snapshot
//! ticks every viewer gets the ordered messages and its own snapshot. Viewers' messages are
//! checked here — malformed, unknown, out of turn or too many are dropped and counted, and
//! a viewer that persists is let go — and their inputs become World commands.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;

use glam::Vec3;
use renet::{ClientId, RenetServer, ServerEvent};

use super::assets::{self, AssetEntry};
use super::feet::FootLog;
use super::proto::{self, channel, Baseline, FromViewer, Ordered, TypeMsg};
use super::snapshot::Outbox;
use super::state::{RigQ, RootQ, StateQ};
use crate::math::frame::wrap_angle;
use crate::sim::{CreatureId, LevelPiece, PieceDesc as Piece, World, WorldEvent, TICK_DT};

/// A viewer's input, checked.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Input {
    Walk(CreatureId, Vec3),
    Knock(CreatureId, Vec3),
}

/// What viewers may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ViewerMode {
    /// Watch only: inputs are dropped (and counted).
    Watch,
    /// Watch and play: walk creatures, knock them over.
    #[default]
    Play,
}

/// How a server runs.
#[derive(Clone, Debug)]
pub struct ServerOptions {
    /// Snapshot every this many ticks (3: 20 Hz).
    pub snapshot_every: u32,
    /// Bytes a second each viewer's snapshots may use (the rest waits, by priority).
    pub budget: usize,
    /// Watch or play.
    pub mode: ViewerMode,
    /// Inputs a viewer may send a second (more are dropped and counted).
    pub inputs_per_second: u32,
    /// Bad messages after which a viewer is let go.
    pub max_bad: u32,
    /// Largest asset file served, bytes.
    pub max_asset_bytes: u64,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            snapshot_every: 3,
            budget: 250_000,
            mode: ViewerMode::Play,
            inputs_per_second: 30,
            max_bad: 64,
            max_asset_bytes: crate::model::DEFAULT_MAX_ASSET_MB << 20,
        }
    }
}

/// What a server dropped, by kind (the hostile battery reads these).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Dropped {
    /// Messages that did not decode.
    pub malformed: u64,
    /// Messages before the viewer said hello, or a second hello.
    pub out_of_turn: u64,
    /// Inputs over the rate limit.
    pub flooded: u64,
    /// Inputs for creatures that are not there, or with values out of range.
    pub invalid: u64,
    /// Inputs from a watch-only viewer.
    pub not_allowed: u64,
    /// Acknowledgements of snapshots never sent.
    pub bad_acks: u64,
    /// Viewers let go for persisting.
    pub disconnected: u64,
    /// Viewers whose connection broke on a packet the transport could not read.
    pub broken: u64,
    /// Asset requests for hashes the manifest does not hold.
    pub unknown_asset: u64,
    /// Asset requests for an asset already sent to that viewer.
    pub repeated_asset: u64,
}

/// One viewer on the server.
#[derive(Debug)]
struct Viewer {
    /// Said hello (the version matched): gets the world.
    hello: bool,
    /// Has its baseline: gets deltas.
    live: bool,
    camera: Option<Vec3>,
    outbox: Outbox,
    bad: u32,
    /// Input tokens (refilled each tick up to a second's worth).
    tokens: f32,
    /// Assets sent to it.
    served: std::collections::BTreeSet<[u8; 32]>,
}

/// What the server remembers of each creature it has told viewers about.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Known {
    tint: Option<Vec3>,
    team: Option<u32>,
    rag: bool,
    yaw: f32,
}

/// The authoritative side of a networked world.
pub struct NetServer {
    renet: RenetServer,
    opts: ServerOptions,
    viewers: BTreeMap<ClientId, Viewer>,
    feet: FootLog,
    /// Each creature's state after the last tick, in id order.
    roots: Vec<(u32, StateQ)>,
    /// What viewers were told of each creature, in id order.
    known: Vec<(u32, Known)>,
    /// Ordered messages waiting for the next snapshot tick.
    outgoing: Vec<Ordered>,
    types: Vec<(String, usize)>,
    level_version: u64,
    paths: Vec<(String, usize)>,
    inputs: Vec<Input>,
    dropped: Dropped,
    tick: u64,
    seed: u64,
    version: String,
    /// The mods served (name, folder), and the manifest of their assets.
    mods: Vec<(String, std::path::PathBuf)>,
    manifest: Vec<AssetEntry>,
    asset_files: BTreeMap<[u8; 32], std::path::PathBuf>,
    manifest_dirty: bool,
    /// Asset bytes sent, all viewers.
    asset_bytes: u64,
}

impl NetServer {
    /// A server with no viewers yet.
    pub fn new(opts: ServerOptions) -> NetServer {
        NetServer {
            renet: RenetServer::new(proto::connection_config()),
            opts,
            viewers: BTreeMap::new(),
            feet: FootLog::default(),
            roots: Vec::new(),
            known: Vec::new(),
            outgoing: Vec::new(),
            types: Vec::new(),
            level_version: u64::MAX,
            paths: Vec::new(),
            inputs: Vec::new(),
            dropped: Dropped::default(),
            tick: 0,
            seed: 0,
            version: env!("CARGO_PKG_VERSION").to_string(),
            mods: Vec::new(),
            manifest: Vec::new(),
            asset_files: BTreeMap::new(),
            manifest_dirty: false,
            asset_bytes: 0,
        }
    }

    /// Follows the host's loaded mods (call before each tick; cheap when they are the
    /// same): their folders are where the manifest's assets come from.
    pub fn sync_mods(&mut self, host: &crate::script::ScriptHost) {
        let mods: Vec<(String, std::path::PathBuf)> = host
            .loaded_mods()
            .into_iter()
            .filter_map(|m| {
                let dir = host.mod_dir(&m)?.to_path_buf();
                Some((m, dir))
            })
            .collect();
        if mods != self.mods {
            self.mods = mods;
            self.manifest_dirty = true;
        }
    }

    /// Foot events batched so far: lifts, plants, their bytes (one viewer's share: every
    /// live viewer gets the same batches).
    pub fn feet_stats(&self) -> (u64, u64, u64) {
        self.feet.stats
    }

    /// Asset bytes sent to viewers so far.
    pub fn asset_bytes(&self) -> u64 {
        self.asset_bytes
    }

    /// Pretends to be another version (tests of the mismatch message).
    pub fn set_version(&mut self, v: &str) {
        self.version = v.to_string();
    }

    /// The transport-agnostic connection (renet): the UDP transport and the in-memory
    /// links move its packets.
    pub fn renet(&mut self) -> &mut RenetServer {
        &mut self.renet
    }

    /// Viewers connected.
    pub fn viewers(&self) -> usize {
        self.viewers.len()
    }

    /// What was dropped so far.
    pub fn dropped(&self) -> Dropped {
        self.dropped
    }

    /// Snapshot bytes and creature records sent to all viewers so far.
    pub fn snapshot_stats(&self) -> (u64, u64) {
        self.viewers.values().fold((0, 0), |(b, r), v| {
            (b + v.outbox.bytes, r + v.outbox.records)
        })
    }

    /// Applies the viewers' inputs since the last call, before the next tick, as the
    /// window applies its clicks: a walk pauses the creature's brain until it arrives
    /// (`ScriptHost::send_to`), a knock is a hit (`World::knock_over`). Both reach the
    /// World as commands, recorded like any input.
    pub fn apply_inputs(&mut self, host: &mut crate::script::ScriptHost) {
        for input in std::mem::take(&mut self.inputs) {
            match input {
                Input::Walk(id, to) => host.send_to(id, Some(to)),
                Input::Knock(id, dir) => {
                    host.world_mut().knock_over(id, dir);
                }
            }
        }
    }

    /// Captures the tick the World just stepped (`events`: the tick's events) and, on
    /// snapshot ticks, sends every viewer what it needs.
    pub fn after_tick(&mut self, world: &World, events: &[WorldEvent]) {
        self.tick = world.frame();
        self.seed = world.seed();
        self.capture_world(world);
        self.capture_creatures(world);
        let hits: Vec<_> = events
            .iter()
            .filter_map(|e| match e {
                WorldEvent::Hit { id, dir, strength } => Some((self.tick, id.0, *dir, *strength)),
                _ => None,
            })
            .collect();
        if !hits.is_empty() {
            self.outgoing.push(Ordered::Hits(hits));
        }
        let every = self.opts.snapshot_every.max(1) as u64;
        if self.tick.is_multiple_of(every) {
            self.flush(world);
        }
        for v in self.viewers.values_mut() {
            let per_tick = self.opts.inputs_per_second as f32 * TICK_DT;
            v.tokens = (v.tokens + per_tick).min(self.opts.inputs_per_second as f32);
        }
    }

    /// Manifest, types, level and paths: sent whole again when any changes (a hot reload).
    fn capture_world(&mut self, world: &World) {
        // Compared in place each tick; the lists are made again only on a change.
        let types = || {
            world
                .types()
                .iter()
                .map(|t| (t.name.as_str(), Arc::as_ptr(&t.def) as usize))
        };
        let types_changed = !same(&self.types, types());
        if self.manifest_dirty || types_changed {
            self.manifest_dirty = false;
            let (entries, files) = assets::manifest(&self.mods, self.opts.max_asset_bytes);
            self.asset_files = files;
            if entries != self.manifest {
                self.manifest = entries;
                self.outgoing.push(Ordered::Manifest(self.manifest.clone()));
            }
        }
        if types_changed {
            self.types = types().map(|(n, p)| (n.to_string(), p)).collect();
            self.outgoing.push(types_msg(world));
            // Definitions changed (a reload): every creature is sent whole again, its legs
            // as the new definition has them.
            self.known.clear();
        }
        if world.level_version() != self.level_version {
            self.level_version = world.level_version();
            self.outgoing.push(level_msg(world));
        }
        let paths = || world.paths().map(|(k, p)| (k, Arc::as_ptr(p) as usize));
        if !same(&self.paths, paths()) {
            self.paths = paths().map(|(k, p)| (k.to_string(), p)).collect();
            self.outgoing.push(paths_msg(world));
        }
    }

    /// Each creature's state, spawns, recoveries, looks and despawns: the World's
    /// creatures walked beside the last tick's (both in id order), in one pass.
    fn capture_creatures(&mut self, world: &World) {
        let mut spawns = Vec::new();
        let mut looks = Vec::new();
        let mut gone = Vec::new();
        let old = std::mem::take(&mut self.known);
        let mut old = old.into_iter().peekable();
        self.roots.clear();
        for c in world.creatures() {
            let id = c.id.0;
            while let Some((o, _)) = old.next_if(|(o, _)| *o < id) {
                gone.push(o);
            }
            let known = old.next_if(|(o, _)| *o == id).map(|(_, k)| k);
            let rag = c.rag.is_some();
            let rate = known.map_or(0.0, |k| wrap_angle(c.loco.yaw - k.yaw) / TICK_DT);
            match known {
                Some(k) if !k.rag || rag => {
                    if (k.tint, k.team) != (c.tint, c.team) {
                        looks.push((id, c.tint, c.team));
                    }
                    if rag && !k.rag {
                        self.feet.stop(id);
                    } else if !rag {
                        self.feet.watch(id, &c.loco, c.gait.step_height, self.tick);
                    }
                }
                // New, or back from physics: sent whole.
                _ => {
                    if !rag {
                        self.feet.start(id, &c.loco, c.gait.step_height, self.tick);
                    }
                    spawns.push(self.baseline(c));
                }
            }
            self.known.push((
                id,
                Known {
                    tint: c.tint,
                    team: c.team,
                    rag,
                    yaw: c.loco.yaw,
                },
            ));
            let state = match &c.rag {
                Some(r) => StateQ::Rig(RigQ::of(r)),
                None => StateQ::Root(RootQ::of(&c.loco, rate)),
            };
            self.roots.push((id, state));
        }
        gone.extend(old.map(|(o, _)| o));
        for id in &gone {
            self.feet.stop(*id);
            for v in self.viewers.values_mut() {
                v.outbox.forget(*id);
            }
        }
        if !spawns.is_empty() {
            self.outgoing.push(Ordered::Spawn(spawns));
        }
        if !looks.is_empty() {
            self.outgoing.push(Ordered::Looks(looks));
        }
        if !gone.is_empty() {
            self.outgoing.push(Ordered::Despawn {
                tick: self.tick,
                ids: gone,
            });
        }
    }

    fn baseline(&self, c: &crate::sim::Creature) -> Baseline {
        Baseline {
            id: c.id.0,
            type_index: c.type_id.0,
            tick: self.tick,
            position: c.loco.position,
            yaw: c.loco.yaw,
            legs: self.feet.baseline(c.id.0).unwrap_or_default(),
            tint: c.tint,
            team: c.team,
        }
    }

    /// A snapshot tick: the ordered messages to the live viewers, the world to those that
    /// said hello since, then every live viewer's snapshot.
    fn flush(&mut self, world: &World) {
        // Encoded once, shared by every viewer (a reference-counted buffer each).
        let mut ordered: Vec<renet::Bytes> = self
            .outgoing
            .drain(..)
            .map(|m| proto::to_bytes(&m).into())
            .collect();
        for b in self.feet.take_batches() {
            ordered.push(proto::to_bytes(&Ordered::Feet(b)).into());
        }
        let budget = self.opts.budget * self.opts.snapshot_every.max(1) as usize / 60;
        let joining: Vec<ClientId> = self
            .viewers
            .iter()
            .filter(|(_, v)| v.hello && !v.live)
            .map(|(id, _)| *id)
            .collect();
        for (&id, v) in self.viewers.iter_mut().filter(|(_, v)| v.live) {
            for m in &ordered {
                self.renet.send_message(id, channel::ORDERED, m.clone());
            }
            for m in v.outbox.snapshot(self.tick, &self.roots, v.camera, budget) {
                self.renet.send_message(id, channel::SNAPSHOT, m);
            }
        }
        for id in joining {
            self.join(world, id);
        }
    }

    /// A viewer that said hello gets the world as it is now: welcome, types, level, paths,
    /// every creature's baseline. Deltas follow from the next snapshot.
    fn join(&mut self, world: &World, id: ClientId) {
        let welcome = Ordered::Welcome {
            version: self.version.clone(),
            seed: self.seed,
            tick: self.tick,
            snapshot_every: self.opts.snapshot_every,
            play: self.opts.mode == ViewerMode::Play,
            your_id: id,
        };
        let spawns: Vec<Baseline> = world.creatures().iter().map(|c| self.baseline(c)).collect();
        let mut msgs = vec![
            welcome,
            Ordered::Manifest(self.manifest.clone()),
            types_msg(world),
            level_msg(world),
            paths_msg(world),
        ];
        for chunk in spawns.chunks(256) {
            msgs.push(Ordered::Spawn(chunk.to_vec()));
        }
        for m in msgs {
            self.renet
                .send_message(id, channel::ORDERED, proto::to_bytes(&m));
        }
        if let Some(v) = self.viewers.get_mut(&id) {
            v.live = true;
        }
    }

    /// Moves the connection on by `dt` (resends, timeouts) and reads what viewers sent.
    pub fn update(&mut self, dt: Duration, world: &World) {
        self.renet.update(dt);
        while let Some(e) = self.renet.get_event() {
            match e {
                ServerEvent::ClientConnected { client_id } => {
                    self.viewers.insert(
                        client_id,
                        Viewer {
                            hello: false,
                            live: false,
                            camera: None,
                            outbox: Outbox::new(self.opts.snapshot_every),
                            bad: 0,
                            tokens: self.opts.inputs_per_second as f32,
                            served: Default::default(),
                        },
                    );
                }
                ServerEvent::ClientDisconnected { client_id, .. } => {
                    self.viewers.remove(&client_id);
                }
            }
        }
        // A connection renet ended (a packet it could not read, a broken channel): the
        // viewer goes; the transport takes the connection out.
        for id in self.renet.disconnections_id() {
            if self.viewers.remove(&id).is_some() {
                self.dropped.broken += 1;
            }
        }
        let ids: Vec<ClientId> = self.viewers.keys().copied().collect();
        for id in ids {
            self.read_viewer(id, world);
        }
    }

    fn read_viewer(&mut self, id: ClientId, world: &World) {
        for ch in [channel::ORDERED, channel::BULK, channel::SNAPSHOT] {
            while let Some(bytes) = self.renet.receive_message(id, ch) {
                let msg = proto::from_bytes::<FromViewer>(&bytes);
                let ok = match msg {
                    Some(m) => self.handle(id, m, world),
                    None => {
                        self.dropped.malformed += 1;
                        false
                    }
                };
                if !ok {
                    self.strike(id);
                }
            }
        }
    }

    /// One bad message from a viewer; past the limit it is let go.
    fn strike(&mut self, id: ClientId) {
        let Some(v) = self.viewers.get_mut(&id) else {
            return;
        };
        v.bad += 1;
        if v.bad > self.opts.max_bad {
            self.dropped.disconnected += 1;
            self.renet.disconnect(id);
            self.viewers.remove(&id);
        }
    }

    /// Handles one message; false when it was dropped as bad.
    fn handle(&mut self, id: ClientId, msg: FromViewer, world: &World) -> bool {
        let Some(v) = self.viewers.get_mut(&id) else {
            return true;
        };
        match msg {
            FromViewer::Hello { protocol, version } => {
                if v.hello {
                    self.dropped.out_of_turn += 1;
                    return false;
                }
                if let Some(reason) = proto::mismatch(&self.version, &version, protocol) {
                    let m = proto::to_bytes(&Ordered::Refused { reason });
                    self.renet.send_message(id, channel::ORDERED, m);
                    return true;
                }
                v.hello = true;
                true
            }
            _ if !v.hello => {
                self.dropped.out_of_turn += 1;
                false
            }
            FromViewer::Ack { got, camera } => {
                v.camera = camera.filter(|c| c.is_finite());
                let mut ok = got.len() <= 64;
                for (tick, chunk) in got.into_iter().take(64) {
                    if tick > self.tick {
                        self.dropped.bad_acks += 1;
                        ok = false;
                    } else {
                        v.outbox.ack(tick, chunk);
                    }
                }
                ok
            }
            FromViewer::Asset { hash } => self.send_asset(id, hash),
            FromViewer::Walk { id: cid, to } => self.input(id, world, cid, to, false),
            FromViewer::Knock { id: cid, dir } => self.input(id, world, cid, dir, true),
        }
    }

    /// A viewer's input: allowed, within its rate, about a creature here, with sane
    /// values — else dropped and counted.
    fn input(&mut self, vid: ClientId, world: &World, cid: u32, v: Vec3, knock: bool) -> bool {
        let Some(viewer) = self.viewers.get_mut(&vid) else {
            return true;
        };
        if self.opts.mode == ViewerMode::Watch {
            self.dropped.not_allowed += 1;
            return false;
        }
        if viewer.tokens < 1.0 {
            self.dropped.flooded += 1;
            return false;
        }
        viewer.tokens -= 1.0;
        let id = CreatureId(cid);
        let here = world.creature(id).is_some();
        if !here || !v.is_finite() || v.length() > 100_000.0 {
            self.dropped.invalid += 1;
            return false;
        }
        self.inputs.push(if knock {
            Input::Knock(id, v)
        } else {
            Input::Walk(id, v)
        });
        true
    }
}

/// Whether a remembered (name, pointer) list is the one `now` lists.
fn same<'a>(kept: &[(String, usize)], mut now: impl Iterator<Item = (&'a str, usize)>) -> bool {
    let mut kept = kept.iter();
    loop {
        match (kept.next(), now.next()) {
            (None, None) => return true,
            (Some((a, p)), Some((b, q))) if a == b && *p == q => {}
            _ => return false,
        }
    }
}

fn types_msg(world: &World) -> Ordered {
    Ordered::Types(
        world
            .types()
            .iter()
            .map(|t| TypeMsg {
                name: t.name.clone(),
                def: t.def.to_bytes(),
                model: t.source.as_deref().cloned(),
            })
            .collect(),
    )
}

impl NetServer {
    /// Sends a viewer the asset of `hash`, in chunks on the bulk channel: only a file the
    /// manifest lists (read from where the manifest found it, never a path a viewer
    /// names), once per viewer.
    fn send_asset(&mut self, id: ClientId, hash: [u8; 32]) -> bool {
        let Some(file) = self.asset_files.get(&hash) else {
            self.dropped.unknown_asset += 1;
            return false;
        };
        let Some(v) = self.viewers.get_mut(&id) else {
            return true;
        };
        if !v.served.insert(hash) {
            self.dropped.repeated_asset += 1;
            return false;
        }
        let bytes = match std::fs::read(file) {
            Ok(b) if assets::sha256(&b) == hash => b,
            // Changed on disk since the manifest: the next tick lists it anew.
            _ => {
                self.manifest_dirty = true;
                return true;
            }
        };
        let total = bytes.len() as u64;
        for (k, piece) in bytes.chunks(proto::CHUNK).enumerate() {
            let chunk = proto::Chunk {
                hash,
                offset: (k * proto::CHUNK) as u64,
                total,
                data: piece.to_vec(),
            };
            self.renet
                .send_message(id, channel::BULK, proto::to_bytes(&chunk));
        }
        if bytes.is_empty() {
            let chunk = proto::Chunk {
                hash,
                offset: 0,
                total: 0,
                data: Vec::new(),
            };
            self.renet
                .send_message(id, channel::BULK, proto::to_bytes(&chunk));
        }
        self.asset_bytes += total;
        true
    }
}

fn level_msg(world: &World) -> Ordered {
    Ordered::Level(
        world
            .level_pieces()
            .iter()
            .map(|(owner, p)| {
                let piece = match p {
                    LevelPiece::Ground(d, _) => Piece::Ground(d.clone()),
                    LevelPiece::Box(b) => Piece::Box(b.clone()),
                    LevelPiece::Stairs(s) => Piece::Stairs(s.clone()),
                    LevelPiece::Link(l) => Piece::Link(l.clone()),
                };
                (owner.clone(), piece)
            })
            .collect(),
    )
}

fn paths_msg(world: &World) -> Ordered {
    Ordered::Paths(
        world
            .paths()
            .map(|(k, p)| (k.to_string(), (**p).clone()))
            .collect(),
    )
}

/// Per-viewer figures for the overlay and the closing note.
#[derive(Clone, Copy, Debug, Default)]
pub struct ViewerStats {
    /// Round trip, seconds.
    pub rtt: f64,
    /// Packet loss share.
    pub loss: f64,
    /// Bytes a second sent to it.
    pub bytes_per_sec: f64,
}

impl NetServer {
    /// Each connected viewer's link figures, as renet measures them.
    pub fn viewer_stats(&self) -> HashMap<u64, ViewerStats> {
        self.viewers
            .keys()
            .filter_map(|id| {
                let n = self.renet.network_info(*id).ok()?;
                Some((
                    *id,
                    ViewerStats {
                        rtt: n.rtt,
                        loss: n.packet_loss,
                        bytes_per_sec: n.bytes_sent_per_second,
                    },
                ))
            })
            .collect()
    }
}
