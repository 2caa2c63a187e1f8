//! The voices of a run and their mix: see the module above.

use std::collections::HashMap;

use glam::Vec3;

use super::synth::{self, Rng, Samples, VARIATIONS};
use super::TICK_SAMPLES;
use crate::sim::{CreatureId, World, WorldEvent};

/// Feet of one creature planting closer together than this (samples, 50 ms) are one voice,
/// as loud as their energies together: a centipede's twenty feet are a rustle, not clicks.
const MERGE_WINDOW: u64 = 2400;
/// Voices playing at once at most; a new one past it replaces the quietest at the listener
/// (or is left out if it is the quietest).
pub const MAX_VOICES: usize = 32;
/// Within this distance a voice is heard at its full level (m); past it, level falls as
/// 1 / distance.
const NEAR: f32 = 2.0;
/// Creatures farther than this (m) are not heard.
const FAR: f32 = 60.0;
/// The mix's level before its soft limit: a voice at full level near the listener peaks
/// near a third of full scale, so a few together still sound apart.
const HEADROOM: f32 = 0.5;
/// A voice quieter than this at the listener is left out.
const QUIETEST: f32 = 0.002;

/// What a voice is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Kind {
    Step,
    Lift,
    Thud,
    Impact,
    Land,
}

/// Where the listener is: its position and the unit vector to its right.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Listener {
    /// Ears, world space.
    pub at: Vec3,
    /// To the right, world space (horizontal, unit).
    pub right: Vec3,
}

impl Listener {
    /// A listener at `from` facing `at` (a camera's eye and target).
    pub fn looking(from: Vec3, at: Vec3) -> Listener {
        let fwd = at - from;
        Listener {
            at: from,
            right: fwd.cross(Vec3::Y).try_normalize().unwrap_or(Vec3::X),
        }
    }
}

/// What a mix did, for the console and the tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MixStats {
    /// Sounds asked for — feet planted and lifted, landings, hits, ragdolls' impacts,
    /// scripts' sounds — before merging and culling.
    pub events: u64,
    /// Voices started.
    pub voices: u64,
    /// Events folded into a voice already sounding (feet landing together).
    pub merged: u64,
    /// Events too far or too quiet at the listener.
    pub culled: u64,
    /// Voices left out (or cut) for the cap.
    pub capped: u64,
    /// Most voices sounding at once.
    pub most_at_once: usize,
}

struct Voice {
    sound: Samples,
    /// Read position in `sound` (samples) and step a sample (the pitch).
    pos: f32,
    rate: f32,
    /// Its level before distance, and the first event's (merging grows it to twice that at
    /// most).
    level: f32,
    first: f32,
    /// Distance attenuation and the equal-power pan's gains.
    near: f32,
    pan: (f32, f32),
    /// Whose, what, and its onset (absolute sample).
    who: (CreatureId, Kind),
    start: u64,
}

/// The bundled sounds, in variations.
struct Bank {
    step: Vec<Samples>,
    lift: Vec<Samples>,
    thud: Vec<Samples>,
}

/// A run's voices and their mix, tick by tick.
pub struct Mix {
    seed: u64,
    bank: Bank,
    voices: Vec<Voice>,
    /// The latest voice of each (creature, kind): its onset, for merging.
    recent: HashMap<(CreatureId, Kind), u64>,
    /// Samples mixed so far.
    now: u64,
    stats: MixStats,
    block: Vec<[f32; 2]>,
}

/// A voice asked for: whose and what (`merge`: folded into that creature's voice of the
/// kind started within [`MERGE_WINDOW`]), where, its level before distance, its rate before
/// the voice's own jitter (the body's mass, a script's pitch), and the type's own variations
/// to pick from (`None`: the bundled ones).
struct Ask<'a> {
    who: (CreatureId, Kind),
    merge: bool,
    at: Vec3,
    level: f32,
    rate: f32,
    own: Option<&'a [Samples]>,
}

/// The variations a type brings for `kind`: its surface's where the foot (`at`) is on a
/// tagged surface it has sounds for, else its own; `None` where it brings none.
fn own_sounds<'a>(
    o: &'a crate::sim::TypeSounds,
    kind: Kind,
    world: &World,
    at: Vec3,
) -> Option<&'a [Samples]> {
    let of = |s: &'a crate::sim::TypeSounds| -> &'a [Samples] {
        match kind {
            Kind::Step => &s.step,
            Kind::Lift => &s.lift,
            Kind::Thud => &s.hit,
            Kind::Impact => &s.ragdoll_impact,
            Kind::Land => &s.land,
        }
    };
    // Feet and landings only, and only for a type with surface sounds: one ray each.
    let on = match kind {
        Kind::Step | Kind::Lift | Kind::Land if !o.by_surface.is_empty() => world
            .surface_at(at)
            .and_then(|t| t.surface)
            .and_then(|s| o.by_surface.iter().find(|(n, _)| *n == s))
            .map(|(_, s)| of(s)),
        _ => None,
    };
    [on, Some(of(o))]
        .into_iter()
        .flatten()
        .find(|l| !l.is_empty())
}

impl Mix {
    /// A mix whose variations and pitches follow `seed` (the world's).
    pub fn new(seed: u64) -> Mix {
        let bank = Bank {
            step: (0..VARIATIONS).map(synth::step).collect(),
            lift: (0..VARIATIONS).map(synth::lift).collect(),
            thud: (0..VARIATIONS).map(synth::thud).collect(),
        };
        Mix {
            seed,
            bank,
            voices: Vec::new(),
            recent: HashMap::new(),
            now: 0,
            stats: MixStats::default(),
            block: vec![[0.0; 2]; TICK_SAMPLES],
        }
    }

    /// What it did so far.
    pub fn stats(&self) -> MixStats {
        self.stats
    }

    /// One tick: its events' voices start at the tick's first sample; the tick's
    /// [`TICK_SAMPLES`] stereo samples are returned, interleaved (left, right).
    pub fn tick(&mut self, events: &[WorldEvent], world: &World, ear: &Listener) -> Vec<i16> {
        for e in events {
            // Where, and how fast it came down (a level of its own for a lift or a hit).
            let (who, at, speed) = match e {
                WorldEvent::Step {
                    id,
                    position,
                    speed,
                    ..
                } => ((*id, Kind::Step), *position, Ok(*speed)),
                WorldEvent::Lift { id, position, .. } => ((*id, Kind::Lift), *position, Err(0.5)),
                WorldEvent::Impact {
                    id,
                    position,
                    speed,
                } => ((*id, Kind::Impact), *position, Ok(*speed)),
                WorldEvent::Land {
                    id,
                    position,
                    speed,
                } => ((*id, Kind::Land), *position, Ok(*speed)),
                WorldEvent::Hit { id, strength, .. } => {
                    let Some(c) = world.creature(*id) else {
                        continue;
                    };
                    let level = (strength / 3.0).clamp(0.2, 1.5);
                    ((*id, Kind::Thud), c.body_pose().0, Err(level))
                }
                _ => continue,
            };
            let ty = world
                .creature(who.0)
                .and_then(|c| world.creature_type(c.type_id));
            let mass = ty.map_or(2.0, |t| t.def.body.mass);
            let own = ty.and_then(|t| t.sounds.as_deref());
            // The type's curves where it brings them: level by speed, rate by mass.
            let level = match (speed, own.and_then(|o| o.volume.as_ref())) {
                (Ok(v), Some(curve)) => curve.eval(v).clamp(0.0, 8.0),
                (Ok(v), None) => match who.1 {
                    Kind::Step => step_level(v),
                    Kind::Land => land_level(v),
                    _ => impact_level(v),
                },
                (Err(level), _) => level,
            };
            let rate = match own.and_then(|o| o.pitch.as_ref()) {
                Some(curve) => curve.eval(mass).clamp(0.25, 4.0),
                None => mass_rate(mass),
            };
            let ask = Ask {
                who,
                merge: true,
                at,
                level: level * weight(mass),
                rate,
                own: own.and_then(|o| own_sounds(o, who.1, world, at)),
            };
            self.start(ask, ear);
        }
        self.render()
    }

    /// A sound a script asked for (`SOUNDS[sound]`, at `at`, `volume` times its level,
    /// `pitch` times its rate), starting with the next tick's events: a voice of its own (not
    /// merged with footfalls), under the same cap and culling.
    pub fn play(&mut self, sound: usize, at: Vec3, volume: f32, pitch: f32, ear: &Listener) {
        let kind = match sound {
            0 => Kind::Step,
            1 => Kind::Lift,
            _ => Kind::Thud,
        };
        let ask = Ask {
            who: (CreatureId(u32::MAX), kind),
            // A script's sounds never fold into each other or into footfalls.
            merge: false,
            at,
            level: volume,
            rate: mass_rate(5.0) * pitch,
            own: None,
        };
        self.start(ask, ear);
    }

    /// A voice as `ask` says, unless it merges, is culled or capped.
    fn start(&mut self, ask: Ask<'_>, ear: &Listener) {
        let Ask {
            who,
            merge,
            at,
            level,
            rate,
            own,
        } = ask;
        self.stats.events += 1;
        let mut rng = Rng::new(self.seed.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ self.stats.events);
        if let Some(&start) = self.recent.get(&who).filter(|_| merge) {
            if self.now - start < MERGE_WINDOW {
                if let Some(v) = self
                    .voices
                    .iter_mut()
                    .find(|v| v.who == who && v.start == start)
                {
                    // Energies add: two feet together are 3 dB louder, not twice as loud.
                    v.level = (v.level.hypot(level)).min(2.0 * v.first);
                }
                self.stats.merged += 1;
                return;
            }
        }
        let to = at - ear.at;
        let d = to.length();
        let near = NEAR / d.max(NEAR);
        let loud = level * near;
        if d > FAR || loud < QUIETEST {
            self.stats.culled += 1;
            return;
        }
        // Equal-power pan by the side it is on.
        let side = to
            .try_normalize()
            .map_or(0.0, |u| u.dot(ear.right))
            .clamp(-1.0, 1.0);
        let theta = (side + 1.0) * std::f32::consts::FRAC_PI_4;
        let list: &[Samples] = match (own, who.1) {
            (Some(o), _) => o,
            (None, Kind::Step) => &self.bank.step,
            (None, Kind::Lift) => &self.bank.lift,
            (None, Kind::Thud | Kind::Impact | Kind::Land) => &self.bank.thud,
        };
        let sound = list[(rng.next_u64() % list.len() as u64) as usize].clone();
        // Each footfall a little different.
        let rate = ((0.92 + 0.16 * rng.unit()) * rate).clamp(0.2, 5.0);
        let voice = Voice {
            sound,
            pos: 0.0,
            rate,
            level,
            first: level,
            near,
            pan: (theta.cos(), theta.sin()),
            who,
            start: self.now,
        };
        if self.voices.len() >= MAX_VOICES {
            let (q, quietest) = self
                .voices
                .iter()
                .enumerate()
                .map(|(i, v)| (i, v.level * v.near))
                .fold((0, f32::MAX), |a, b| if b.1 < a.1 { b } else { a });
            self.stats.capped += 1;
            if quietest >= loud {
                return;
            }
            self.voices.swap_remove(q);
        }
        if merge {
            self.recent.insert(who, self.now);
        }
        self.voices.push(voice);
        self.stats.voices += 1;
        self.stats.most_at_once = self.stats.most_at_once.max(self.voices.len());
    }

    /// Mixes the next tick's samples.
    fn render(&mut self) -> Vec<i16> {
        self.block.iter_mut().for_each(|s| *s = [0.0; 2]);
        for v in &mut self.voices {
            let (left, right) = (v.level * v.near * v.pan.0, v.level * v.near * v.pan.1);
            for out in self.block.iter_mut() {
                let i = v.pos as usize;
                let Some(&a) = v.sound.get(i) else { break };
                let b = v.sound.get(i + 1).copied().unwrap_or(0.0);
                let s = a + (b - a) * (v.pos - i as f32);
                out[0] += s * left;
                out[1] += s * right;
                v.pos += v.rate;
            }
        }
        self.voices.retain(|v| (v.pos as usize) < v.sound.len());
        self.now += TICK_SAMPLES as u64;
        // Old onsets can merge nothing more.
        let now = self.now;
        self.recent.retain(|_, s| now - *s < MERGE_WINDOW);
        let mut out = Vec::with_capacity(TICK_SAMPLES * 2);
        for s in &self.block {
            for c in s {
                // Headroom, then a soft limit: loud crowds saturate instead of wrapping.
                out.push(((c * HEADROOM).tanh() * 32000.0) as i16);
            }
        }
        out
    }
}

/// A footfall's level from how fast the foot came down (m/s): a creeping foot is faint.
fn step_level(speed: f32) -> f32 {
    (0.25 + speed * 0.6).clamp(0.25, 1.2)
}

/// A ragdoll part's landing level from how fast it came down (m/s): a slump is faint, a fall
/// from a height loud.
fn impact_level(speed: f32) -> f32 {
    (speed / 8.0).clamp(0.05, 1.5)
}

/// A body's landing on its feet from how fast it came down (m/s): a hop's touch-down about
/// a footfall's level, a fall of a metre or more louder than any step.
fn land_level(speed: f32) -> f32 {
    (0.4 + speed * 0.25).clamp(0.4, 2.0)
}

/// How a creature's mass (kg) sets its sounds' rate: heavier is lower (a 2 kg spider 1.12,
/// a 30 kg soldier 0.81).
fn mass_rate(mass: f32) -> f32 {
    (mass / 5.0).max(0.01).powf(-0.12).clamp(0.55, 1.6)
}

/// How a creature's mass (kg) scales its sounds' level: a 2 kg spider 0.76, a 30 kg soldier 1.7.
fn weight(mass: f32) -> f32 {
    (mass.max(0.1) / 5.0).powf(0.3)
}
