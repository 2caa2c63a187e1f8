//! One creature's locomotion state and its per-tick update: steering the kinematic body,
//! casting foot targets, scheduling and animating steps, fitting the body to the feet, and
//! solving leg IK. Planted feet are locked in world space: only a step moves a foot.

use glam::{Quat, Vec3};

use super::def::{LeanDef, ValidCreatureDef};
use super::gait::{choose_steps, GaitParams, LegView};
use super::ground::GroundQuery;
use super::lean::{LeanInput, LeanState, PUSH_TAU};
use crate::math::frame::{horizontal, smoothing_alpha, yaw_rotation};
use crate::path::PathFollower;

mod body;
mod climb;
mod head;
mod jump;
mod leg;
mod puppet;
pub use puppet::{swing_point, PuppetFoot, PuppetRoot};
mod stance;
pub use stance::BodyPose;
mod steer;
mod styling;
pub use styling::StyleState;
mod terrain;

pub use climb::{Climb, Crease, Surface};
pub use jump::{Jump, JumpPhase};
pub(crate) use leg::LegState;

/// Metres above the body from which foot targets are cast down.
const CAST_ABOVE_BODY: f32 = 0.5;
/// Metres below the rest spot the cast still looks for ground.
const CAST_BELOW_REST: f32 = 1.5;
/// Body height follows the support plane as a critically damped spring with this time
/// constant (s): a step up or down, a rock or a slope change is taken up over ~0.4 s.
pub(crate) const HEIGHT_TAU: f32 = 0.1;
/// The posture never accelerates the body vertically harder than this (m/s²): about
/// 1.1 mm per tick², so no step, rock or turn jolts it.
pub(crate) const BODY_ACCEL_MAX: f32 = 4.0;
/// Falling: gravity (m/s²).
pub(crate) const GRAVITY: f32 = crate::math::ballistic::GRAVITY;
/// Landing: the legs catch the body with at most this deceleration (m/s², 3 g).
pub(crate) const LAND_DECEL: f32 = 3.0 * GRAVITY;
/// Body tilt smoothing time constant (s).
const TILT_TAU: f32 = 0.12;
/// Largest tilt the body takes from the feet (radians, 35°).
const MAX_TILT: f32 = 0.61;
/// Reach (hip-to-foot / leg length) past which a planted foot that wants to step may lift
/// outside its group's turn.
const REACH_URGENT: f32 = 0.9;
/// Share of the step trigger a stretched foot's target must drift before it re-steps.
const URGENT_DRIFT: f32 = 0.3;
/// Reach at which the body starts to be held back by a stretched planted foot.
const HOLD_FROM: f32 = 0.92;
/// Reach at which the body stops moving until that foot steps.
const HOLD_TO: f32 = 0.99;
/// A foothold below its rest spot further than this share of its leg's length from where
/// its hip will be with the body at its ride height is moved in toward the hip until it is
/// not (legs reach down, not out): straddling a drop along its way, a walker's low-side
/// feet would otherwise hold its body down below its ride height (see `reach_cap`).
const PLAN_REACH: f32 = 0.85;
/// Head aim smoothing time constant (s).
const HEAD_TAU: f32 = 0.08;
/// A foot spawned over no ground it can stand on swings this long (s) to the foothold the
/// stepper finds for it.
const HANG_SWING: f32 = 0.25;

/// What the body has been told to do (by `c:move` / `c:face`).
#[derive(Clone, Copy, Debug, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub enum Intent {
    /// Stand (decelerate to a stop, keep heading).
    #[default]
    Idle,
    /// Head along `dir` (horizontal unit vector) at `speed` m/s until told otherwise.
    Move {
        /// Horizontal unit direction.
        dir: Vec3,
        /// Target speed, m/s.
        speed: f32,
        /// Walk off an edge deeper than `nav.step_height` (and fall) instead of stopping.
        #[serde(default)]
        drop: bool,
    },
    /// Stop and turn in place toward `dir`.
    Face {
        /// Horizontal unit direction.
        dir: Vec3,
    },
}

impl Intent {
    /// Walk along `dir` at `speed` m/s, stopping at edges deeper than a step.
    pub fn walk(dir: Vec3, speed: f32) -> Intent {
        Intent::Move {
            dir,
            speed,
            drop: false,
        }
    }
}

/// How long a breath takes to fade in at rest or out on the move (s).
pub(crate) const BREATH_TAU: f32 = 0.6;

/// A foot landed (or, `lift`, left the ground).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepEvent {
    /// Leg index in the definition.
    pub leg: usize,
    /// Where it landed (or lifted from), world space.
    pub position: Vec3,
    /// How fast it came down, m/s (its swing's speed over its last tick; 0 for a lift).
    pub speed: f32,
    /// It left the ground (a step starting, a jump, a fall) rather than landing.
    pub lift: bool,
}

/// Working memory for [`Locomotor::update`], shared by all creatures of a world so each
/// creature's own state stays small and packed.
#[derive(Clone, Debug, Default)]
pub struct Scratch {
    views: Vec<LegView>,
    steps: Vec<usize>,
    points: Vec<Vec3>,
    joints: Vec<Vec3>,
    /// Where each foot was before the update.
    stood_at: Vec<Vec3>,
    /// Feet that landed during the last update.
    pub events: Vec<StepEvent>,
    /// The last update reached the end of a `loop = false` path.
    pub path_end: bool,
    /// Smoothing factors for the last step size (tilt, head): every creature of a world
    /// steps by the same `dt`, so the exponentials run once per size, not per body.
    alphas: Option<(u32, [f32; 2])>,
}

impl Scratch {
    /// The smoothing factors (tilt, head) for `dt` (1 when `dt` is 0: snap).
    fn alphas(&mut self, dt: f32) -> [f32; 2] {
        if dt == 0.0 {
            return [1.0; 2];
        }
        match self.alphas {
            Some((bits, a)) if bits == dt.to_bits() => a,
            _ => {
                let a = [smoothing_alpha(dt, TILT_TAU), smoothing_alpha(dt, HEAD_TAU)];
                self.alphas = Some((dt.to_bits(), a));
                a
            }
        }
    }
}

/// The locomotion state of one creature. Plain data; the World owns it.
#[derive(Clone, Debug, PartialEq)]
pub struct Locomotor {
    /// Body centre, world space.
    pub position: Vec3,
    /// Heading, radians (see `math::frame`).
    pub yaw: f32,
    /// Body velocity, world space (vertical part from the posture fit).
    pub velocity: Vec3,
    /// Body up vector from the feet fit (smoothed).
    pub up: Vec3,
    /// Current command.
    pub intent: Intent,
    /// Following a path (overrides `intent` while set).
    pub follow: Option<PathFollower>,
    /// Where the body faces apart from where it goes (a heading, radians; set each tick by
    /// the sim from `c:set_facing`): it moves as it would, turned this way.
    pub face_yaw: Option<f32>,
    /// This tick it moved apart from its facing (`face_yaw`, or `nav.heading = "side"`).
    pub strafing: bool,
    /// The posture a brain asked for (`c:pose`), easing.
    pub stance: stance::Stance,
    /// Arms reaching (`c:reach`), by arm; empty while none has.
    pub arm_reach: Vec<crate::locomotion::ArmReach>,
    /// Legs, in definition order.
    pub legs: Vec<LegState>,
    /// The lean layer (tilt added after locomotion).
    pub lean: LeanState,
    /// How far the body sinks so no hip rises as it leans, metres.
    pub sink: f32,
    /// The last tick's change of `sink` (kept out of the body's measured vertical speed).
    sink_change: f32,
    /// Head yaw relative to the body (counter-yaw, or looking), radians.
    pub head_yaw: f32,
    /// The breath's rise of the drawn body now, metres (`body.breathe`; set by the sim).
    pub breath: f32,
    /// How much of its breath it takes now (0..1: eased toward 1 at rest, 0 moving).
    breath_weight: f32,
    /// Head pitch relative to the body (looking up: positive), radians.
    pub head_pitch: f32,

    /// What the head looks at this tick, world space (`c:look_at`; the sim sets it).
    pub look_at: Option<Vec3>,
    /// What is left of a hit's push, m/s (decays with `lean::PUSH_TAU`).
    pub push: Vec3,
    /// Vertical speed of the body's height spring, m/s (its own state: `velocity.y` is
    /// the body's measured vertical speed).
    pub rise: f32,
    /// In the air: walked off an edge (or pushed), falling under gravity, feet hanging.
    pub airborne: bool,
    /// Caught by its legs after a fall, until the body has settled.
    pub landing: bool,
    /// How hard the legs catch the body while `landing` (m/s²): [`LAND_DECEL`], or more
    /// after a long fall (see `jump::catch_decel`).
    catch: f32,
    /// A jump under way (`c:jump`, a link's crossing): crouching, or in flight.
    pub jump: Option<Jump>,
    /// How far a crouch lowers the body's height target, m.
    crouch: f32,
    /// The height the posture wants the body at (the support plane's height under it plus
    /// its ride height; before the crouch and the reach cap), m.
    ride_y: f32,
    /// A climbing type's surface frame (`None` for walkers).
    pub climb: Option<Climb>,
    last_group: Option<usize>,
    /// Legs (bit i) that have lifted in the current phase; cleared when all feet are down.
    phase_stepped: u64,
    /// The gait style in use (types with `gait.styles`).
    pub style: StyleState,
    /// The speed its steering asked for this tick (m/s; before the legs hold it back): a
    /// gait style is chosen for the faster of this and the speed it has.
    pub desired_speed: f32,
    /// The ground its feet stand on this tick, as a plane (a point on it and its normal):
    /// the support plane a walker's posture fitted; `None` when none was (in the air, on
    /// a climbing surface). What its spring chains lie on.
    pub floor: Option<(Vec3, Vec3)>,
}

impl Locomotor {
    /// Places a creature at `at` (x, z; y is only a hint) facing `yaw`, feet on the ground.
    pub fn spawn<G: GroundQuery + ?Sized>(
        def: &ValidCreatureDef,
        at: Vec3,
        yaw: f32,
        ground: &G,
    ) -> Locomotor {
        let ride = def.body.hover.unwrap_or(def.body.height);
        let probe = Vec3::new(at.x, at.y.max(0.0) + 50.0, at.z);
        let floor = ground
            .cast_down(probe, 200.0)
            .map(|p| p.y)
            .unwrap_or(at.y - ride);
        let position = Vec3::new(at.x, floor + ride, at.z);
        let rot = yaw_rotation(yaw);
        let footing = terrain::Footing::of(def, Vec3::Y);
        let legs = def
            .legs
            .iter()
            .map(|leg| LegState::stood(leg, position, rot, &footing, ground))
            .collect();
        let mut loco = Locomotor {
            position,
            yaw,
            velocity: Vec3::ZERO,
            up: Vec3::Y,
            intent: Intent::Idle,
            follow: None,
            face_yaw: None,
            strafing: false,
            stance: stance::Stance::default(),
            arm_reach: Vec::new(),
            legs,
            lean: LeanState::default(),
            sink: 0.0,
            sink_change: 0.0,
            head_yaw: 0.0,
            head_pitch: 0.0,
            look_at: None,
            breath: 0.0,
            breath_weight: 0.0,
            push: Vec3::ZERO,
            rise: 0.0,
            airborne: false,
            landing: false,
            catch: LAND_DECEL,
            jump: None,
            crouch: 0.0,
            ride_y: position.y,
            climb: def.climb.is_some().then(|| Climb::upright(yaw)),
            last_group: None,
            phase_stepped: 0,
            style: StyleState::at_rest(def),
            desired_speed: 0.0,
            floor: None,
        };
        let mut scratch = Scratch::default();
        let rot = loco.fit_body(def, 0.0, yaw_rotation(yaw), ground, &mut scratch);
        loco.solve_ik(def, loco.position, rot, &mut scratch);
        loco
    }

    /// A creature getting up from physics at `at` facing `yaw`: stood like a spawn, then
    /// each foot whose given spot (`feet`, the rig's feet) is on the ground and within
    /// 0.95 of its leg's reach from the hip is planted there instead of at its rest spot
    /// (the stepper then walks the others home, one group at a time).
    pub fn stand_up<G: GroundQuery + ?Sized>(
        def: &ValidCreatureDef,
        at: Vec3,
        yaw: f32,
        feet: &[Vec3],
        ground: &G,
    ) -> Locomotor {
        let mut loco = Locomotor::spawn(def, at, yaw, ground);
        let rot = loco.rotation();
        let mut changed = false;
        let footing = terrain::Footing::of(def, loco.up);
        for ((leg, st), foot) in def.legs.iter().zip(loco.legs.iter_mut()).zip(feet) {
            let origin = Vec3::new(foot.x, foot.y + leg.length, foot.z);
            let Some(hit) = footing.cast(ground, origin, leg.length * 2.0) else {
                continue;
            };
            let hip = loco.position + rot * leg.hip;
            if hit.distance(hip) <= 0.95 * leg.length && (hit - foot).length() < 0.3 {
                *st = LegState::planted(hit, Some(hit), hip);
                changed = true;
            }
        }
        if changed {
            let mut scratch = Scratch::default();
            let rot = loco.fit_body(def, 0.0, yaw_rotation(yaw), ground, &mut scratch);
            loco.solve_ik(def, loco.position, rot, &mut scratch);
        }
        loco
    }

    /// The same creature stood afresh on `ground` (after the level or its legs changed):
    /// same place and heading, motion, commands and lean; new feet and height.
    pub fn regrounded<G: GroundQuery + ?Sized>(
        &self,
        def: &ValidCreatureDef,
        ground: &G,
    ) -> Locomotor {
        // A climber on its surface keeps its hold (a reload, a restore): the level is
        // where it was, and it climbs on from there.
        // Feet whose surface the new level took away lose their holds.
        if self.is_climbing() && def.climb.is_some() && def.legs.len() == self.legs.len() {
            let mut kept = self.clone();
            kept.lose_lost_holds(ground);
            return kept;
        }
        // So does one in the air (a jump's flight, a fall): it comes down on the level as it
        // is now.
        if (self.airborne || self.jump.is_some()) && def.legs.len() == self.legs.len() {
            return self.clone();
        }
        let mut l = Locomotor::spawn(def, self.position, self.yaw, ground);
        l.velocity = horizontal(self.velocity);
        l.intent = self.intent;
        l.follow = self.follow.clone();
        l.lean = self.lean.clone();
        l.push = self.push;
        l
    }

    /// Rotation without the lean: tilt from the feet, then yaw.
    pub fn base_rotation(&self) -> Quat {
        match &self.climb {
            Some(c) if !self.airborne => c.frame,
            _ => Quat::from_rotation_arc(Vec3::Y, self.up) * yaw_rotation(self.yaw),
        }
    }

    /// Whether the body stands on a surface its own up follows (a climbing type, not
    /// falling).
    pub fn is_climbing(&self) -> bool {
        self.climb.is_some() && !self.airborne
    }

    /// A climber lets go of its surface (`c:let_go()`): it falls under world gravity and
    /// lands as a walker does. False for a walker, or one already falling.
    pub fn let_go(&mut self) -> bool {
        if !self.is_climbing() {
            return false;
        }
        self.let_go_now();
        true
    }

    /// Body rotation as drawn: tilt from the feet, yaw, then the lean (`world_from_body`).
    pub fn rotation(&self) -> Quat {
        self.base_rotation() * self.lean.rotation()
    }

    /// Body centre as drawn: `position` lowered by the lean's sink, raised by its breath.
    pub fn body_position(&self) -> Vec3 {
        match &self.climb {
            Some(c) if !self.airborne => self.position - c.up() * (self.sink - self.breath),
            _ => self.position - Vec3::Y * (self.sink - self.breath),
        }
    }

    /// Sets the breath's rise for phase `phase` (turns) of `breathe`, `dt` after the last:
    /// its depth at rest, fading out by a walking pace (0.4 m/s) and in the air — the fade
    /// eased over [`BREATH_TAU`], so the body never jolts as it stops, lands or spawns.
    pub fn breathe(
        &mut self,
        breathe: Option<&crate::locomotion::def::BreatheDef>,
        phase: f64,
        dt: f32,
    ) {
        let Some(b) = breathe else {
            self.breath = 0.0;
            self.breath_weight = 0.0;
            return;
        };
        let rest = if self.airborne {
            0.0
        } else {
            let r = (1.0 - self.speed() / 0.4).clamp(0.0, 1.0);
            r * r * (3.0 - 2.0 * r)
        };
        let k = if dt > 0.0 {
            1.0 - (-dt / BREATH_TAU).exp()
        } else {
            0.0
        };
        self.breath_weight += (rest - self.breath_weight) * k;
        let s = (phase.fract() * std::f64::consts::TAU).sin() as f32;
        self.breath = b.depth * 0.5 * s * self.breath_weight;
    }

    /// A hit: the lean kicks away from the blow and the body is pushed along it.
    pub fn hit(&mut self, lean: &LeanDef, dir: Vec3, strength: f32) {
        let push = self.lean.hit(lean, self.yaw, dir, strength);
        // The body's velocity gains the push at once (steering then sees its own velocity
        // unchanged: velocity − push).
        self.push += push;
        self.velocity += push;
    }

    /// Horizontal speed, m/s.
    pub fn speed(&self) -> f32 {
        horizontal(self.velocity).length()
    }

    /// Advances one tick of `dt` seconds; landed steps are pushed onto `scratch.events`.
    /// A type with gait styles steps with the instance's `gait` blended into the style its
    /// speed wants.
    pub fn update<G: GroundQuery + ?Sized>(
        &mut self,
        def: &ValidCreatureDef,
        gait: &GaitParams,
        lean: &LeanDef,
        ground: &G,
        dt: f32,
        scratch: &mut Scratch,
    ) {
        if def.styles.is_empty() {
            self.tick(def, gait, lean, ground, dt, scratch);
        } else {
            let styled = self.restyle(def, gait, dt);
            self.tick(def, &styled, lean, ground, dt, scratch);
            self.restore(styled);
        }
    }

    fn tick<G: GroundQuery + ?Sized>(
        &mut self,
        def: &ValidCreatureDef,
        gait: &GaitParams,
        lean: &LeanDef,
        ground: &G,
        dt: f32,
        scratch: &mut Scratch,
    ) {
        if !(dt > 0.0) {
            return;
        }
        self.floor = None;
        let mut path_end = false;
        // Which feet stand now (a lift is one that stood and does not after the tick).
        let stood: u64 = self
            .legs
            .iter()
            .enumerate()
            .take(64)
            .fold(0, |m, (i, st)| m | (u64::from(st.grounded) << i));
        // Where they stand: a lift's place (a jump's or a let-go's too, whose swings do not
        // start from there).
        scratch.stood_at.clear();
        scratch.stood_at.extend(self.legs.iter().map(|st| st.foot));
        let y_before = self.position.y - self.sink_change;
        let yaw = yaw_rotation(self.yaw);
        let climbing = match (def.climb.as_ref(), self.is_climbing()) {
            (Some(cd), true) => Some(cd),
            _ => None,
        };
        for r in &mut self.arm_reach {
            r.ease(dt);
        }
        let rot = if self.jump.is_some() && climbing.is_none() {
            self.jump_tick(def, gait, ground, dt, scratch)
        } else if let Some(cd) = climbing {
            self.climb_tick(def, cd, gait, ground, dt, scratch)
        } else if self.airborne {
            let rot = self.fall(def, dt, yaw, ground);
            if let Some(cd) = def.climb.as_ref() {
                self.climber_in_the_air(cd, dt);
            }
            rot
        } else {
            path_end = self.steer(def, dt);
            let yaw = self.step_feet(def, gait, ground, dt, scratch);
            self.check_airborne(def, ground);
            self.fit_body(def, dt, yaw, ground, scratch)
        };
        let on_surface = self.climb.filter(|_| climbing.is_some() && !self.airborne);
        if on_surface.is_none() {
            self.velocity.y = (self.position.y - y_before) / dt;
        }
        self.update_lean(lean, on_surface.as_ref(), dt);
        let (posed, sink) = if self.airborne {
            // In the air nothing stands on the feet: the sink holds, the fall stays a fall.
            (rot * self.lean.rotation(), self.sink)
        } else if self.lean.is_leaning() {
            let posed = rot * self.lean.rotation();
            let up = on_surface.map_or(Vec3::Y, |c| c.up());
            (posed, Self::sink_for(def, rot, posed, up))
        } else {
            (rot, 0.0)
        };
        // The drawn body stays where its spring put it: the new sink moves the un-leaned
        // reference (`position`), and the spring takes the change up from the next tick.
        self.sink_change = sink - self.sink;
        match &on_surface {
            Some(c) => self.position += c.up() * self.sink_change,
            None => self.position.y += self.sink_change,
        }
        self.sink = sink;
        scratch.path_end = path_end;
        for (i, st) in self.legs.iter().enumerate().take(64) {
            if stood & (1 << i) != 0 && !st.grounded {
                scratch.events.push(StepEvent {
                    leg: i,
                    position: scratch.stood_at[i],
                    speed: 0.0,
                    lift: true,
                });
            }
        }
        let head_alpha = scratch.alphas(dt)[1];
        self.aim_head(def, head_alpha, dt);
        self.solve_ik(def, self.body_position(), posed, scratch);
    }

    /// The lean's tick from the body's motion (a climber's read in the level frame its
    /// surface was turned from, `on_surface`).
    fn update_lean(&mut self, lean: &LeanDef, on_surface: Option<&Climb>, dt: f32) {
        let (velocity, ground_up) = match on_surface {
            Some(c) => (c.align.inverse() * self.velocity, Vec3::Y),
            None => (self.velocity, self.up),
        };
        self.lean.update(
            lean,
            LeanInput {
                yaw: self.yaw,
                velocity,
                ground_up,
                dt,
                strafe: self.strafing,
            },
        );
    }

    /// The stepper's part of a walker's tick, after steering: every leg's target cast,
    /// steps scheduled and swung, the feet that landed settled. Returns the heading's
    /// rotation.
    fn step_feet<G: GroundQuery + ?Sized>(
        &mut self,
        def: &ValidCreatureDef,
        gait: &GaitParams,
        ground: &G,
        dt: f32,
        scratch: &mut Scratch,
    ) -> Quat {
        let duration = gait.duration_at(self.speed());
        let yaw = yaw_rotation(self.yaw);
        self.place_targets(def, gait, duration, yaw, ground);
        self.schedule(def, gait, duration, scratch);
        let landed_from = scratch.events.len();
        self.swing(gait, dt, &mut scratch.events);
        self.settle_landings(def, ground, &mut scratch.events[landed_from..]);
        yaw
    }

    /// Starts the steps the gait scheduler picks.
    fn schedule(
        &mut self,
        def: &ValidCreatureDef,
        gait: &GaitParams,
        duration: f32,
        scratch: &mut Scratch,
    ) {
        let inv_trigger = 1.0 / gait.step_trigger;
        if self.legs.iter().all(|l| l.grounded) {
            self.phase_stepped = 0;
        }
        scratch.views.clear();
        let mut wants = false;
        for (i, st) in self.legs.iter().enumerate() {
            let urgency = st.foot.distance(st.target) * inv_trigger;
            wants |= st.grounded && urgency >= URGENT_DRIFT.min(1.0);
            let emergency = if st.grounded {
                urgency >= URGENT_DRIFT && st.reach > REACH_URGENT
            } else {
                st.rescue
            };
            let blocked = i < 64 && self.phase_stepped & (1 << i) != 0;
            scratch.views.push(LegView {
                grounded: st.grounded,
                urgency,
                group: self.group_of(def, i),
                blocked,
                emergency,
            });
        }
        scratch.steps.clear();
        if !wants {
            return;
        }
        choose_steps(
            &scratch.views,
            gait.min_grounded,
            self.last_group,
            self.group_order(def),
            &mut scratch.steps,
        );
        if !def.styles.is_empty() {
            self.keep_groups_together(gait, scratch);
        }
        for &i in &scratch.steps {
            let st = &mut self.legs[i];
            st.grounded = false;
            st.swing_from = st.foot;
            st.swing_t = 0.0;
            st.swing_duration = duration;
            if i < 64 {
                self.phase_stepped |= 1 << i;
            }
            st.rescue = scratch.views[i].emergency;
            if !st.rescue {
                self.last_group = Some(self.group_of(def, i));
            }
        }
    }

    /// Moves swinging feet along the step arc toward their (tracked) targets; lands them.
    fn swing(&mut self, gait: &GaitParams, dt: f32, events: &mut Vec<StepEvent>) {
        for (i, st) in self.legs.iter_mut().enumerate() {
            if st.grounded {
                continue;
            }
            st.swing_t += dt / st.swing_duration;
            let p = st.swing_t.min(1.0);
            let end = st.target;
            if p >= 1.0 && !st.target_hit {
                // No ground to stand on there (a hole, past a rim): the foot hangs at its
                // target and swings on from there when a foothold turns up.
                st.foot = end;
                st.swing_from = end;
                st.swing_t = 0.0;
                continue;
            }
            if p >= 1.0 {
                let speed = end.distance(st.foot) / dt;
                st.foot = end;
                st.grounded = true;
                events.push(StepEvent {
                    leg: i,
                    position: end,
                    speed,
                    lift: false,
                });
                continue;
            }
            st.foot = puppet::swing_point(st.swing_from, end, p, gait.step_height, &gait.step_arc);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::locomotion::def::tests::spider;
    use crate::locomotion::ground::FlatGround;

    /// One 60 Hz update on flat ground at 0, with the type's own gait and lean.
    fn tick(loco: &mut Locomotor, def: &ValidCreatureDef, scratch: &mut Scratch) {
        loco.update(
            def,
            &def.gait,
            &def.lean,
            &FlatGround(0.0),
            1.0 / 60.0,
            scratch,
        );
    }

    #[test]
    fn walks_on_flat_ground_without_sliding_or_losing_support() {
        let def = spider().validate().expect("valid");
        let ground = FlatGround(0.0);
        let mut loco = Locomotor::spawn(&def, Vec3::ZERO, 0.0, &ground);
        assert!((loco.position.y - 0.35).abs() < 1e-4);
        loco.intent = Intent::Move {
            dir: Vec3::Z,
            speed: 1.0,
            drop: false,
        };
        let mut scratch = Scratch::default();
        let mut prev: Vec<(bool, Vec3)> = loco.legs.iter().map(|l| (l.grounded, l.foot)).collect();
        for _ in 0..600 {
            tick(&mut loco, &def, &mut scratch);
            let grounded = loco.legs.iter().filter(|l| l.grounded).count();
            assert!(grounded >= def.gait.min_grounded);
            for (l, (was, p)) in loco.legs.iter().zip(prev.iter()) {
                if *was && l.grounded {
                    assert_eq!(l.foot, *p, "a planted foot moved");
                }
                assert!(l.reach <= 1.0, "overreach {}", l.reach);
            }
            prev = loco.legs.iter().map(|l| (l.grounded, l.foot)).collect();
        }
        assert!(loco.position.z > 8.0, "progress {}", loco.position.z);
        assert!(scratch.events.len() > 40, "steps {}", scratch.events.len());
    }

    #[test]
    fn a_step_follows_the_arc_and_lands_on_its_target() {
        let mut def = spider().validate().expect("valid");
        def.gait.step_height = 0.15;
        let ground = FlatGround(0.0);
        let mut loco = Locomotor::spawn(&def, Vec3::ZERO, 0.0, &ground);
        loco.intent = Intent::Move {
            dir: Vec3::Z,
            speed: 0.8,
            drop: false,
        };
        let mut scratch = Scratch::default();
        // Follow leg 0 through its first complete step.
        let mut path: Vec<(Vec3, Vec3)> = Vec::new();
        let mut lifted = false;
        for _ in 0..300 {
            tick(&mut loco, &def, &mut scratch);
            let l = &loco.legs[0];
            if !l.grounded {
                lifted = true;
                path.push((l.foot, l.target));
            } else if lifted {
                path.push((l.foot, l.target));
                break;
            }
        }
        assert!(
            path.len() >= 6,
            "a step lasts several ticks: {}",
            path.len()
        );
        let (landed, target) = *path.last().expect("landed");
        assert_eq!(landed, target, "lands exactly on its target");
        let peak = path.iter().map(|(p, _)| p.y).fold(f32::MIN, f32::max);
        assert!(
            (peak - 0.15).abs() < 0.02,
            "peak lift {peak} for step_height 0.15"
        );
        // Forward progress is monotone along the arc.
        assert!(
            path.windows(2).all(|w| w[1].0.z >= w[0].0.z - 1e-5),
            "foot went backwards"
        );
        // A flatter arc (constant 0) keeps the foot on the ground plane.
        let mut flat = def.clone();
        flat.gait.step_arc = crate::math::Curve::Constant(0.0);
        let mut loco = Locomotor::spawn(&flat, Vec3::ZERO, 0.0, &ground);
        loco.intent = Intent::Move {
            dir: Vec3::Z,
            speed: 0.8,
            drop: false,
        };
        for _ in 0..120 {
            tick(&mut loco, &flat, &mut scratch);
            assert!(loco.legs.iter().all(|l| l.foot.y.abs() < 1e-5));
        }
    }

    #[test]
    fn a_breath_is_full_at_rest_and_gone_at_a_walk_and_in_the_air() {
        let def = spider().validate().expect("valid");
        let mut loco = Locomotor::spawn(&def, Vec3::ZERO, 0.0, &FlatGround(0.0));
        let b = crate::locomotion::BreatheDef {
            rate: 0.5,
            depth: 0.04,
        };
        let at = loco.body_position();
        // Fades in over a few BREATH_TAU, never jumping: no tick moves it more than the
        // breath's own sine would plus the fade's share.
        let mut last = 0.0f32;
        for _ in 0..300 {
            loco.breathe(Some(&b), 0.25, 1.0 / 60.0);
            assert!((loco.breath - last).abs() < 0.02 / 60.0 * 2.0, "a jump");
            last = loco.breath;
        }
        assert!((loco.breath - 0.02).abs() < 1e-4, "{}", loco.breath);
        assert!((loco.body_position().y - at.y - loco.breath).abs() < 1e-6);
        // Walking, then in the air: it fades out.
        loco.velocity = Vec3::new(0.0, 0.0, 0.5);
        for _ in 0..300 {
            loco.breathe(Some(&b), 0.25, 1.0 / 60.0);
        }
        assert!(loco.breath.abs() < 1e-4, "{}", loco.breath);
        loco.velocity = Vec3::ZERO;
        loco.airborne = true;
        for _ in 0..300 {
            loco.breathe(Some(&b), 0.25, 1.0 / 60.0);
        }
        assert!(loco.breath.abs() < 1e-4, "{}", loco.breath);
    }

    #[test]
    fn the_head_looks_where_the_body_turns_and_the_lean_keeps_the_feet() {
        let mut def = spider().validate().expect("valid");
        def.body.head = Some(crate::locomotion::HeadDef {
            offset: Vec3::new(0.0, 0.0, 0.4),
            size: Vec3::splat(0.15),
            counter_yaw: 1.0,
            look: Default::default(),
        });
        let ground = FlatGround(0.0);
        let mut loco = Locomotor::spawn(&def, Vec3::ZERO, 0.0, &ground);
        // Asked to face behind: while the body turns, the head leads it toward the goal.
        loco.intent = Intent::Face { dir: Vec3::NEG_X };
        let mut scratch = Scratch::default();
        let mut led = false;
        for _ in 0..20 {
            tick(&mut loco, &def, &mut scratch);
            led |= loco.head_yaw < -0.3;
        }
        assert!(led, "the head never led the turn: {}", loco.head_yaw);
        for _ in 0..120 {
            tick(&mut loco, &def, &mut scratch);
        }
        assert!(loco.head_yaw.abs() < 0.05, "settled: {}", loco.head_yaw);
        // With counter_yaw 1 the head stays level however the body leans.
        loco.lean.roll = 12.0;
        loco.lean.pitch = -6.0;
        let up = loco.head_rotation(1.0) * Vec3::Y;
        assert!(up.distance(loco.up) < 1e-4, "head up {up}");
        assert!((loco.rotation() * Vec3::Y).distance(loco.up) > 0.1);
        // A hard hit leans the body but planted feet stay where they are.
        let mut loco = Locomotor::spawn(&def, Vec3::ZERO, 0.0, &ground);
        let feet: Vec<Vec3> = loco.legs.iter().map(|l| l.foot).collect();
        loco.hit(&def.lean, Vec3::X, 1.5);
        let mut worst_reach = 0.0f32;
        let mut max_roll = 0.0f32;
        for _ in 0..6 {
            tick(&mut loco, &def, &mut scratch);
            max_roll = max_roll.max(loco.lean.roll.abs());
            for (l, f) in loco.legs.iter().zip(&feet) {
                if l.grounded {
                    assert_eq!(l.foot, *f, "a planted foot moved under the lean");
                }
                worst_reach = worst_reach.max(l.reach);
            }
        }
        assert!(max_roll > 10.0, "leaned {max_roll}");
        assert!(worst_reach <= 1.0, "overreach {worst_reach}");
        assert!(loco.sink > 0.0, "the body sank into the lean");
    }

    #[test]
    fn turning_in_place_steps() {
        let def = spider().validate().expect("valid");
        let ground = FlatGround(0.0);
        let mut loco = Locomotor::spawn(&def, Vec3::ZERO, 0.0, &ground);
        loco.intent = Intent::Face { dir: Vec3::NEG_Z };
        let mut scratch = Scratch::default();
        for _ in 0..120 {
            tick(&mut loco, &def, &mut scratch);
        }
        assert!((crate::math::frame::wrap_angle(loco.yaw - std::f32::consts::PI)).abs() < 1e-3);
        assert!(
            scratch.events.len() >= 8,
            "turning in place must trigger steps: {}",
            scratch.events.len()
        );
        assert!(horizontal(loco.position).length() < 1e-3);
    }
}
