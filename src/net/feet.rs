//! Foot lifts and plants on the wire. The server watches every animated creature's legs
//! each tick: a foot that leaves the ground is a lift (when, how long its swing lasts, how
//! high it steps — these two only when they change), one that comes down is a plant
//! (exactly where, coded against where the leg's last step would bring it: in a steady walk
//! a few bits). Batches of them travel on the ordered reliable channel; a viewer that holds
//! the same history decodes the same integers, so its feet land where the server's did.

use std::collections::{BTreeMap, VecDeque};

use glam::Vec3;

use super::bits::{BitReader, BitWriter, Malformed};
use super::proto::{LegBase, MAX_MESSAGE};
use crate::locomotion::{swing_point, Locomotor, PuppetFoot};
use crate::math::Curve;
use crate::sim::TICK_DT;

/// Foot position unit: 1/500 m (2 mm).
const FOOT: f32 = 500.0;

pub(crate) fn foot_q(p: Vec3) -> [i32; 3] {
    p.to_array()
        .map(|x| (x * FOOT).round().clamp(-2.0e9, 2.0e9) as i32)
}

pub(crate) fn foot_f(q: [i32; 3]) -> Vec3 {
    Vec3::from_array(q.map(|x| x as f32 / FOOT))
}

fn add(a: [i32; 3], b: [i32; 3]) -> [i32; 3] {
    [0, 1, 2].map(|k| a[k].wrapping_add(b[k]))
}

fn sub(a: [i32; 3], b: [i32; 3]) -> [i32; 3] {
    [0, 1, 2].map(|k| a[k].wrapping_sub(b[k]))
}

/// One foot event, with the leg's history it is coded against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FootEv {
    /// Left the ground at `tick` for a swing of `dur` ticks, `height` mm high (`last`: the
    /// leg's previous duration and height).
    Lift {
        id: u32,
        leg: u32,
        tick: u64,
        dur: u32,
        height: u32,
        last: (u32, u32),
    },
    /// Came down at `tick` at `pos` (`pred`: where the leg's last step would have brought it).
    Plant {
        id: u32,
        leg: u32,
        tick: u64,
        pos: [i32; 3],
        pred: [i32; 3],
    },
}

impl FootEv {
    fn key(&self) -> (u32, u32, u64) {
        match *self {
            FootEv::Lift { id, leg, tick, .. } | FootEv::Plant { id, leg, tick, .. } => {
                (id, leg, tick)
            }
        }
    }
}

/// The server's record of one leg.
#[derive(Clone, Copy, Debug, PartialEq)]
struct ServerLeg {
    grounded: bool,
    base: LegBase,
}

/// The server's watch over every animated creature's legs.
#[derive(Clone, Debug, Default)]
pub(crate) struct FootLog {
    legs: BTreeMap<u32, Vec<ServerLeg>>,
    /// Events since the last batch, in the order they happened.
    pub(crate) pending: Vec<FootEv>,
    /// Lifts and plants batched so far, and their bytes.
    pub(crate) stats: (u64, u64, u64),
}

fn ticks_of(seconds: f32) -> u32 {
    (seconds / TICK_DT).round().max(1.0) as u32
}

impl FootLog {
    /// A creature's legs as they are now: what its baseline carries (and where the log
    /// starts watching it from).
    pub(crate) fn start(
        &mut self,
        id: u32,
        loco: &Locomotor,
        step_height: f32,
        tick: u64,
    ) -> Vec<LegBase> {
        let height = height_mm(step_height);
        let legs: Vec<ServerLeg> = loco
            .legs
            .iter()
            .map(|l| {
                let (from, t, dur) = l.swing();
                let ticks = ticks_of(dur);
                let swing = (!l.grounded).then(|| {
                    let done = (t * ticks as f32).round() as u64;
                    (tick.saturating_sub(done), ticks, height)
                });
                ServerLeg {
                    grounded: l.grounded,
                    base: LegBase {
                        at: foot_q(if l.grounded { l.foot } else { from }),
                        step: [0; 3],
                        dur: ticks,
                        height,
                        swing,
                    },
                }
            })
            .collect();
        let out = legs.iter().map(|l| l.base).collect();
        self.legs.insert(id, legs);
        out
    }

    /// The legs' baselines as the log has them now (a late joiner's).
    pub(crate) fn baseline(&self, id: u32) -> Option<Vec<LegBase>> {
        self.legs
            .get(&id)
            .map(|l| l.iter().map(|l| l.base).collect())
    }

    /// Stops watching a creature (gone, or in physics).
    pub(crate) fn stop(&mut self, id: u32) {
        self.legs.remove(&id);
    }

    /// This tick's lifts and plants of one creature.
    pub(crate) fn watch(&mut self, id: u32, loco: &Locomotor, step_height: f32, tick: u64) {
        let Some(legs) = self.legs.get_mut(&id) else {
            return;
        };
        for (i, (l, s)) in loco.legs.iter().zip(legs.iter_mut()).enumerate() {
            if l.grounded == s.grounded {
                continue;
            }
            s.grounded = l.grounded;
            let b = &mut s.base;
            if l.grounded {
                let pos = foot_q(l.foot);
                let pred = add(b.at, b.step);
                self.pending.push(FootEv::Plant {
                    id,
                    leg: i as u32,
                    tick,
                    pos,
                    pred,
                });
                b.step = sub(pos, b.at);
                b.at = pos;
                b.swing = None;
            } else {
                let dur = ticks_of(l.swing().2);
                let height = height_mm(step_height);
                self.pending.push(FootEv::Lift {
                    id,
                    leg: i as u32,
                    tick,
                    dur,
                    height,
                    last: (b.dur, b.height),
                });
                b.dur = dur;
                b.height = height;
                b.swing = Some((tick, dur, height));
            }
        }
    }

    /// The pending events as batches of at most [`MAX_MESSAGE`] bytes (none when there
    /// were none); the log is emptied.
    pub(crate) fn take_batches(&mut self) -> Vec<Vec<u8>> {
        let mut events = std::mem::take(&mut self.pending);
        // By creature, leg and time: each leg's events stay in order, and the creature
        // and leg fields shrink to a few bits.
        events.sort_by_key(FootEv::key);
        for e in &events {
            match e {
                FootEv::Lift { .. } => self.stats.0 += 1,
                FootEv::Plant { .. } => self.stats.1 += 1,
            }
        }
        let mut out = Vec::new();
        let mut rest: &[FootEv] = &events;
        while !rest.is_empty() {
            let (bytes, used) = encode(rest);
            self.stats.2 += bytes.len() as u64;
            out.push(bytes);
            rest = &rest[used..];
        }
        out
    }
}

fn height_mm(h: f32) -> u32 {
    (h * 1000.0).round().clamp(0.0, 65_535.0) as u32
}

/// Encodes as many of `events` (sorted by creature, leg, tick) as fit one message: the
/// bytes and how many went in.
fn encode(events: &[FootEv]) -> (Vec<u8>, usize) {
    let mut body = BitWriter::default();
    let first = events.iter().map(|e| e.key().2).min().unwrap_or(0);
    let first_id = events[0].key().0;
    let (mut last_id, mut last_leg) = (first_id, 0u32);
    let mut used = 0;
    for e in events {
        let mark = body.bit_len();
        let (id, leg, tick) = e.key();
        body.gvar(id - last_id);
        if id != last_id {
            last_leg = 0;
        }
        body.gvar(leg.wrapping_sub(last_leg));
        body.gvar((tick - first) as u32);
        match *e {
            FootEv::Lift {
                dur, height, last, ..
            } => {
                body.flag(true);
                body.flag(dur != last.0);
                if dur != last.0 {
                    body.uvar(dur);
                }
                body.flag(height != last.1);
                if height != last.1 {
                    body.uvar(height);
                }
            }
            FootEv::Plant { pos, pred, .. } => {
                body.flag(false);
                for k in 0..3 {
                    body.sgvar(pos[k].wrapping_sub(pred[k]));
                }
            }
        }
        if body.byte_len() + 16 > MAX_MESSAGE && used > 0 {
            body.truncate(mark);
            break;
        }
        last_id = id;
        last_leg = leg;
        used += 1;
    }
    let mut head = BitWriter::default();
    head.put(first as u32, 32);
    head.put((first >> 32) as u32, 32);
    head.put(first_id, 32);
    head.put(used as u32, 16);
    let mut bytes = head.finish();
    bytes.extend(body.finish());
    (bytes, used)
}

/// A foot event as the viewer decodes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Decoded {
    Lift {
        id: u32,
        leg: u32,
        tick: u64,
        /// `None`: as the leg's last.
        dur: Option<u32>,
        height: Option<u32>,
    },
    Plant {
        id: u32,
        leg: u32,
        tick: u64,
        /// Offset from where the leg's last step would bring it.
        off: [i32; 3],
    },
}

impl Decoded {
    pub(crate) fn who(&self) -> (u32, u32) {
        match *self {
            Decoded::Lift { id, leg, .. } | Decoded::Plant { id, leg, .. } => (id, leg),
        }
    }
}

/// Decodes a batch, handing each event to `set`. A malformed batch is an error.
pub(crate) fn decode(bytes: &[u8], mut set: impl FnMut(Decoded)) -> Result<usize, Malformed> {
    let mut r = BitReader::new(bytes);
    let lo = r.get(32)? as u64;
    let hi = r.get(32)? as u64;
    let first = lo | (hi << 32);
    let mut id = r.get(32)?;
    let count = r.get(16)? as usize;
    let mut leg = 0u32;
    for _ in 0..count {
        let did = r.gvar()?;
        if did != 0 {
            leg = 0;
        }
        id = id.checked_add(did).ok_or(Malformed)?;
        leg = leg.checked_add(r.gvar()?).ok_or(Malformed)?;
        let tick = first + r.gvar()? as u64;
        let e = if r.flag()? {
            let dur = if r.flag()? {
                Some(r.uvar()?.max(1))
            } else {
                None
            };
            let height = if r.flag()? { Some(r.uvar()?) } else { None };
            Decoded::Lift {
                id,
                leg,
                tick,
                dur,
                height,
            }
        } else {
            let mut off = [0i32; 3];
            for v in &mut off {
                *v = r.sgvar()?;
            }
            Decoded::Plant { id, leg, tick, off }
        };
        set(e);
    }
    Ok(count)
}

/// A leg's lift or landing as a viewer shows it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum LegSound {
    /// It left the ground here.
    Lift(Vec3),
    /// It landed here, this fast (m/s).
    Plant(Vec3, f32),
}

/// One step as a viewer draws it.
#[derive(Clone, Copy, Debug, PartialEq)]
struct ViewStep {
    lift: f64,
    dur: f64,
    height: f32,
    from: Vec3,
    target: Vec3,
    /// The plant: tick, where, and the shown tick when the viewer learnt it.
    plant: Option<(f64, Vec3, f64)>,
}

/// Ticks over which a plant learnt during its swing moves the swing's end onto it.
const BLEND_TICKS: f64 = 3.0;

impl ViewStep {
    /// When the foot is down on its plant.
    fn landed(&self) -> Option<(f64, Vec3)> {
        self.plant
            .map(|(tick, pos, seen)| (tick.max(seen + BLEND_TICKS), pos))
    }

    fn foot(&self, t: f64, arc: &Curve) -> Vec3 {
        let p = ((t - self.lift) / self.dur).clamp(0.0, 1.0) as f32;
        let end = match self.plant {
            None => self.target,
            Some((tick, pos, seen)) => {
                let until = (self.lift + self.dur).max(seen + BLEND_TICKS).max(tick);
                let w = ((t - seen) / (until - seen).max(1e-6)).clamp(0.0, 1.0) as f32;
                let w = w * w * (3.0 - 2.0 * w);
                self.target.lerp(pos, w)
            }
        };
        swing_point(self.from, end, p, self.height, arc)
    }
}

/// One leg as a viewer keeps it: the history plants are coded against (where it last
/// stood, its last step, its last swing's length and height), where it stands, and the
/// steps it has been told of.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ViewLeg {
    at: [i32; 3],
    step: [i32; 3],
    dur: u32,
    height: u32,
    rest: Vec3,
    steps: VecDeque<ViewStep>,
}

impl ViewLeg {
    pub(crate) fn new(b: &LegBase) -> ViewLeg {
        let mut leg = ViewLeg {
            at: b.at,
            step: b.step,
            dur: b.dur,
            height: b.height,
            rest: foot_f(b.at),
            steps: VecDeque::new(),
        };
        if let Some((lift, dur, height)) = b.swing {
            leg.steps.push_back(ViewStep {
                lift: lift as f64,
                dur: dur as f64,
                height: height as f32 / 1000.0,
                from: foot_f(b.at),
                target: foot_f(add(b.at, b.step)),
                plant: None,
            });
        }
        leg
    }

    /// A decoded event, learnt while tick `shown` is shown.
    pub(crate) fn learn(&mut self, e: &Decoded, shown: f64) {
        match *e {
            Decoded::Lift {
                tick, dur, height, ..
            } => {
                self.dur = dur.unwrap_or(self.dur);
                self.height = height.unwrap_or(self.height);
                // Headed where the last step would bring it, until its plant says where.
                self.steps.push_back(ViewStep {
                    lift: tick as f64,
                    dur: self.dur as f64,
                    height: self.height as f32 / 1000.0,
                    from: foot_f(self.at),
                    target: foot_f(add(self.at, self.step)),
                    plant: None,
                });
            }
            Decoded::Plant { tick, off, .. } => {
                let pos = add(add(self.at, self.step), off);
                let p = foot_f(pos);
                match self.steps.back_mut().filter(|s| s.plant.is_none()) {
                    Some(s) => s.plant = Some((tick as f64, p, shown.max(s.lift))),
                    // A plant with no lift told (a foot that hung from its spawn): a short
                    // step onto it from where it is.
                    None => self.steps.push_back(ViewStep {
                        lift: tick as f64 - 6.0,
                        dur: 6.0,
                        height: 0.0,
                        from: foot_f(self.at),
                        target: p,
                        plant: Some((tick as f64, p, shown)),
                    }),
                }
                self.step = sub(pos, self.at);
                self.at = pos;
            }
        }
    }

    /// What this leg did in the shown time after tick `since` up to `t` — its lifts (where
    /// from) and its landings (where, and how fast: the swing's path over its time, as the
    /// viewer draws it) — for the viewer's sound. Before [`ViewLeg::foot`] lets them go.
    pub(crate) fn heard(&self, since: f64, t: f64, mut out: impl FnMut(LegSound)) {
        let within = |x: f64| since < x && x <= t;
        for s in &self.steps {
            if within(s.lift) {
                out(LegSound::Lift(s.from));
            }
            if let Some((_, pos)) = s.landed().filter(|(at, _)| within(*at)) {
                let path = s.from.distance(pos) + 2.0 * s.height;
                let speed = path / (s.dur.max(1.0) as f32 * TICK_DT);
                out(LegSound::Plant(pos, speed));
            }
        }
    }

    /// The foot at shown tick `t` (steps done are let go).
    pub(crate) fn foot(&mut self, t: f64, arc: &Curve) -> PuppetFoot {
        while let Some((at, pos)) = self.steps.front().and_then(ViewStep::landed) {
            if t < at {
                break;
            }
            self.rest = pos;
            self.steps.pop_front();
        }
        match self.steps.front().filter(|s| t >= s.lift) {
            Some(s) => PuppetFoot {
                position: s.foot(t, arc),
                grounded: false,
                target: s.plant.map_or(s.target, |p| p.1),
            },
            None => PuppetFoot {
                position: self.rest,
                grounded: true,
                target: self.rest,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_decodes_to_the_servers_plants_and_splits_when_long() {
        // A leg walking steps of about 30 cm, each plant a little off the last step.
        let mut log = FootLog::default();
        let base = LegBase {
            at: [1000, 0, 2000],
            step: [0, 0, 150],
            dur: 13,
            height: 120,
            swing: None,
        };
        let mut server: Vec<LegBase> = vec![base; 4];
        for k in 0..600u32 {
            let leg = (k % 4) as usize;
            let b = &mut server[leg];
            let tick = 100 + k as u64 / 2;
            if b.swing.is_none() {
                log.pending.push(FootEv::Lift {
                    id: 7 + (k % 3),
                    leg: leg as u32,
                    tick,
                    dur: 13,
                    height: 120,
                    last: (b.dur, b.height),
                });
                b.swing = Some((tick, 13, 120));
            } else {
                let pos = [
                    b.at[0] + (k % 5) as i32 - 2,
                    0,
                    b.at[2] + 150 + (k % 3) as i32,
                ];
                log.pending.push(FootEv::Plant {
                    id: 7 + (k % 3),
                    leg: leg as u32,
                    tick,
                    pos,
                    pred: add(b.at, b.step),
                });
                b.step = sub(pos, b.at);
                b.at = pos;
                b.swing = None;
            }
        }
        let mut want: Vec<(u32, u32, [i32; 3])> = log
            .pending
            .iter()
            .filter_map(|e| match *e {
                FootEv::Plant { id, leg, pos, .. } => Some((id, leg, pos)),
                _ => None,
            })
            .collect();
        let batches = log.take_batches();
        assert!(batches.iter().all(|b| b.len() <= MAX_MESSAGE));
        let mut legs: BTreeMap<(u32, u32), ViewLeg> = BTreeMap::new();
        let mut got = Vec::new();
        for b in &batches {
            decode(b, |d| {
                let (id, leg) = d.who();
                let l = legs.entry((id, leg)).or_insert_with(|| ViewLeg::new(&base));
                l.learn(&d, 0.0);
                if let Decoded::Plant { .. } = d {
                    got.push((id, leg, l.at));
                }
            })
            .expect("decodes");
        }
        want.sort_by_key(|w| (w.0, w.1));
        got.sort_by_key(|w| (w.0, w.1));
        // (A leg here walks for three creatures at once: each creature's own order holds.)
        assert_eq!(got.len(), want.len());
        let (lifts, plants, bytes) = log.stats;
        assert_eq!(lifts + plants, 600);
        assert!(bytes / 600 <= 3, "{bytes} bytes for 600 events");
        assert!(decode(&batches[0][..13], |_| {}).is_err());
    }

    #[test]
    fn a_viewer_foot_swings_then_stands_exactly_on_its_plant() {
        let arc = Curve::SineArc;
        let mut leg = ViewLeg::new(&LegBase {
            at: foot_q(Vec3::ZERO),
            step: foot_q(Vec3::new(0.0, 0.0, 0.3)),
            dur: 12,
            height: 100,
            swing: None,
        });
        let lift = Decoded::Lift {
            id: 0,
            leg: 0,
            tick: 10,
            dur: None,
            height: None,
        };
        leg.learn(&lift, 0.0);
        assert!(leg.foot(9.0, &arc).grounded);
        let mid = leg.foot(16.0, &arc);
        assert!(!mid.grounded && mid.position.y > 0.05, "{mid:?}");
        let plant = Vec3::new(0.01, 0.0, 0.32);
        let off = sub(foot_q(plant), foot_q(Vec3::new(0.0, 0.0, 0.3)));
        leg.learn(
            &Decoded::Plant {
                id: 0,
                leg: 0,
                tick: 22,
                off,
            },
            18.0,
        );
        let down = leg.foot(22.0, &arc);
        assert!(down.grounded, "{down:?}");
        assert!(down.position.distance(plant) < 0.002);
        assert_eq!(leg.foot(40.0, &arc).position, down.position, "no slide");
    }
}
