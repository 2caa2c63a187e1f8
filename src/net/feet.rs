//! Foot lifts and plants on the wire. The server watches every animated creature's legs
//! each tick: a foot that leaves the ground is a lift (where it is headed, how long its
//! swing lasts, how high it steps), one that comes down is a plant (exactly where). Batches
//! of them travel on the ordered reliable channel, each position coded against the leg's
//! last one (the plant a lift starts from, the target a plant ends near), so a viewer that
//! holds the same history decodes the same integers: its feet land where the server's did.

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

/// One foot event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FootEv {
    /// Left the ground at `tick` for a swing of `dur` ticks, `height` mm high, toward
    /// `target` (`prev`: where it stood).
    Lift {
        id: u32,
        leg: u32,
        tick: u64,
        dur: u32,
        height: u32,
        target: [i32; 3],
        prev: [i32; 3],
    },
    /// Came down at `tick` at `pos` (`prev`: the target it swung toward).
    Plant {
        id: u32,
        leg: u32,
        tick: u64,
        pos: [i32; 3],
        prev: [i32; 3],
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

/// The server's record of one leg: its last event position, whether it stands, and the
/// swing it is in.
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
        let legs: Vec<ServerLeg> = loco
            .legs
            .iter()
            .map(|l| {
                let (from, t, dur) = l.swing();
                let swing = (!l.grounded).then(|| {
                    let ticks = (dur / TICK_DT).round().max(1.0) as u32;
                    let done = (t * ticks as f32).round() as u64;
                    (
                        tick.saturating_sub(done),
                        ticks,
                        height_mm(step_height),
                        foot_q(from),
                    )
                });
                ServerLeg {
                    grounded: l.grounded,
                    base: LegBase {
                        at: foot_q(if l.grounded { l.foot } else { l.target }),
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
            let prev = s.base.at;
            if l.grounded {
                let pos = foot_q(l.foot);
                self.pending.push(FootEv::Plant {
                    id,
                    leg: i as u32,
                    tick,
                    pos,
                    prev,
                });
                s.base = LegBase {
                    at: pos,
                    swing: None,
                };
            } else {
                let (_, _, dur) = l.swing();
                let dur = (dur / TICK_DT).round().max(1.0) as u32;
                let target = foot_q(l.target);
                let height = height_mm(step_height);
                self.pending.push(FootEv::Lift {
                    id,
                    leg: i as u32,
                    tick,
                    dur,
                    height,
                    target,
                    prev,
                });
                s.base = LegBase {
                    at: target,
                    swing: Some((tick, dur, height, prev)),
                };
            }
        }
    }

    /// The pending events as batches of at most [`MAX_MESSAGE`] bytes (none when there
    /// were none); the log is emptied.
    pub(crate) fn take_batches(&mut self) -> Vec<Vec<u8>> {
        let events = std::mem::take(&mut self.pending);
        let mut out = Vec::new();
        let mut rest: &[FootEv] = &events;
        while !rest.is_empty() {
            let (bytes, used) = encode(rest);
            out.push(bytes);
            rest = &rest[used..];
        }
        out
    }
}

fn height_mm(h: f32) -> u32 {
    (h * 1000.0).round().clamp(0.0, 65_535.0) as u32
}

/// Encodes as many of `events` as fit one message: the bytes and how many went in.
fn encode(events: &[FootEv]) -> (Vec<u8>, usize) {
    let mut body = BitWriter::default();
    let first = events[0].key().2;
    let (mut last_id, mut last_tick) = (0i64, first);
    let mut used = 0;
    for e in events {
        let mark = body.bit_len();
        let (id, leg, tick) = e.key();
        body.svar((id as i64 - last_id) as i32);
        body.uvar((tick - last_tick) as u32);
        body.uvar(leg);
        match *e {
            FootEv::Lift {
                dur,
                height,
                target,
                prev,
                ..
            } => {
                body.flag(true);
                body.uvar(dur);
                body.uvar(height);
                for k in 0..3 {
                    body.svar(target[k].wrapping_sub(prev[k]));
                }
            }
            FootEv::Plant { pos, prev, .. } => {
                body.flag(false);
                for k in 0..3 {
                    body.svar(pos[k].wrapping_sub(prev[k]));
                }
            }
        }
        if body.byte_len() + 16 > MAX_MESSAGE && used > 0 {
            body.truncate(mark);
            break;
        }
        last_id = id as i64;
        last_tick = tick;
        used += 1;
    }
    let mut head = BitWriter::default();
    head.put(first as u32, 32);
    head.put((first >> 32) as u32, 32);
    head.put(used as u32, 16);
    let mut bytes = head.finish();
    bytes.extend(body.finish());
    (bytes, used)
}

/// A foot event as the viewer decodes it (positions absolute, in foot units).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Decoded {
    Lift {
        id: u32,
        leg: u32,
        tick: u64,
        dur: u32,
        height: u32,
        target: [i32; 3],
    },
    Plant {
        id: u32,
        leg: u32,
        tick: u64,
        pos: [i32; 3],
    },
}

/// Decodes a batch against the legs' last positions (`at(id, leg)`), which it updates as
/// it goes. A malformed batch, or one about legs the viewer does not have, is an error.
pub(crate) fn decode(
    bytes: &[u8],
    mut at: impl FnMut(u32, u32) -> Option<[i32; 3]>,
    mut set: impl FnMut(Decoded),
) -> Result<usize, Malformed> {
    let mut r = BitReader::new(bytes);
    let lo = r.get(32)? as u64;
    let hi = r.get(32)? as u64;
    let mut tick = lo | (hi << 32);
    let count = r.get(16)? as usize;
    let mut id = 0i64;
    for _ in 0..count {
        id += r.svar()? as i64;
        tick += r.uvar()? as u64;
        let leg = r.uvar()?;
        let cid = u32::try_from(id).map_err(|_| Malformed)?;
        let prev = at(cid, leg);
        let lift = r.flag()?;
        let (dur, height) = if lift { (r.uvar()?, r.uvar()?) } else { (0, 0) };
        let mut p = [0i32; 3];
        for v in &mut p {
            *v = r.svar()?;
        }
        // Events of creatures the viewer does not have (not spawned yet for it) are read
        // past; their legs start from the baseline it gets.
        let Some(prev) = prev else { continue };
        let pos = [0, 1, 2].map(|k| prev[k].wrapping_add(p[k]));
        set(if lift {
            Decoded::Lift {
                id: cid,
                leg,
                tick,
                dur: dur.max(1),
                height,
                target: pos,
            }
        } else {
            Decoded::Plant {
                id: cid,
                leg,
                tick,
                pos,
            }
        });
    }
    Ok(count)
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

/// One leg as a viewer keeps it: its last event position (for decoding), where it stands,
/// and the steps it has been told of.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ViewLeg {
    pub(crate) at: [i32; 3],
    rest: Vec3,
    steps: VecDeque<ViewStep>,
}

impl ViewLeg {
    pub(crate) fn new(b: &LegBase) -> ViewLeg {
        let mut leg = ViewLeg {
            at: b.at,
            rest: foot_f(b.at),
            steps: VecDeque::new(),
        };
        if let Some((lift, dur, height, from)) = b.swing {
            leg.rest = foot_f(from);
            leg.steps.push_back(ViewStep {
                lift: lift as f64,
                dur: dur as f64,
                height: height as f32 / 1000.0,
                from: foot_f(from),
                target: foot_f(b.at),
                plant: None,
            });
        }
        leg
    }

    /// A decoded event, learnt while tick `shown` is shown.
    pub(crate) fn learn(&mut self, e: &Decoded, shown: f64) {
        match *e {
            Decoded::Lift {
                tick,
                dur,
                height,
                target,
                ..
            } => {
                let from = self
                    .steps
                    .back()
                    .and_then(|s| s.plant.map(|p| p.1))
                    .unwrap_or(if self.steps.is_empty() {
                        self.rest
                    } else {
                        foot_f(self.at)
                    });
                self.steps.push_back(ViewStep {
                    lift: tick as f64,
                    dur: dur as f64,
                    height: height as f32 / 1000.0,
                    from,
                    target: foot_f(target),
                    plant: None,
                });
                self.at = target;
            }
            Decoded::Plant { tick, pos, .. } => {
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
                self.at = pos;
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
    fn a_batch_decodes_against_the_same_history_and_splits_when_long() {
        let mut events = Vec::new();
        let mut at = [[1000, 0, 2000]; 4];
        for k in 0..400u32 {
            let leg = k % 4;
            let prev = at[leg as usize];
            let e = if k % 8 < 4 {
                let target = [prev[0] + 150, prev[1], prev[2] - 7];
                at[leg as usize] = target;
                FootEv::Lift {
                    id: 7,
                    leg,
                    tick: 100 + k as u64,
                    dur: 14,
                    height: 120,
                    target,
                    prev,
                }
            } else {
                let pos = [prev[0] + 2, prev[1] - 1, prev[2]];
                at[leg as usize] = pos;
                FootEv::Plant {
                    id: 7,
                    leg,
                    tick: 100 + k as u64,
                    pos,
                    prev,
                }
            };
            events.push(e);
        }
        let mut log = FootLog {
            pending: events.clone(),
            ..Default::default()
        };
        let batches = log.take_batches();
        assert!(batches.len() > 1, "400 events in one message");
        assert!(batches.iter().all(|b| b.len() <= MAX_MESSAGE));
        let mut mine = [[1000, 0, 2000]; 4];
        let mut got = Vec::new();
        for b in &batches {
            let m = std::cell::RefCell::new(&mut mine);
            decode(
                b,
                |_, leg| m.borrow().get(leg as usize).copied(),
                |d| {
                    let (leg, p) = match d {
                        Decoded::Lift { leg, target, .. } => (leg, target),
                        Decoded::Plant { leg, pos, .. } => (leg, pos),
                    };
                    m.borrow_mut()[leg as usize] = p;
                    got.push(d);
                },
            )
            .expect("decodes");
        }
        assert_eq!(got.len(), events.len());
        assert_eq!(mine, at, "the viewer's legs end where the server's did");
        let bytes: usize = batches.iter().map(|b| b.len()).sum();
        assert!(
            bytes / events.len() <= 6,
            "{bytes} bytes for {} events",
            events.len()
        );
        assert!(decode(&batches[0][..9], |_, _| Some([0; 3]), |_| {}).is_err());
    }

    #[test]
    fn a_viewer_foot_swings_then_stands_exactly_on_its_plant() {
        let arc = Curve::SineArc;
        let mut leg = ViewLeg::new(&LegBase {
            at: foot_q(Vec3::ZERO),
            swing: None,
        });
        leg.learn(
            &Decoded::Lift {
                id: 0,
                leg: 0,
                tick: 10,
                dur: 12,
                height: 100,
                target: foot_q(Vec3::new(0.0, 0.0, 0.3)),
            },
            0.0,
        );
        assert!(leg.foot(9.0, &arc).grounded);
        let mid = leg.foot(16.0, &arc);
        assert!(!mid.grounded && mid.position.y > 0.05, "{mid:?}");
        let plant = Vec3::new(0.01, 0.0, 0.32);
        leg.learn(
            &Decoded::Plant {
                id: 0,
                leg: 0,
                tick: 22,
                pos: foot_q(plant),
            },
            18.0,
        );
        let down = leg.foot(22.0, &arc);
        assert!(down.grounded, "{down:?}");
        assert!(down.position.distance(plant) < 0.002);
        assert_eq!(leg.foot(40.0, &arc).position, down.position, "no slide");
    }
}
