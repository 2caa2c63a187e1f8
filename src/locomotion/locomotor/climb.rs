//! Climbing (`climb = { ... }` in a type's definition): locomotion on surfaces of any
//! orientation. The body carries its own frame: its up turns toward the surfaces under and
//! ahead of it (the nearest surface's direction, which swings smoothly round a convex edge,
//! fused with the planted feet's plane, and a probe along the motion that sees a concave
//! corner coming) by a dt-correct, rate-limited spring. Every foothold is cast along the
//! body's down, with a look back toward the belly (the far side of a convex edge) and casts
//! on the way in toward the body as fallbacks; steps arc along the body's up; planted feet
//! stay locked wherever they stand. A script's horizontal directions are carried onto the surface by the
//! turns the body's up has taken (`Climb::align`): walking on into a wall goes up it, on
//! over the top and down the far side.

use glam::{Mat3, Quat, Vec3};

use super::{Intent, Locomotor, Scratch, StepEvent, BODY_ACCEL_MAX, CAST_ABOVE_BODY, HEIGHT_TAU};
use crate::locomotion::def::{ClimbDef, ValidCreatureDef};
use crate::locomotion::gait::GaitParams;
use crate::locomotion::ground::{GroundHit, GroundQuery};
use crate::locomotion::posture::fit_plane;
use crate::math::frame::{smoothing_alpha, yaw_of, yaw_rotation};

/// A foothold's face must turn toward the body at least this much (the cosine of the angle
/// between its normal and the body's up): a foot may grip round an edge onto a face square
/// to the one the body is on (a block's flank beside it, the far face ahead), not further.
const MIN_FACING: f32 = -0.1;
/// A foothold no further from its hip than this share of the leg's length.
const FOOT_REACH: f32 = 0.97;
/// The corner probe's weight at its farthest: the body's up turns at most this share of
/// the way toward a wall it sees ahead before it stands on it.
const CORNER_SHARE: f32 = 0.5;
/// The planted feet's plane counts this much against the nearest surface's direction.
const FEET_WEIGHT: f32 = 0.5;
/// A body told to move and standing still this long (s) steps its most stretched foot in.
const HELD_FOR: f32 = 0.4;
/// Where the body's up is below this (its `y`, toward a ceiling), level directions keep the
/// turns that brought it there (`Climb::align`); above, they ease to the least turn from level.
const ALIGN_FREE_BELOW: f32 = -0.5;
/// Time constant (s) of that easing.
const ALIGN_TAU: f32 = 0.3;
/// Where on the way from a rest spot in to the point under the body the inward fallback
/// casts look for a foothold.
const INWARD: [f32; 2] = [0.5, 1.0];
/// On a surface steeper than 45°, fewer feet planted than this is losing its hold...
const MIN_HOLD: usize = 2;
/// ...and losing it this long (s) lets go.
const LOOSE_FOR: f32 = 0.3;
/// A body further than this (m) past its ride height from the nearest surface is held up
/// by its feet alone, whatever that surface's slope (see [`MIN_HOLD`]).
const HANG_MARGIN: f32 = 0.15;
/// A foot a blow swept off its hold flails back to one over this long (s): longer than
/// [`LOOSE_FOR`], so a climber left with too few holds lets go first.
const SWEPT_SWING: f32 = 0.45;
/// A planted foot with no surface of the level within this (m) has lost its hold (the
/// level changed under it): it swings to a new one.
const HOLD_GONE: f32 = 0.02;
/// ...over this long (s).
const LOST_SWING: f32 = 0.25;

/// How far (degrees) past the boundary between two kinds of surface a body's up must turn
/// before it is on the other kind.
pub(crate) const SURFACE_MARGIN: f32 = 5.0;

/// A kind of surface, by the angle of its normal from the world's up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Surface {
    /// Within 45° of level (a floor, a slope, a box top).
    #[default]
    Floor,
    /// Between 45° and 135°.
    Wall,
    /// Past 135° (the underside of a slab).
    Ceiling,
}

impl Surface {
    /// The kind of a surface whose (unit) normal is `normal`.
    pub fn of(normal: Vec3) -> Surface {
        let cos = normal.y;
        if cos >= std::f32::consts::FRAC_1_SQRT_2 {
            Surface::Floor
        } else if cos > -std::f32::consts::FRAC_1_SQRT_2 {
            Surface::Wall
        } else {
            Surface::Ceiling
        }
    }

    /// The kind of surface under a body whose up is `normal` and which stood on `was`: a new
    /// kind once `normal` is [`SURFACE_MARGIN`] past the boundary, so a body turning about a
    /// boundary does not flicker between two.
    pub fn of_beyond(normal: Vec3, was: Surface) -> Surface {
        // The boundaries (45° and 135° from level) moved the margin away from `was`.
        let m = SURFACE_MARGIN;
        let (wall_past, ceiling_from) = match was {
            Surface::Floor => (45.0 + m, 135.0 + m),
            Surface::Wall => (45.0 - m, 135.0 + m),
            Surface::Ceiling => (45.0 - m, 135.0 - m),
        };
        let angle = normal.y.clamp(-1.0, 1.0).acos().to_degrees();
        if angle <= wall_past {
            Surface::Floor
        } else if angle < ceiling_from {
            Surface::Wall
        } else {
            Surface::Ceiling
        }
    }

    /// Its name for scripts and traces: "floor", "wall" or "ceiling".
    pub fn name(self) -> &'static str {
        match self {
            Surface::Floor => "floor",
            Surface::Wall => "wall",
            Surface::Ceiling => "ceiling",
        }
    }
}

/// A crease between two faces a climber is crossing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Crease {
    /// The faces meet in a valley: floor to wall, wall to ceiling.
    Concave,
    /// The faces meet in a ridge: over a top's edge, round a table's edge.
    Convex,
}

impl Crease {
    /// Its name for traces: "concave" or "convex".
    pub fn name(self) -> &'static str {
        match self {
            Crease::Concave => "concave",
            Crease::Convex => "convex",
        }
    }
}

/// Faces meeting at more than this angle (its cosine; 20°) make a crease.
const CREASE_COS: f32 = 0.94;

/// A climber's surface frame (plain data, in the locomotor).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Climb {
    /// `world_from_body` without the lean: the body's up is `frame·Y`, its heading `frame·Z`.
    pub frame: Quat,
    /// The least turns the body's up has taken since it stood level, composed: a script's
    /// horizontal direction `d` means `align·d` on the surface the body is on.
    pub align: Quat,
    /// The kind of surface the body stands on.
    pub surface: Surface,
    /// The surface changed kind this tick (`on_surface` fires).
    pub changed: bool,
    /// Seconds it has held a steep surface with fewer than [`MIN_HOLD`] feet planted.
    pub loose: f32,
    /// Seconds it has stood still while told to move (held back by a stretched foot).
    pub held: f32,
    /// The crease it is crossing, if any.
    pub crease: Option<Crease>,
}

impl Climb {
    /// Standing level, heading `yaw`.
    pub fn upright(yaw: f32) -> Climb {
        Climb {
            frame: yaw_rotation(yaw),
            align: Quat::IDENTITY,
            surface: Surface::Floor,
            changed: false,
            loose: 0.0,
            held: 0.0,
            crease: None,
        }
    }

    /// The body's up.
    pub fn up(&self) -> Vec3 {
        self.frame * Vec3::Y
    }

    /// Turns the body's up by `q` (a turn about an axis across it): the frame and what
    /// horizontal directions mean turn together.
    fn tilt(&mut self, q: Quat) {
        self.frame = (q * self.frame).normalize();
        self.align = (q * self.align).normalize();
    }
}

/// `v` without its part along `n` (unit).
fn tangent(v: Vec3, n: Vec3) -> Vec3 {
    v - n * v.dot(n)
}

/// The direction from a surface point `hit` to `p` (the way out of the surface), or the
/// hit's own normal when `p` is on it.
fn away_from(p: Vec3, hit: &GroundHit) -> Vec3 {
    let d = p - hit.point;
    let len = d.length();
    if len > 1e-4 {
        let n = d / len;
        // A point inside a solid: the surface's normal, not the way further in.
        if n.dot(hit.normal) < 0.0 {
            hit.normal
        } else {
            n
        }
    } else {
        hit.normal
    }
}

/// Turns unit vector `from` toward unit vector `to` by `angle` radians at most (past a
/// half turn, about `fallback`): the least turn.
fn turn_toward(from: Vec3, to: Vec3, angle: f32, fallback: Vec3) -> Quat {
    let cos = from.dot(to).clamp(-1.0, 1.0);
    let full = cos.acos();
    if full < 1e-6 {
        return Quat::IDENTITY;
    }
    let axis = from.cross(to);
    let axis = if axis.length_squared() > 1e-12 {
        axis.normalize()
    } else {
        fallback
    };
    Quat::from_axis_angle(axis, full.min(angle))
}

impl Locomotor {
    /// The climber's tick on its surface (not falling): steer along the surface, sense it,
    /// turn the body's up, keep the ride height from the nearest surface, place, schedule
    /// and swing the feet. Returns the body's rotation without the lean.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn climb_tick<G: GroundQuery + ?Sized>(
        &mut self,
        def: &ValidCreatureDef,
        cd: &ClimbDef,
        gait: &GaitParams,
        ground: &G,
        dt: f32,
        scratch: &mut Scratch,
    ) -> Quat {
        let Some(mut c) = self.climb else {
            return self.base_rotation();
        };
        c.changed = false;
        let before = self.position;
        let up = c.up();
        // 1. Steer in the surface's plane (losing its hold, it goes nowhere: see 6).
        let mut v = self.climb_steer(def, &mut c, dt);
        if c.loose > 0.0 {
            v = Vec3::ZERO;
        }
        self.position += v * dt;
        // 2. Sense: the nearest surface (its direction from the body), the planted feet's
        // plane, and a probe along the heading for a wall or a ceiling ahead.
        let leg_len = def.legs.iter().map(|l| l.length).fold(0.0f32, f32::max);
        let height = def.body.height;
        let reach = height + leg_len.max(height);
        let near = ground.nearest(self.position, reach);
        let Some(near) = near else {
            // Nothing to hold on to: the climber lets go and falls under world gravity.
            self.let_go_now();
            return self.base_rotation();
        };
        let n_near = away_from(self.position, &near);
        let mut goal = n_near;
        let n_feet = self.feet_normal(&c);
        if let Some(n) = n_feet {
            goal = (goal + n * FEET_WEIGHT).normalize_or(goal);
        }
        // The face met next: a wall or a ceiling the probe ahead finds, else the nearest
        // surface's way out (round a convex edge it swings past the feet's face).
        let mut met = n_near;
        let speed = v.length();
        let look = def.body.size.z * 0.5 + 0.6 * leg_len;
        // Along the heading (steadier than the velocity, which a stretched foot can hold
        // back or turn), while moving on.
        let fwd = c.frame * Vec3::Z;
        if speed > 0.02 && v.dot(fwd) > 0.0 && look > height {
            let dir = fwd;
            if let Some(hit) = ground.cast(self.position, dir, look) {
                let steep = hit.normal.dot(goal) < 0.9;
                if steep {
                    met = hit.normal;
                }
                if steep && Self::climbable(cd, hit.normal) {
                    let t = (hit.point - self.position).length();
                    let w = (1.0 - (t - height) / (look - height)).clamp(0.0, 1.0);
                    goal = goal.slerp(hit.normal, CORNER_SHARE * w).normalize_or(goal);
                } else if steep {
                    // Too steep for this climber (`climb.max_angle`): a wall, held short of.
                    let t = (hit.point - self.position).length();
                    if t < height + 0.5 * leg_len {
                        let into = dir.dot(-hit.normal).max(0.0);
                        self.position -= v * dt * into;
                    }
                }
            }
        }
        if !Self::climbable(cd, goal) {
            // Past the steepest surface it may stand on: its up stays at that angle.
            let level = Vec3::new(goal.x, 0.0, goal.z).normalize_or(Vec3::X);
            let a = cd.max_angle.to_radians();
            goal = Vec3::Y * a.cos() + level * a.sin();
        }
        // The crease between the face the feet stand on and the face met, by the angle
        // between them: a face met that turns back toward the body's motion is a concave
        // one (floor to wall, wall to ceiling), one that turns with it a convex one (a top's
        // edge, a table's edge).
        let from = n_feet.unwrap_or(up);
        c.crease = (from.dot(met) < CREASE_COS).then(|| {
            if met.dot(fwd) < 0.0 {
                Crease::Concave
            } else {
                Crease::Convex
            }
        });
        // 3. Turn the body's up toward the goal: an exact exponential approach (the same
        // curve at any tick rate), never faster than `climb.turn_rate`.
        let ang = up.dot(goal).clamp(-1.0, 1.0).acos();
        let step = (ang * smoothing_alpha(dt, cd.smoothing)).min(cd.turn_rate.to_radians() * dt);
        c.tilt(turn_toward(up, goal, step, c.frame * Vec3::X));
        let up = c.up();
        // Off ceilings, what level directions mean eases to the least turn from level to the
        // body's up: least turns composed over several faces (up one wall, down another)
        // would otherwise leave a twist that turns every direction on the floor again.
        if up.y > ALIGN_FREE_BELOW {
            let natural = Quat::from_rotation_arc(Vec3::Y, up);
            c.align = c
                .align
                .slerp(natural, smoothing_alpha(dt, ALIGN_TAU))
                .normalize();
        }
        let kind = Surface::of_beyond(up, c.surface);
        if kind != c.surface {
            c.surface = kind;
            c.changed = true;
        }
        // 4. The ride height from the nearest surface: a critically damped spring along the
        // way out of it, with bounded acceleration; never nearer than half of it. Losing
        // its hold (see 6), nothing carries the body toward a surface: it hangs where its
        // last holds left it until they catch again or it lets go.
        let clearance = (self.position - near.point).dot(n_near);
        let w = 1.0 / HEIGHT_TAU;
        let error = height - clearance;
        let a = (w * w * error - 2.0 * w * self.rise).clamp(-BODY_ACCEL_MAX, BODY_ACCEL_MAX);
        self.rise = if c.loose > 0.0 {
            0.0
        } else {
            self.rise + a * dt
        };
        self.position += n_near * (self.rise * dt);
        let min = 0.5 * height;
        if clearance + self.rise * dt < min {
            self.position += n_near * (min - clearance - self.rise * dt);
            self.rise = self.rise.max(0.0);
        }
        self.velocity = (self.position - before) / dt;
        // 5. Feet: targets cast along the body's down, then scheduled and swung.
        let duration = gait.duration_at(speed);
        self.climb_targets(def, gait, duration, &c, ground);
        self.unstick(def, &mut c, speed, dt, ground);
        self.schedule(def, gait, duration, scratch);
        self.climb_swing(gait, up, dt, &mut scratch.events);
        // 6. Adhesion: on a steep surface, or held above one further than it rides (the
        // wall it stood on gone, a floor below), it holds on while enough feet are planted.
        let planted = self.legs.iter().filter(|l| l.grounded).count();
        let unsupported =
            up.y < std::f32::consts::FRAC_1_SQRT_2 || clearance > height + HANG_MARGIN;
        if unsupported && planted < MIN_HOLD.min(self.legs.len()) {
            c.loose += dt;
        } else {
            c.loose = 0.0;
        }
        if c.loose > LOOSE_FOR {
            self.climb = Some(c);
            self.let_go_now();
            return self.base_rotation();
        }
        // The aligned heading: what `yaw` means for a climber (the lean and the head read it).
        let fwd = c.align.inverse() * (c.frame * Vec3::Z);
        if let Some(y) = yaw_of(fwd) {
            self.yaw = y;
        }
        self.up = up;
        self.climb = Some(c);
        c.frame
    }

    /// A body told to move that has stood still for [`HELD_FOR`] (its most stretched planted
    /// foot holds it back, and that foot's spot has not moved on): that foot's spot becomes
    /// the surface under its hip (else under the body, else the surface nearest the hip), so
    /// it steps and the body goes on.
    fn unstick<G: GroundQuery + ?Sized>(
        &mut self,
        def: &ValidCreatureDef,
        c: &mut Climb,
        speed: f32,
        dt: f32,
        ground: &G,
    ) {
        let told = matches!(self.intent, Intent::Move { speed, .. } if speed > 0.1);
        c.held = if told && speed < 0.05 {
            c.held + dt
        } else {
            0.0
        };
        if c.held < HELD_FOR {
            return;
        }
        c.held = 0.0;
        let up = c.up();
        let worst = def
            .legs
            .iter()
            .zip(self.legs.iter_mut())
            .filter(|(_, st)| st.grounded)
            .max_by(|a, b| a.1.reach.total_cmp(&b.1.reach));
        if let Some((leg, st)) = worst {
            // Under its hip, else under the body (the surface the body stands on).
            let centre = self.position;
            let hit = [st.hip, centre]
                .iter()
                .find_map(|from| {
                    ground
                        .cast(
                            *from + up * CAST_ABOVE_BODY,
                            -up,
                            CAST_ABOVE_BODY + leg.length,
                        )
                        .filter(|h| h.normal.dot(up) >= MIN_FACING)
                })
                // Over a trench deeper than a leg: the surface nearest the hip (its rim).
                .or_else(|| ground.nearest(st.hip, leg.length));
            if let Some(h) = hit {
                st.target = h.point;
                st.target_hit = true;
                st.normal = h.normal;
                st.last_hit = Some(h.point);
            }
        }
    }

    /// Whether a surface whose normal is `n` is within the climber's `max_angle` of level.
    fn climbable(cd: &ClimbDef, n: Vec3) -> bool {
        n.y >= cd.max_angle.to_radians().cos() - 1e-4
    }

    /// Turns toward the intent's heading and accelerates along the surface; the body's
    /// velocity along it (held back by a stretched planted foot, like a walker's).
    fn climb_steer(&mut self, def: &ValidCreatureDef, c: &mut Climb, dt: f32) -> Vec3 {
        let up = c.up();
        let on_surface = |d: Vec3| tangent(c.align * d, up).normalize_or_zero();
        let (mut desired, heading) = match self.intent {
            Intent::Idle => (Vec3::ZERO, None),
            Intent::Move { dir, speed, .. } => {
                let d = on_surface(dir);
                (d * speed, (speed > 0.0 && d != Vec3::ZERO).then_some(d))
            }
            Intent::Face { dir } => (
                Vec3::ZERO,
                Some(on_surface(dir)).filter(|d| *d != Vec3::ZERO),
            ),
        };
        let (hold, away) = self.climb_stretch(up);
        if let Some(h) = heading {
            let fwd = c.frame * Vec3::Z;
            let angle = fwd.cross(h).dot(up).atan2(fwd.dot(h));
            let turn = def.nav.turn_rate.to_radians() * dt * hold.max(0.2);
            let q = Quat::from_axis_angle(up, angle.clamp(-turn, turn));
            c.frame = (q * c.frame).normalize();
            let left = angle - angle.clamp(-turn, turn);
            desired *= 0.35 + 0.65 * left.cos().max(0.0);
        }
        let own = tangent(self.velocity, up) - self.push;
        if self.push != Vec3::ZERO {
            self.push *= (-dt / super::PUSH_TAU).exp();
            if self.push.length_squared() < 1e-8 {
                self.push = Vec3::ZERO;
            }
        }
        let dv = (desired - own).clamp_length_max(def.nav.acceleration * dt);
        let mut v = own + dv + tangent(self.push, up);
        let pull = v.dot(away);
        if pull > 0.0 {
            v -= away * (pull * (1.0 - hold));
        }
        v
    }

    /// [`Locomotor::stretch_hold`] on a surface: how much motion the most stretched planted
    /// foot allows, and the direction along the surface from that foot to its hip.
    fn climb_stretch(&self, up: Vec3) -> (f32, Vec3) {
        let worst = self
            .legs
            .iter()
            .filter(|l| l.grounded)
            .max_by(|a, b| a.reach.total_cmp(&b.reach));
        match worst {
            Some(l) if l.reach > super::HOLD_FROM => {
                let t = ((l.reach - super::HOLD_FROM) / (super::HOLD_TO - super::HOLD_FROM))
                    .clamp(0.0, 1.0);
                let away = tangent(l.hip - l.foot, up).normalize_or_zero();
                (1.0 - t * t * (3.0 - 2.0 * t), away)
            }
            _ => (1.0, Vec3::ZERO),
        }
    }

    /// The normal of the plane through the planted feet (and the landing spots of swinging
    /// ones with somewhere to land), turned to the body's side; `None` under three points.
    fn feet_normal(&self, c: &Climb) -> Option<Vec3> {
        let to_body = c.frame.inverse();
        let mut pts = [Vec3::ZERO; 16];
        let mut n = 0;
        for st in &self.legs {
            let p = if st.grounded {
                st.foot
            } else if st.target_hit {
                st.target
            } else {
                continue;
            };
            if n < pts.len() {
                pts[n] = to_body * (p - self.position);
                n += 1;
            }
        }
        if n < 3 {
            return None;
        }
        let plane = fit_plane(&pts[..n], Vec3::ZERO)?;
        Some(c.frame * plane.normal)
    }

    /// Every leg's landing spot: its rest spot (moved ahead by the landing prediction) cast
    /// along the body's down; past a convex edge, a look from below it back toward the
    /// belly; then casts on the way in toward the body (at most three fallback casts). A foothold must face the body and lie within the
    /// leg's reach of its hip. A miss keeps the last good spot while in reach.
    fn climb_targets<G: GroundQuery + ?Sized>(
        &mut self,
        def: &ValidCreatureDef,
        gait: &GaitParams,
        duration: f32,
        c: &Climb,
        ground: &G,
    ) {
        let m = Mat3::from_quat(c.frame);
        let up = c.up();
        let lead = tangent(self.velocity, up) * (gait.lead * duration);
        let belly = self.position - up * (0.5 * def.body.height);
        for (leg, st) in def.legs.iter().zip(self.legs.iter_mut()) {
            let hip = self.position + m * leg.hip;
            let rest = self.position + m * leg.rest + lead;
            let ok = |h: &GroundHit| {
                h.normal.dot(up) >= MIN_FACING && h.point.distance(hip) <= FOOT_REACH * leg.length
            };
            let down = ground
                .cast(
                    rest + up * CAST_ABOVE_BODY,
                    -up,
                    CAST_ABOVE_BODY + leg.length,
                )
                .filter(ok);
            let found = down
                .or_else(|| {
                    let from = rest - up * (0.5 * leg.length);
                    let to = belly - from;
                    let len = to.length();
                    (len > 1e-3)
                        .then(|| ground.cast(from, to / len, len))
                        .flatten()
                        .filter(ok)
                })
                .or_else(|| {
                    // Beside an edge the rest spot lies past: a foothold on the way in
                    // toward the body (under it, the surface it stands on).
                    let under = self.position - up * def.body.height;
                    INWARD.iter().find_map(|t| {
                        let q = rest.lerp(under, *t);
                        ground
                            .cast(q + up * CAST_ABOVE_BODY, -up, CAST_ABOVE_BODY + leg.length)
                            .filter(ok)
                    })
                });
            // A planted foot stretched toward the end of its reach whose spot has not moved
            // on (the body held back by that very foot): a spot on the way in, so it steps.
            let found = match found {
                Some(h)
                    if st.grounded
                        && st.reach > super::HOLD_FROM
                        && h.point.distance(st.foot) < 0.5 * gait.step_trigger =>
                {
                    let under = self.position - up * def.body.height;
                    let q = rest.lerp(under, 0.5);
                    ground
                        .cast(q + up * CAST_ABOVE_BODY, -up, CAST_ABOVE_BODY + leg.length)
                        .filter(ok)
                        .or(Some(h))
                }
                other => other,
            };
            match found {
                Some(h) => {
                    st.target = h.point;
                    st.target_hit = true;
                    st.normal = h.normal;
                    st.last_hit = Some(h.point);
                }
                None => {
                    let keep = st
                        .last_hit
                        .filter(|p| p.distance(hip) <= FOOT_REACH * leg.length);
                    (st.target, st.target_hit) = match keep {
                        Some(p) => (p, true),
                        None if st.grounded => (st.foot, true),
                        None => (rest, false),
                    };
                }
            }
        }
    }

    /// Swings lifted feet toward their targets along an arc raised along the body's `up`;
    /// lands them on their targets.
    fn climb_swing(&mut self, gait: &GaitParams, up: Vec3, dt: f32, events: &mut Vec<StepEvent>) {
        for (i, st) in self.legs.iter_mut().enumerate() {
            if st.grounded {
                continue;
            }
            st.swing_t += dt / st.swing_duration.max(1e-3);
            let p = st.swing_t.min(1.0);
            let end = st.target;
            if p >= 1.0 {
                let speed = end.distance(st.foot) / dt;
                st.foot = end;
                st.swing_from = end;
                st.swing_t = 0.0;
                if st.target_hit {
                    st.grounded = true;
                    events.push(StepEvent {
                        leg: i,
                        position: end,
                        speed,
                        lift: false,
                    });
                }
                continue;
            }
            let s = p * p * (3.0 - 2.0 * p);
            let from = st.swing_from;
            let d = end - from;
            let rise = d.dot(up);
            let k = if rise > 0.0 {
                1.0 - (1.0 - p) * (1.0 - p)
            } else {
                p * p
            };
            let along = d - up * rise;
            st.foot = from + along * s + up * (rise * k + gait.step_height * gait.step_arc.eval(p));
        }
    }

    /// A climber's tick in the air (after [`Locomotor::fall`]): its up eases back to the
    /// world's at `climb.turn_rate`; once its feet have caught it, it climbs on from the
    /// ground it landed on.
    pub(super) fn climber_in_the_air(&mut self, cd: &ClimbDef, dt: f32) {
        let step = cd.turn_rate.to_radians() * dt;
        let q = turn_toward(self.up, Vec3::Y, step, Vec3::X);
        self.up = (q * self.up).normalize_or(Vec3::Y);
        if !self.airborne {
            let align = Quat::from_rotation_arc(Vec3::Y, self.up);
            self.climb = Some(Climb {
                frame: align * yaw_rotation(self.yaw),
                align,
                surface: Surface::of(self.up),
                changed: true,
                loose: 0.0,
                held: 0.0,
                crease: None,
            });
            self.landing = false;
        }
    }

    /// A blow along `dir` too weak to knock a climber off sweeps `share` (0..1, rounded
    /// up) of its feet, planted or stepping, those on the side it comes from first: they
    /// flail back to holds over [`SWEPT_SWING`], and a climber on a steep face left with
    /// too few holds lets go (see [`MIN_HOLD`]). Returns how many it swept.
    pub fn sweep_feet(&mut self, dir: Vec3, share: f32) -> usize {
        let mut side: Vec<(f32, usize)> = self
            .legs
            .iter()
            .enumerate()
            .map(|(i, st)| ((st.foot - self.position).dot(-dir), i))
            .collect();
        side.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let k = (side.len() as f32 * share.clamp(0.0, 1.0)).ceil() as usize;
        for &(_, i) in side.iter().take(k) {
            self.legs[i].lose_hold(SWEPT_SWING);
        }
        k
    }

    /// Planted feet whose surface is gone (a reload took the level from under them):
    /// they swing to new holds, and a climber on a steep face left with too few lets go.
    /// What the legs remember of holds gone goes too (the last good spot, the target, the
    /// extra queries' answers), so no foot steps back onto one in the air.
    pub(super) fn lose_lost_holds<G: GroundQuery + ?Sized>(&mut self, ground: &G) {
        let gone = |p: Vec3| ground.nearest(p, HOLD_GONE).is_none();
        for st in self.legs.iter_mut() {
            st.memo = None;
            if st.grounded && gone(st.foot) {
                st.lose_hold(LOST_SWING);
            }
            if st.last_hit.is_some_and(gone) {
                st.last_hit = None;
            }
            if st.target_hit && gone(st.target) {
                st.target_hit = false;
            }
        }
    }

    /// Lets go of the surface: the body falls under world gravity from where it is (the
    /// walker's fall and landing), and stands level again when it lands.
    pub(super) fn let_go_now(&mut self) {
        if let Some(c) = self.climb.as_mut() {
            self.up = c.up();
            let fwd = c.frame * Vec3::Z;
            let level = Vec3::new(fwd.x, 0.0, fwd.z);
            self.yaw = yaw_of(level).unwrap_or(self.yaw);
            // The fall turns the body's up back to level; landed, it climbs on from a new
            // frame (`climber_in_the_air`), and `on_surface` says where.
        }
        self.airborne = true;
        self.landing = false;
        self.rise = self.velocity.y;
        for st in self.legs.iter_mut() {
            st.grounded = false;
        }
    }
}
