//! The viewer side: a World that is shown, not simulated. It runs no mod Lua and no
//! physics; it learns types (as data), the level, paths and creatures from the server's
//! ordered messages, keeps each creature's roots from the snapshots and its feet from the
//! lifts and plants, and each frame drives every creature from them at the shown time —
//! the lean, head, IK and skinning being the same code the server runs.

use std::collections::{BTreeMap, VecDeque};

use glam::Vec3;
use renet::RenetClient;

use super::assets::AssetEntry;
use super::clock::Clock;
use super::feet::{self, LegSound, ViewLeg};
use super::proto::{self, channel, Baseline, FromViewer, Ordered, PROTOCOL};
use super::snapshot;
use super::state::{interpolate, interpolate_rig, StateQ};
use crate::locomotion::{PuppetFoot, PuppetRoot, ValidCreatureDef};
use crate::sim::{CreatureId, TypeId, World, WorldEvent, TICK_DT};

/// Where a viewer is with its server.
#[derive(Clone, Debug, PartialEq)]
pub enum ViewerStatus {
    /// Waiting for the server's welcome.
    Joining,
    /// Drawing the server's world.
    Live,
    /// The server said no (the reason names what differs).
    Refused(String),
    /// The connection ended (why).
    Disconnected(String),
}

/// Figures a viewer measures of itself (the overlay, the tests).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ViewerFigures {
    /// Frames drawn since the first snapshot.
    pub frames: u64,
    /// Creature-frames shown past a moving creature's newest state (no snapshot after
    /// the shown time to interpolate toward).
    pub unbracketed: u64,
    /// Snapshot messages received.
    pub snapshots: u64,
    /// Messages that were malformed or missing a base (left out).
    pub bad_messages: u64,
    /// Bytes of messages received.
    pub bytes: u64,
    /// Asset bytes received (files its cache lacked).
    pub asset_bytes: u64,
    /// Assets fetched into the cache.
    pub assets: u64,
    /// Model types drawn with the model they bring (its files all here).
    pub models: u64,
    /// The buffer delay now (s).
    pub delay: f64,
    /// The share of snapshots that did not arrive, lately.
    pub loss: f64,
    /// The largest packet the transport received (bytes, its headers included: a UDP
    /// datagram's payload), where the transport reports it.
    pub largest_packet: usize,
}

/// One creature as a viewer holds it.
#[derive(Clone, Debug)]
struct Shown {
    history: VecDeque<(u64, StateQ)>,
    legs: Vec<ViewLeg>,
    feet: Vec<PuppetFoot>,
    despawn: Option<u64>,
    hits: Vec<(u64, Vec3, f32)>,
    /// Its pose at the shown time.
    pose: Option<Pose>,
    /// In the air at the last shown frame: how fast it was coming down (m/s).
    falling: Option<f32>,
}

/// A networked viewer: its connection and the World it shows.
pub struct NetViewer {
    renet: RenetClient,
    world: World,
    types: Vec<Option<TypeId>>,
    creatures: BTreeMap<u32, Shown>,
    /// States of creatures whose spawn has not arrived yet.
    orphans: BTreeMap<u32, VecDeque<(u64, StateQ)>>,
    clock: Clock,
    status: ViewerStatus,
    hello: bool,
    got: VecDeque<(u64, u8)>,
    fresh_acks: bool,
    camera: Option<Vec3>,
    figures: ViewerFigures,
    shown: Option<f64>,
    version: String,
    play: bool,
    assets: Assets,
    /// What the last frame showed happening: feet lifting and landing, hits (the
    /// viewer's sound).
    sounds: Vec<WorldEvent>,
}

/// A viewer's side of the assets: its cache, the server's manifest, what is on its way,
/// and the model types waiting for their files.
#[derive(Debug)]
struct Assets {
    cache: super::assets::Cache,
    manifest: Vec<AssetEntry>,
    partial: std::collections::HashMap<[u8; 32], Vec<u8>>,
    requested: std::collections::HashSet<[u8; 32]>,
    waiting: Vec<(TypeId, crate::model::ModelSource)>,
}

impl Default for NetViewer {
    fn default() -> Self {
        Self::new()
    }
}

impl NetViewer {
    /// A viewer not yet joined.
    pub fn new() -> NetViewer {
        NetViewer {
            renet: RenetClient::new(proto::connection_config()),
            world: World::new(0),
            types: Vec::new(),
            creatures: BTreeMap::new(),
            orphans: BTreeMap::new(),
            clock: Clock::new(3),
            status: ViewerStatus::Joining,
            hello: false,
            got: VecDeque::new(),
            fresh_acks: false,
            camera: None,
            figures: ViewerFigures::default(),
            shown: None,
            sounds: Vec::new(),
            version: env!("CARGO_PKG_VERSION").to_string(),
            play: false,
            assets: Assets {
                cache: super::assets::Cache::new(super::assets::Cache::default_dir()),
                manifest: Vec::new(),
                partial: Default::default(),
                requested: Default::default(),
                waiting: Vec::new(),
            },
        }
    }

    /// A viewer whose asset cache is the folder `dir` (files named by content hash).
    pub fn with_cache(dir: std::path::PathBuf) -> NetViewer {
        let mut v = NetViewer::new();
        v.assets.cache = super::assets::Cache::new(dir);
        v
    }

    /// Pretends to be another version (tests of the mismatch message).
    pub fn set_version(&mut self, v: &str) {
        self.version = v.to_string();
    }

    /// The connection (renet): the transports move its packets.
    pub fn renet(&mut self) -> &mut RenetClient {
        &mut self.renet
    }

    /// The transport saw a packet of `len` bytes arrive (for the figures).
    pub fn saw_packet(&mut self, len: usize) {
        self.figures.largest_packet = self.figures.largest_packet.max(len);
    }

    /// The World it shows.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// Where it stands with the server.
    pub fn status(&self) -> &ViewerStatus {
        &self.status
    }

    /// The server time it shows (s), once it has one.
    pub fn shown_time(&self) -> Option<f64> {
        self.shown.map(|t| t * TICK_DT as f64)
    }

    /// Its own figures.
    pub fn figures(&self) -> ViewerFigures {
        ViewerFigures {
            delay: self.clock.delay,
            loss: self.clock.loss(),
            ..self.figures
        }
    }

    /// Each creature's newest state from the server (its body's reference point): what the
    /// `net` debug layer draws beside the buffered one.
    pub fn latest_positions(&self) -> Vec<(CreatureId, Vec3)> {
        self.creatures
            .iter()
            .filter_map(|(id, c)| Some((CreatureId(*id), c.history.back()?.1.position())))
            .collect()
    }

    /// The link as renet measures it: round trip (s), packet loss share, bytes received a
    /// second.
    pub fn link(&self) -> (f64, f64, f64) {
        (
            self.renet.rtt(),
            self.renet.packet_loss(),
            self.renet.bytes_received_per_sec(),
        )
    }

    /// Where a ray from `origin` along `dir` meets the level (a click's ground point).
    pub fn raycast(&mut self, origin: Vec3, dir: Vec3) -> Option<Vec3> {
        self.world.raycast(origin, dir, 500.0).map(|h| h.position)
    }

    /// Whether the server lets it play.
    pub fn may_play(&self) -> bool {
        self.play
    }

    /// Where its camera looks (the server sends what is near it first).
    pub fn set_camera(&mut self, at: Option<Vec3>) {
        self.camera = at;
    }

    /// Asks the server to walk a creature to a point.
    pub fn walk(&mut self, id: CreatureId, to: Vec3) {
        let m = proto::to_bytes(&FromViewer::Walk { id: id.0, to });
        self.renet.send_message(channel::BULK, m);
    }

    /// Asks the server for an asset by its hash (what a viewer does for each manifest file
    /// its cache lacks; the server sends only files its manifest lists).
    pub fn request_asset(&mut self, hash: [u8; 32]) {
        let m = proto::to_bytes(&FromViewer::Asset { hash });
        self.renet.send_message(channel::BULK, m);
    }

    /// Asks the server to knock a creature over.
    pub fn knock(&mut self, id: CreatureId, dir: Vec3) {
        let m = proto::to_bytes(&FromViewer::Knock { id: id.0, dir });
        self.renet.send_message(channel::BULK, m);
    }

    /// One frame of `dt` seconds at local time `now` (s): reads what arrived, answers, and
    /// shows the world at the shown time.
    pub fn frame(&mut self, dt: f64, now: f64) {
        self.sounds.clear();
        self.renet.update(std::time::Duration::from_secs_f64(dt));
        if let Some(r) = self.renet.disconnect_reason() {
            if !matches!(self.status, ViewerStatus::Refused(_)) {
                self.status = ViewerStatus::Disconnected(r.to_string());
            }
        }
        if !self.hello && self.renet.is_connected() {
            let m = proto::to_bytes(&FromViewer::Hello {
                protocol: PROTOCOL,
                version: self.version.clone(),
            });
            self.renet.send_message(channel::ORDERED, m);
            self.hello = true;
        }
        while let Some(b) = self.renet.receive_message(channel::ORDERED) {
            self.figures.bytes += b.len() as u64;
            match proto::from_bytes::<Ordered>(&b) {
                Some(m) => self.ordered(m),
                None => self.figures.bad_messages += 1,
            }
        }
        while let Some(b) = self.renet.receive_message(channel::BULK) {
            self.figures.bytes += b.len() as u64;
            match proto::from_bytes::<proto::Chunk>(&b) {
                Some(c) => self.chunk(c),
                None => self.figures.bad_messages += 1,
            }
        }
        while let Some(b) = self.renet.receive_message(channel::SNAPSHOT) {
            self.figures.bytes += b.len() as u64;
            self.snapshot(&b, now);
        }
        if self.fresh_acks {
            let got: Vec<(u64, u8)> = self.got.iter().copied().collect();
            let m = proto::to_bytes(&FromViewer::Ack {
                got,
                camera: self.camera,
            });
            self.renet.send_message(channel::SNAPSHOT, m);
            self.fresh_acks = false;
        }
        if let Some(t) = self.clock.advance(dt, now) {
            let tick = t / TICK_DT as f64;
            // Sounds from the second shown frame on (not every step already done at the
            // first), for what happened since the last shown tick.
            let since = self.shown.unwrap_or(tick);
            self.shown = Some(tick);
            self.figures.frames += 1;
            self.show(tick, since, dt as f32);
        }
    }

    fn snapshot(&mut self, bytes: &[u8], now: f64) {
        self.figures.snapshots += 1;
        let (creatures, orphans) = (&self.creatures, &self.orphans);
        let decoded = snapshot::decode(bytes, |id, t| {
            creatures
                .get(&id)
                .map(|c| &c.history)
                .or_else(|| orphans.get(&id))?
                .iter()
                .find(|(k, _)| *k == t)
                .map(|(_, s)| s.clone())
        });
        let Ok(d) = decoded else {
            self.figures.bad_messages += 1;
            return;
        };
        if d.missing > 0 {
            self.figures.bad_messages += 1;
        }
        if self.got.contains(&(d.tick, d.chunk)) {
            return; // a duplicate
        }
        // Acknowledged only when every record of it is held: the server codes the next
        // states against what a viewer acknowledged.
        if d.missing == 0 {
            self.got.push_back((d.tick, d.chunk));
            if self.got.len() > 24 {
                self.got.pop_front();
            }
            self.fresh_acks = true;
        }
        self.clock.sample(d.tick, now);
        let every = (self.clock.interval / TICK_DT as f64).round() as u64;
        for (id, st) in d.items {
            // A creature whose spawn has not arrived yet (the ordered channel resending
            // it) keeps its states aside until it does.
            let h = match self.creatures.get_mut(&id) {
                Some(c) => &mut c.history,
                None => self.orphans.entry(id).or_default(),
            };
            insert_sample(h, d.tick, st, every);
        }
    }

    fn ordered(&mut self, m: Ordered) {
        match m {
            Ordered::Welcome {
                version: _,
                seed,
                tick: _,
                snapshot_every,
                play,
                your_id: _,
            } => {
                self.world = World::new(seed);
                self.types.clear();
                self.creatures.clear();
                self.orphans.clear();
                self.clock = Clock::new(snapshot_every);
                self.play = play;
                self.status = ViewerStatus::Live;
            }
            Ordered::Refused { reason } => self.status = ViewerStatus::Refused(reason),
            Ordered::Manifest(entries) => {
                self.assets.manifest = entries;
                self.request_assets();
                self.attach_models();
            }
            Ordered::Types(types) => self.set_types(types),
            Ordered::Level(pieces) => {
                if self.world.replace_level(pieces).is_err() {
                    self.figures.bad_messages += 1;
                }
            }
            Ordered::Paths(paths) => {
                for (k, p) in paths {
                    self.world.set_path(&k, std::sync::Arc::new(p), None);
                }
            }
            Ordered::Spawn(list) => list.into_iter().for_each(|b| self.spawn(b)),
            Ordered::Despawn { tick, ids } => {
                for id in ids {
                    if let Some(c) = self.creatures.get_mut(&id) {
                        c.despawn = Some(tick);
                    }
                }
            }
            Ordered::Looks(looks) => {
                for (id, tint, team) in looks {
                    self.world.set_tint(CreatureId(id), tint);
                    self.world.set_team(CreatureId(id), team);
                }
            }
            Ordered::Feet(batch) => self.feet(&batch),
            Ordered::Hits(hits) => {
                for (tick, id, dir, strength) in hits {
                    if let Some(c) = self.creatures.get_mut(&id) {
                        c.hits.push((tick, dir, strength));
                    }
                }
            }
        }
    }

    fn set_types(&mut self, types: Vec<proto::TypeMsg>) {
        self.assets.waiting.clear();
        self.types = types
            .into_iter()
            .map(|t| {
                let def = ValidCreatureDef::from_bytes(&t.def)?;
                let id = self.world.register_type(&t.name, def);
                if let Some(src) = t.model {
                    self.assets.waiting.push((id, src));
                }
                Some(id)
            })
            .collect();
        self.world.retype();
        self.attach_models();
    }

    /// Asks for every manifest file the cache lacks (once each).
    fn request_assets(&mut self) {
        let a = &mut self.assets;
        for e in &a.manifest {
            if !a.cache.has(e) && a.requested.insert(e.hash) {
                let m = proto::to_bytes(&FromViewer::Asset { hash: e.hash });
                self.renet.send_message(channel::BULK, m);
            }
        }
    }

    /// A piece of an asset: kept until the whole is here, then checked against its hash
    /// and stored in the cache.
    fn chunk(&mut self, c: proto::Chunk) {
        let a = &mut self.assets;
        let Some(e) = a.manifest.iter().find(|e| e.hash == c.hash) else {
            self.figures.bad_messages += 1;
            return;
        };
        let buf = a.partial.entry(c.hash).or_default();
        if c.total != e.size
            || c.offset != buf.len() as u64
            || buf.len() + c.data.len() > e.size as usize
        {
            a.partial.remove(&c.hash);
            self.figures.bad_messages += 1;
            return;
        }
        buf.extend_from_slice(&c.data);
        self.figures.asset_bytes += c.data.len() as u64;
        if buf.len() as u64 == e.size {
            let bytes = a.partial.remove(&c.hash).unwrap_or_default();
            if a.cache.put(&c.hash, &bytes).is_ok() {
                self.figures.assets += 1;
            } else {
                self.figures.bad_messages += 1;
            }
            self.attach_models();
        }
    }

    /// Gives each waiting model type its model once all its mod's files are in the cache
    /// (loaded and bound as the server did, from the cache's copy of the mod's folder).
    fn attach_models(&mut self) {
        let a = &mut self.assets;
        let mut still = Vec::new();
        for (id, src) in a.waiting.drain(..) {
            let dir = match a.cache.mod_folder(&src.mod_name, &a.manifest) {
                Ok(Some(d)) => d,
                Ok(None) => {
                    still.push((id, src));
                    continue;
                }
                Err(_) => continue,
            };
            if let Ok(m) = src.load(&dir, &crate::model::LoadLimits::default()) {
                self.world.set_type_model(id, Some(std::sync::Arc::new(m)));
                self.world
                    .set_type_source(id, Some(std::sync::Arc::new(src)));
                self.figures.models += 1;
            }
        }
        a.waiting = still;
    }

    fn spawn(&mut self, b: Baseline) {
        let Some(Some(type_id)) = self.types.get(b.type_index as usize).copied() else {
            return;
        };
        let id = CreatureId(b.id);
        if self.world.creature(id).is_none() {
            self.world.spawn_as(id, type_id, b.position, b.yaw);
        }
        let Some(c) = self.world.creature(id) else {
            return;
        };
        let legs: Vec<ViewLeg> = if b.legs.len() == c.loco.legs.len() {
            b.legs.iter().map(ViewLeg::new).collect()
        } else {
            c.loco
                .legs
                .iter()
                .map(|l| {
                    ViewLeg::new(&proto::LegBase {
                        at: feet::foot_q(l.foot),
                        ..Default::default()
                    })
                })
                .collect()
        };
        self.world.set_tint(id, b.tint);
        self.world.set_team(id, b.team);
        let history = self
            .creatures
            .remove(&b.id)
            .map(|c| c.history)
            .or_else(|| self.orphans.remove(&b.id))
            .unwrap_or_default();
        self.creatures.insert(
            b.id,
            Shown {
                history,
                feet: Vec::with_capacity(legs.len()),
                legs,
                despawn: None,
                hits: Vec::new(),
                pose: None,
                falling: None,
            },
        );
    }

    fn feet(&mut self, batch: &[u8]) {
        let shown = self.shown.unwrap_or(0.0);
        let creatures = &mut self.creatures;
        let ok = feet::decode(batch, |e| {
            let (id, leg) = e.who();
            // Events of a creature this viewer has not been given yet are passed over: its
            // baseline, when it comes, holds them.
            if let Some(l) = creatures
                .get_mut(&id)
                .and_then(|c| c.legs.get_mut(leg as usize))
            {
                l.learn(&e, shown);
            }
        });
        if ok.is_err() {
            self.figures.bad_messages += 1;
        }
    }

    /// The feet's lifts and landings, the bodies' landings and the hits the last frame
    /// showed, as the simulating side's events (`Step`, `Lift`, `Land`, `Hit`), for a
    /// [`Mix`](crate::audio::Mix).
    /// Ragdolls' impacts are not sent: a viewer's ragdolls land silent.
    pub fn take_sounds(&mut self) -> Vec<WorldEvent> {
        std::mem::take(&mut self.sounds)
    }

    /// Drives every creature at shown tick `t` (`since`: the tick shown before).
    fn show(&mut self, t: f64, since: f64, dt: f32) {
        let keep_orphans = snapshot::MAX_BASE_AGE as f64 + 30.0;
        self.orphans
            .retain(|_, h| h.back().is_some_and(|(k, _)| *k as f64 + keep_orphans >= t));
        let gone: Vec<u32> = self
            .creatures
            .iter()
            .filter(|(_, c)| c.despawn.is_some_and(|d| d as f64 <= t))
            .map(|(id, _)| *id)
            .collect();
        for id in gone {
            self.creatures.remove(&id);
            self.world.remove_now(CreatureId(id));
        }
        let mut unbracketed = 0;
        let keep = snapshot::MAX_BASE_AGE as f64 + 30.0;
        for (id, c) in self.creatures.iter_mut() {
            let id = CreatureId(*id);
            c.history.retain(|(k, _)| *k as f64 + keep >= t);
            let (pose, out) = pose_at(&c.history, t);
            unbracketed += u64::from(out);
            // Hits shown by now kick the lean (the body's push is in the roots already).
            for (_, dir, s) in c.hits.extract_if(.., |h| h.0 as f64 <= t) {
                self.world.kick_lean(id, dir, s);
                self.sounds.push(WorldEvent::Hit {
                    id,
                    dir,
                    strength: s,
                });
            }
            let Some(w) = self.world.creature(id) else {
                continue;
            };
            let def = std::sync::Arc::clone(&w.def);
            let in_rig = w.rag.is_some();
            c.feet.clear();
            for (leg, l) in c.legs.iter_mut().enumerate() {
                l.heard(since, t, |e| {
                    self.sounds.push(match e {
                        LegSound::Lift(position) => WorldEvent::Lift { id, leg, position },
                        LegSound::Plant(position, speed) => WorldEvent::Step {
                            id,
                            leg,
                            position,
                            speed,
                        },
                    })
                });
                c.feet.push(l.foot(t, &def.gait.step_arc));
            }
            // Down on its feet after a jump or a fall: the landing the server heard.
            let air = match &pose {
                Some(Pose::Root(r)) => r.airborne.then_some(-r.velocity.y),
                _ => None,
            };
            if let (Some(speed), None, Some(Pose::Root(r))) = (c.falling, air, &pose) {
                self.sounds.push(WorldEvent::Land {
                    id,
                    position: r.position,
                    speed: speed.max(0.0),
                });
            }
            c.falling = air;
            match &pose {
                Some(Pose::Rig(p, r, segs, recovering)) => {
                    let parts = crate::sim::parts_from(&def, (*p, *r), segs);
                    self.world.show_rig(id, parts, *recovering);
                }
                _ if in_rig => self.world.end_rig(id),
                _ => {}
            }
            c.pose = pose;
        }
        self.figures.unbracketed += unbracketed;
        let creatures = &self.creatures;
        self.world
            .drive(t.floor().max(0.0) as u64, t * TICK_DT as f64, dt, |c| {
                let s = creatures.get(&c.id.0)?;
                match &s.pose {
                    Some(Pose::Root(root)) => Some((*root, s.feet.as_slice())),
                    _ => None,
                }
            });
    }
}

/// Adds a snapshot's state to a creature's history (in tick order; a creature that was
/// still and left out of the snapshots since gets its still state again just before).
fn insert_sample(h: &mut VecDeque<(u64, StateQ)>, tick: u64, st: StateQ, every: u64) {
    if h.iter().any(|(k, _)| *k == tick) {
        return;
    }
    let i = h.iter().position(|(k, _)| *k > tick).unwrap_or(h.len());
    if i > 0 {
        let (k, prev) = h[i - 1].clone();
        // Still: a root with no speed or turn, or a rig the same in its last two states
        // (a rig's state carries no velocity: a gap in a moving one is a lost snapshot).
        let still = match &prev {
            StateQ::Root(r) => r.still(),
            StateQ::Rig(_) => i > 1 && h[i - 2].1 == prev,
        };
        if still && tick > k + every {
            h.insert(i, (tick - every, prev));
            h.insert(i + 1, (tick, st));
            return;
        }
    }
    h.insert(i, (tick, st));
}

/// Most ticks a moving creature is carried on past its newest state.
const EXTRAPOLATE: f64 = 6.0;

/// A creature's pose at a shown tick.
#[derive(Clone, Debug)]
enum Pose {
    /// Animated: its root.
    Root(PuppetRoot),
    /// In physics: its body's pose, its segments' rotations, recovering.
    Rig(Vec3, glam::Quat, Vec<glam::Quat>, bool),
}

/// Most ticks between neighbouring states that still give an end's tangent.
const TANGENT_SPAN: u64 = 8;

/// The tangents (m/s) at states `a` and `b` (consecutive in `h`): each from its neighbours'
/// positions (Catmull-Rom: robust whatever the velocity sent meant, in a jump's push as in
/// a walk), or `None` where a neighbour is missing, far, or not a root.
fn tangents(h: &VecDeque<(u64, StateQ)>, a: usize, b: usize) -> (Option<Vec3>, Option<Vec3>) {
    let root = |i: usize| match h.get(i) {
        Some((k, StateQ::Root(r))) => Some((*k, r.position())),
        _ => None,
    };
    let slope = |lo: usize, hi: usize| {
        let ((k0, p0), (k1, p1)) = (root(lo)?, root(hi)?);
        (k1 > k0 && k1 - k0 <= 2 * TANGENT_SPAN).then(|| (p1 - p0) / ((k1 - k0) as f32 * TICK_DT))
    };
    let ta = a.checked_sub(1).and_then(|p| slope(p, b));
    let tb = slope(a, b + 1);
    (ta, tb)
}

/// The pose at shown tick `t`, and whether it had no state after `t` while moving.
fn pose_at(h: &VecDeque<(u64, StateQ)>, t: f64) -> (Option<Pose>, bool) {
    let one = |s: &StateQ| match s {
        StateQ::Root(r) => Pose::Root(r.root()),
        StateQ::Rig(g) => {
            let (p, r, segs) = g.pose();
            Pose::Rig(p, r, segs, g.recovering)
        }
    };
    let i = h.iter().position(|(k, _)| *k as f64 > t);
    match i {
        Some(0) => (h.front().map(|(_, s)| one(s)), false),
        Some(i) => {
            let (ka, a) = &h[i - 1];
            let (kb, b) = &h[i];
            let span = (*kb - *ka) as f64;
            let s = ((t - *ka as f64) / span) as f32;
            let pose = match (a, b) {
                (StateQ::Root(a), StateQ::Root(b)) => {
                    let t = tangents(h, i - 1, i);
                    Pose::Root(interpolate(a, b, span as f32 * TICK_DT, s, t))
                }
                (StateQ::Rig(a), StateQ::Rig(b)) => {
                    let (p, r, segs) = interpolate_rig(a, b, s);
                    Pose::Rig(
                        p,
                        r,
                        segs,
                        if s < 0.5 { a.recovering } else { b.recovering },
                    )
                }
                // Into or out of physics: the state it is in by then.
                _ => one(if s < 1.0 { a } else { b }),
            };
            (Some(pose), false)
        }
        None => match h.back() {
            None => (None, false),
            Some((_, s)) if s.still() => (Some(one(s)), false),
            Some((k, s)) => {
                let StateQ::Root(s) = s else {
                    return (Some(one(s)), false);
                };
                let ahead = (t - *k as f64).min(EXTRAPOLATE) as f32 * TICK_DT;
                let mut r = s.root();
                r.position += r.velocity * ahead;
                r.yaw += s.rate() * ahead;
                (Some(Pose::Root(r)), true)
            }
        },
    }
}
