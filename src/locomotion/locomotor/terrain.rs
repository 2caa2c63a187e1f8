//! Where a foot can stand and where the body may go: each leg's landing probe (a ray, a
//! sphere in cracks, a foot put on an edge's top), edges and walls it sees, the holds they
//! put on the body's motion, and walking off an edge (the fall and the landing).

use glam::{Quat, Vec3};

use super::{
    LegState, Locomotor, CAST_ABOVE_BODY, CAST_BELOW_REST, GRAVITY, HOLD_FROM, PLAN_REACH,
};
use crate::locomotion::def::ValidCreatureDef;
use crate::locomotion::gait::GaitParams;
use crate::locomotion::ground::{GroundHit, GroundQuery};
use crate::math::frame::{horizontal, yaw_rotation};

/// How far below the rest spot a ray hit counts as a crack worth a sphere sweep (m).
const CRACK_DEPTH: f32 = 0.5;
/// How far (m) a landing probe (and its hit) may move before the extra queries made for
/// it (a foothold search toward the body, a look from above) are made again.
const PROBE_REUSE: f32 = 0.02;
/// A stretched foot's spot nearer than this (m) to where it stands is where it stands.
const STAY: f32 = 0.05;
/// Passes over the legs that hold the body at an edge or a wall.
const HOLD_PASSES: usize = 4;
/// Radius of the crack sweep sphere (m).
const CRACK_SPHERE: f32 = 0.06;
/// How far past the edge a crack sweep rested on the foot is put (m).
const EDGE_INSET: f32 = 0.01;
/// A landed foot this far (m) onto the top whose lip it stood on (see `settle_landings`).
const SETTLE_INSET: f32 = 0.02;
/// A landed foot within this height (m) of the surface a short ray finds under it stands on
/// it (a slope of up to 26° gives less over [`SETTLE_INSET`]; a lip that could put a foot
/// further off the ground than this is a lip).
const SETTLE_TOLERANCE: f32 = 0.01;
/// How far above a landing probe that found nothing the second look starts, to tell a
/// wall (its top stands high) from a hole (m).
const WALL_LOOK: f32 = 5.0;
/// Landing: the feet reach for the ground this far below their hanging pose (m).
pub(super) const LAND_REACH: f32 = 0.2;
/// A body more than this above its ride height over the ground under it has left the
/// edge it walked off (on top of the drop the creature may step, `nav.step_height`).
const AIR_MARGIN: f32 = 0.15;

impl LegState {
    /// The answer of the extra query in `slot` for `probe` (whose own cast hit `hit`):
    /// remembered while it still answers, else `query` asked and remembered.
    fn remembered(
        &mut self,
        slot: fn(&mut LegMemo) -> &mut Option<CastMemo>,
        probe: Vec3,
        hit: Option<Vec3>,
        query: impl FnOnce() -> Option<Vec3>,
    ) -> Option<Vec3> {
        let entry = slot(self.memo.get_or_insert_default());
        if let Some(m) = entry.filter(|m| m.answers(probe, hit)) {
            return m.found;
        }
        let found = query();
        *entry = Some(CastMemo { probe, hit, found });
        found
    }
}

/// What a foot may stand on: a face whose normal is within the creature's slope limit
/// (`nav.max_slope`) of the body's up, met from above (every foothold cast is a ray down).
/// The steep end face of a tilted slab or the flank of a rock is ground a ray can hit but
/// no foothold: a foot put there would hang on the rim of an overhang.
#[derive(Clone, Copy, Debug)]
pub(super) struct Footing {
    /// The body's up.
    up: Vec3,
    /// The cosine of the slope limit.
    min_cos: f32,
}

impl Footing {
    /// Footing for `def` with its body's up `up`.
    pub(super) fn of(def: &ValidCreatureDef, up: Vec3) -> Footing {
        Footing {
            up: up.normalize_or(Vec3::Y),
            min_cos: def.nav.max_slope.to_radians().cos(),
        }
    }

    /// Whether the face `hit` can carry a foot.
    pub(super) fn carries(&self, hit: &GroundHit) -> bool {
        hit.normal.dot(self.up) >= self.min_cos - 1e-4
    }

    /// A ray down from `origin` (up to `max` m): the point hit when its face can carry a
    /// foot.
    pub(super) fn cast<G: GroundQuery + ?Sized>(
        &self,
        ground: &G,
        origin: Vec3,
        max: f32,
    ) -> Option<Vec3> {
        ground
            .cast_down_hit(origin, max)
            .filter(|h| self.carries(h))
            .map(|h| h.point)
    }
}

/// A landing probe's ground: a ray down from `origin`; where it fell into a crack (between
/// stair blocks, rocks: more than [`CRACK_DEPTH`] below the rest spot `rest`), a small
/// sphere rests on the edges instead.
fn cast_probe<G: GroundQuery + ?Sized>(
    ground: &G,
    footing: &Footing,
    origin: Vec3,
    rest: Vec3,
    max: f32,
) -> Option<GroundHit> {
    let p = ground.cast_down_hit(origin, max)?;
    if p.point.y >= rest.y - CRACK_DEPTH {
        return Some(p);
    }
    match ground
        .sweep_down(origin, CRACK_SPHERE, max)
        .and_then(|q| onto_edge(ground, footing, origin, q))
    {
        Some(q) if q.point.y > p.point.y => Some(q),
        _ => Some(p),
    }
}

/// The foot spot on the edge a crack sweep from `origin` rested on at `contact`: the
/// surface a centimetre past the edge (away from the sweep's axis), so the foot stands on
/// the block's top, not on the edge line a vertical ray could slip past. `None` when no
/// surface that can carry a foot lies there within 2 cm of the contact's height.
fn onto_edge<G: GroundQuery + ?Sized>(
    ground: &G,
    footing: &Footing,
    origin: Vec3,
    contact: Vec3,
) -> Option<GroundHit> {
    let away = horizontal(contact - origin).normalize_or_zero();
    let above = contact + away * EDGE_INSET + Vec3::Y * 0.05;
    ground
        .cast_down_hit(above, 0.1)
        .filter(|h| footing.carries(h) && (h.point.y - contact.y).abs() <= 0.02)
}

/// A foothold nearer `hip` than `point` (ground out of the leg's easy reach, `reach` m):
/// the ground on the way in from `point` toward the hip where a foot at `point`'s height
/// would be `reach` from it, cast down from height `top` (at most `max` m). `None` when
/// even straight below the hip is too far, or the ground there is no nearer.
fn reach_in<G: GroundQuery + ?Sized>(
    ground: &G,
    footing: &Footing,
    hip: Vec3,
    point: Vec3,
    (top, max): (f32, f32),
    reach: f32,
) -> Option<Vec3> {
    let dv = hip.y - point.y;
    let dir = horizontal(point - hip).normalize_or_zero();
    if dv >= reach || dir == Vec3::ZERO {
        return None;
    }
    let q = hip + dir * (reach * reach - dv * dv).sqrt();
    footing
        .cast(ground, Vec3::new(q.x, top, q.z), max)
        .filter(|p| p.distance(hip) < point.distance(hip))
}

/// An extra ground query made for a landing probe (a search toward the body, a look from
/// above), and what it found: reused while the probe and its own hit stay put.
#[derive(Clone, Copy, Debug, PartialEq)]
struct CastMemo {
    /// The probe it was made for.
    probe: Vec3,
    /// What the probe's own cast hit then.
    hit: Option<Vec3>,
    /// What it found.
    found: Option<Vec3>,
}

/// A leg's remembered extra queries.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct LegMemo {
    /// The last search for a foothold on the way back toward the body (a leg held against
    /// a wall would otherwise search every tick).
    inward: Option<CastMemo>,
    /// The last look from high above at a probe that found no ground (a wall or a hole?).
    above: Option<CastMemo>,
    /// The last foothold looked for nearer the hip, for a probe whose ground lay out of
    /// the leg's easy reach (see [`reach_in`]).
    reach_in: Option<CastMemo>,
}

impl CastMemo {
    /// Whether this query still answers for a probe at `probe` whose cast hit `hit`: both
    /// within [`PROBE_REUSE`] of the searched ones (the ground there has not changed).
    fn answers(&self, probe: Vec3, hit: Option<Vec3>) -> bool {
        let near = |a: Vec3, b: Vec3| a.distance_squared(b) < PROBE_REUSE * PROBE_REUSE;
        near(self.probe, probe)
            && match (self.hit, hit) {
                (None, None) => true,
                (Some(a), Some(b)) => near(a, b),
                _ => false,
            }
    }
}

impl Locomotor {
    /// `v` without the parts heading over an edge (with `edges`) or into a wall: for every
    /// leg whose landing probe found a drop deeper than `nav.step_height`, or ground that
    /// much higher than the body's plane, the part of `v` toward that leg's side goes (what
    /// is left slides along). The body then brakes at its acceleration, well before its
    /// centre reaches the edge or the wall the leg ahead of it saw.
    pub(super) fn hold_short(&self, def: &ValidCreatureDef, mut v: Vec3, edges: bool) -> Vec3 {
        let holds = |l: &LegState| l.at_wall || (edges && l.over_edge);
        if !self.legs.iter().any(holds) {
            return v;
        }
        let m = glam::Mat3::from_quat(yaw_rotation(self.yaw));
        // One projection per leg can leave a little of `v` toward a side already done (two
        // front legs at a wall): a few passes take it out, or stop the body.
        for _ in 0..HOLD_PASSES {
            let mut held = false;
            for (leg, st) in def.legs.iter().zip(&self.legs) {
                if !holds(st) {
                    continue;
                }
                let out = horizontal(m * leg.rest).normalize_or_zero();
                let toward = v.dot(out);
                if toward > 1e-4 {
                    v -= out * toward;
                    held = true;
                }
            }
            if !held {
                return v;
            }
        }
        // Still heading toward a held side: the sides hem it in.
        Vec3::ZERO
    }

    /// Whether the body has left the ground it walked off: with an edge near (a leg saw
    /// one) and no ground within `nav.step_height` (plus a margin) below its ride height.
    /// Then it falls (see [`Locomotor::fall`]).
    pub(super) fn check_airborne<G: GroundQuery + ?Sized>(
        &mut self,
        def: &ValidCreatureDef,
        ground: &G,
    ) {
        // A body being caught (after a jump its legs reach the ground from higher than a
        // step) is not walking off anything.
        if self.follow.is_some()
            || self.landing
            || def.body.hover.is_some()
            || !self.legs.iter().any(|l| l.over_edge)
        {
            return;
        }
        let limit = def.body.height + def.nav.step_height + AIR_MARGIN;
        let origin = self.position + Vec3::Y * CAST_ABOVE_BODY;
        // A small sphere rests on block edges where a ray could slip into a crack.
        if ground
            .sweep_down(origin, 0.1, CAST_ABOVE_BODY + limit - 0.1)
            .or_else(|| ground.cast_down(origin, CAST_ABOVE_BODY + limit))
            .is_some()
        {
            return;
        }
        self.airborne = true;
        self.landing = false;
        for st in self.legs.iter_mut() {
            st.grounded = false;
        }
    }

    /// One tick in the air: gravity, the horizontal velocity kept, the legs hanging in
    /// their rest pose. When the hanging feet reach the ground (within [`LAND_REACH`]) they
    /// plant and the landing begins: the body is caught at most at [`LAND_DECEL`].
    pub(super) fn fall<G: GroundQuery + ?Sized>(
        &mut self,
        def: &ValidCreatureDef,
        dt: f32,
        yaw: Quat,
        ground: &G,
    ) -> Quat {
        self.rise -= GRAVITY * dt;
        let h = horizontal(self.velocity);
        self.position += Vec3::new(h.x, self.rise, h.z) * dt;
        let rot = Quat::from_rotation_arc(Vec3::Y, self.up) * yaw;
        let m = glam::Mat3::from_quat(rot);
        for (leg, st) in def.legs.iter().zip(self.legs.iter_mut()) {
            st.foot = self.position + m * leg.rest;
            st.target = st.foot;
            st.grounded = false;
        }
        let origin = self.position + Vec3::Y * CAST_ABOVE_BODY;
        let reach = CAST_ABOVE_BODY + def.body.height + LAND_REACH;
        let touched = ground
            .sweep_down(origin, 0.1, reach)
            .or_else(|| ground.cast_down(origin, reach));
        if let Some(p) = touched {
            self.touch_down(def, m, ground, p.y);
        }
        rot
    }

    /// Every foot put on the ground under its rest spot, or `share` of the way there from
    /// under its hip (after a landing).
    pub(super) fn plant_feet<G: GroundQuery + ?Sized>(
        &mut self,
        def: &ValidCreatureDef,
        m: glam::Mat3,
        ground: &G,
        share: f32,
    ) {
        let footing = Footing::of(def, self.up);
        for (leg, st) in def.legs.iter().zip(self.legs.iter_mut()) {
            let spot = if share == 1.0 {
                leg.rest
            } else {
                leg.hip + (leg.rest - leg.hip) * share
            };
            let rest = self.position + m * spot;
            let origin = Vec3::new(rest.x, self.position.y + CAST_ABOVE_BODY, rest.z);
            let max = CAST_ABOVE_BODY + LAND_REACH + CAST_BELOW_REST;
            let hit = footing.cast(ground, origin, max);
            *st = match hit {
                Some(hit) => LegState::planted(hit, Some(hit), self.position + m * leg.hip),
                None => LegState::hanging(rest, self.position + m * leg.hip),
            };
        }
        self.phase_stepped = 0;
    }

    /// Feet that landed this tick (`landed`) on the lip of a top (a step, a rock): a surface
    /// of their height found under the foot but not [`SETTLE_INSET`] to one side (where ray
    /// casts may slip past the edge line, or the foot hangs half over it) — moved that far
    /// the other way, onto the top. Four short casts per landing; feet with the same
    /// ground all round are left as they are.
    pub(super) fn settle_landings<G: GroundQuery + ?Sized>(
        &mut self,
        def: &ValidCreatureDef,
        ground: &G,
        landed: &mut [super::StepEvent],
    ) {
        let footing = Footing::of(def, self.up);
        let under = |p: Vec3| {
            footing
                .cast(ground, p + Vec3::Y * 0.05, 0.1)
                .filter(|q| (q.y - p.y).abs() <= SETTLE_TOLERANCE)
        };
        let ways = [Vec3::X, Vec3::NEG_X, Vec3::Z, Vec3::NEG_Z];
        for ev in landed {
            let Some(st) = self.legs.get_mut(ev.leg) else {
                continue;
            };
            let foot = st.foot;
            let off: Vec3 = ways
                .iter()
                .filter(|w| under(foot + **w * SETTLE_INSET).is_none())
                .sum();
            let away = -off.normalize_or_zero();
            if away == Vec3::ZERO {
                continue;
            }
            if let Some(q) = under(foot + away * SETTLE_INSET) {
                st.foot = q;
                st.target = q;
                ev.position = q;
            }
        }
    }

    /// Casts every leg's landing spot: the rest spot, moved ahead by the landing prediction,
    /// dropped onto the ground. A miss keeps the last good spot when it is still within the
    /// leg's length, else uses the body-relative rest spot — never a runaway target.
    pub(super) fn place_targets<G: GroundQuery + ?Sized>(
        &mut self,
        def: &ValidCreatureDef,
        gait: &GaitParams,
        duration: f32,
        rot: Quat,
        ground: &G,
    ) {
        let m = glam::Mat3::from_quat(rot);
        let v = horizontal(self.velocity);
        let lead = v * (gait.lead * duration);
        // The ground the body stands on, as a plane: a slope is not an edge nor a wall.
        let (centre, up) = (self.position - Vec3::Y * def.body.height, self.up);
        let plane_y = |p: Vec3| {
            centre.y - (up.x * (p.x - centre.x) + up.z * (p.z - centre.z)) / up.y.max(0.2)
        };
        let footing = Footing::of(def, up);
        // The body where the posture wants it (the hips there).
        let ride = Vec3::new(self.position.x, self.ride_y, self.position.z);
        for (leg, st) in def.legs.iter().zip(self.legs.iter_mut()) {
            let rest = self.position + m * leg.rest;
            let probe = rest + lead;
            let origin = Vec3::new(probe.x, self.position.y + CAST_ABOVE_BODY, probe.z);
            let max = origin.y - rest.y + CAST_BELOW_REST;
            let cast = cast_probe(ground, &footing, origin, rest, max);
            let hit = cast.map(|h| h.point);
            // An edge (not a slope or a flight of steps): the probe's ground fell by more than
            // a step since last tick and lies that far below the plane; a wall: that far above.
            let drop = def.nav.step_height;
            let wall = |p: Vec3| p.y > plane_y(p) + drop;
            (st.over_edge, st.at_wall) = match hit {
                // No ground in reach: a hole, unless the probe started inside a wall (seen
                // from high above, its top stands over the plane).
                None => {
                    let top = st.remembered(
                        |m| &mut m.above,
                        probe,
                        hit,
                        || ground.cast_down(origin + Vec3::Y * WALL_LOOK, WALL_LOOK + max),
                    );
                    (
                        top.is_none_or(|p| p.y < plane_y(p) + drop),
                        top.is_some_and(wall),
                    )
                }
                Some(p) => {
                    let below = p.y < plane_y(p) - drop;
                    let sudden = st.probe.is_some_and(|q| p.y < q.y - drop);
                    (below && (sudden || st.over_edge), wall(p))
                }
            };
            st.probe = hit;
            // Only ground within a step of the body's plane is a foothold: a rock top or a
            // wall higher than that, or the foot of a drop deeper, is not (a foot beside it
            // is found on the way back toward the body, as for a miss).
            let foothold = |p: &Vec3| (p.y - plane_y(*p)).abs() <= drop;
            let carried = cast.filter(|h| footing.carries(h));
            if let Some(h) = carried.filter(|_| !st.grounded) {
                st.slope = h.normal;
            }
            match carried.map(|h| h.point).filter(foothold) {
                Some(point) => {
                    // Below the rest spot and out of easy reach of the hip at the ride
                    // height: a foothold nearer the hip, when there is one.
                    let hip = ride + m * leg.hip;
                    let reach = PLAN_REACH * leg.length;
                    let point = if point.y < rest.y && hip.distance(point) > reach {
                        st.remembered(
                            |m| &mut m.reach_in,
                            probe,
                            hit,
                            || reach_in(ground, &footing, hip, point, (origin.y, max), reach),
                        )
                        .filter(foothold)
                        .unwrap_or(point)
                    } else {
                        point
                    };
                    st.target = point;
                    st.target_hit = true;
                    st.last_hit = Some(point);
                }
                None => {
                    // No foothold there (a wall, a drop). The last good spot will do while
                    // it is in reach; once the foot is stretched (or there is none), look
                    // for a foothold on the way back toward the body, so the target moves
                    // with it and the foot steps instead of holding the body for ever.
                    let usable = st
                        .last_hit
                        .is_some_and(|p| horizontal(p - probe).length() < leg.length);
                    let stretched = st.grounded && st.reach > HOLD_FROM;
                    let centre = Vec3::new(self.position.x, probe.y, self.position.z);
                    let inward = if usable && !stretched {
                        None
                    } else {
                        st.remembered(
                            |m| &mut m.inward,
                            probe,
                            hit,
                            || {
                                [0.35f32, 0.6, 0.85].iter().find_map(|t| {
                                    let q = probe.lerp(centre, *t);
                                    footing
                                        .cast(ground, Vec3::new(q.x, origin.y, q.z), max)
                                        .filter(foothold)
                                })
                            },
                        )
                    };
                    (st.target, st.target_hit) = match (inward, st.last_hit) {
                        (Some(q), _) => (q, true),
                        (None, Some(p)) if horizontal(p - probe).length() < leg.length => (p, true),
                        // Nowhere to go: a planted foot stays where it stands, a lifted one
                        // hangs over the probe (it lands on nothing; see `swing`).
                        _ if st.grounded => (st.foot, true),
                        _ => (probe, false),
                    };
                    // A stretched foot whose spot is where it stands would hold the body
                    // for ever: it steps to the ground under its hip (any face it can
                    // stand on there: the body stands over it).
                    if stretched && horizontal(st.target - st.foot).length() < STAY {
                        let hip = self.position + m * leg.hip;
                        let under = footing.cast(ground, Vec3::new(hip.x, origin.y, hip.z), max);
                        if let Some(q) = under.filter(|q| q.distance(hip) < HOLD_FROM * leg.length)
                        {
                            (st.target, st.target_hit) = (q, true);
                        }
                    }
                    if let Some(q) = inward {
                        st.last_hit = Some(q);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::locomotion::def::tests::spider;
    use crate::locomotion::locomotor::{Intent, Scratch};

    /// Ground at 0 up to a block at `z >= wall` whose top stands `top` m high, counting
    /// the casts made.
    struct Walled {
        wall: f32,
        top: f32,
        casts: std::cell::Cell<usize>,
    }

    impl GroundQuery for Walled {
        fn cast_down(&self, origin: Vec3, max_distance: f32) -> Option<Vec3> {
            self.casts.set(self.casts.get() + 1);
            let y = if origin.z >= self.wall { self.top } else { 0.0 };
            let d = origin.y - y;
            (d >= 0.0 && d <= max_distance).then(|| Vec3::new(origin.x, y, origin.z))
        }
    }

    /// A face tilted `deg` degrees toward +z, met by every cast.
    struct Face(f32);

    impl GroundQuery for Face {
        fn cast_down(&self, origin: Vec3, _: f32) -> Option<Vec3> {
            Some(Vec3::new(origin.x, 0.0, origin.z))
        }
        fn cast_down_hit(&self, origin: Vec3, max: f32) -> Option<GroundHit> {
            let normal = Quat::from_rotation_x(self.0.to_radians()) * Vec3::Y;
            self.cast_down(origin, max)
                .map(|point| GroundHit { point, normal })
        }
    }

    #[test]
    fn a_foot_stands_on_a_face_within_the_slope_limit_of_the_body_up() {
        let def = spider().validate().expect("valid");
        assert_eq!(def.nav.max_slope, 45.0);
        let level = Footing::of(&def, Vec3::Y);
        let o = Vec3::new(0.0, 1.0, 0.0);
        assert!(level.cast(&Face(0.0), o, 2.0).is_some());
        assert!(level.cast(&Face(44.0), o, 2.0).is_some());
        // A slab's end face (70°), a wall's flank: no foothold.
        assert_eq!(level.cast(&Face(46.0), o, 2.0), None);
        assert_eq!(level.cast(&Face(70.0), o, 2.0), None);
        // Measured from the body's up: tilted 30° on a slope, a 70° face leaning the same
        // way is 40° off it; one leaning the other way is over 90°.
        let tilted = Footing::of(&def, Quat::from_rotation_x(30f32.to_radians()) * Vec3::Y);
        assert!(tilted.cast(&Face(70.0), o, 2.0).is_some());
        assert_eq!(tilted.cast(&Face(-70.0), o, 2.0), None);
        assert_eq!(tilted.cast(&Face(-20.0), o, 2.0), None);
    }

    #[test]
    fn a_walker_keeps_its_feet_off_a_face_too_steep_to_stand_on() {
        let def = spider().validate().expect("valid");
        let steep = Face(70.0);
        let mut loco = Locomotor::spawn(&def, Vec3::ZERO, 0.0, &steep);
        // Spawned over nothing but steep faces: no foot stands (each hangs at its rest
        // spot, waiting for ground).
        assert!(
            loco.legs.iter().all(|l| l.last_hit.is_none()),
            "{:?}",
            loco.legs[0]
        );
        let gait = def.gait.clone();
        loco.place_targets(&def, &gait, 0.3, Quat::IDENTITY, &steep);
        assert!(loco.legs.iter().all(|l| !l.target_hit));
        // The same ground at 40°: every target on it.
        let slope = Face(40.0);
        loco.place_targets(&def, &gait, 0.3, Quat::IDENTITY, &slope);
        assert!(loco.legs.iter().all(|l| l.target_hit && l.target.y == 0.0));
    }

    #[test]
    fn a_foot_on_an_edge_stands_on_the_top_past_it() {
        let block = Walled {
            wall: 1.0,
            top: 0.5,
            casts: std::cell::Cell::new(0),
        };
        let footing = Footing::of(&spider().validate().expect("valid"), Vec3::Y);
        // A sweep down beside the block rested on its edge line (z = 1).
        let origin = Vec3::new(0.0, 2.0, 0.95);
        let spot = onto_edge(&block, &footing, origin, Vec3::new(0.0, 0.5, 1.0))
            .expect("on the top")
            .point;
        assert!((spot.y - 0.5).abs() < 1e-6 && spot.z > 1.0, "{spot}");
        assert_eq!(block.cast_down(spot + Vec3::Y * 0.05, 0.1), Some(spot));
        // Nothing at that height past the contact: no spot (the ray's own hit stands).
        let low = Vec3::new(0.0, 0.5, 0.9);
        assert_eq!(
            onto_edge(&block, &footing, Vec3::new(0.0, 2.0, 0.95), low),
            None
        );
    }

    #[test]
    fn a_foot_landing_on_the_lip_of_a_top_settles_onto_it() {
        let def = spider().validate().expect("valid");
        // A low step (a stair's 5 cm) from z = 1 on.
        let step = Walled {
            wall: 1.0,
            top: 0.05,
            casts: std::cell::Cell::new(0),
        };
        let mut loco = Locomotor::spawn(&def, Vec3::ZERO, 0.0, &step);
        let land = |loco: &mut Locomotor, at: Vec3| {
            loco.legs[0].foot = at;
            let mut ev = [crate::locomotion::locomotor::StepEvent {
                leg: 0,
                position: at,
                ..Default::default()
            }];
            loco.settle_landings(&def, &step, &mut ev);
            (loco.legs[0].foot, ev[0].position)
        };
        // 5 mm onto the top: moved 2 cm away from the lip, at the top's height, and the
        // step event says where.
        let (foot, told) = land(&mut loco, Vec3::new(0.3, 0.05, 1.005));
        assert!(
            (foot.z - 1.025).abs() < 1e-5 && foot.y == 0.05 && foot.x == 0.3,
            "{foot}"
        );
        assert_eq!(told, foot);
        // In the middle of the top, or on the ground below: left as it is.
        for at in [Vec3::new(0.3, 0.05, 1.5), Vec3::new(0.3, 0.0, 0.5)] {
            assert_eq!(land(&mut loco, at).0, at);
        }
        // On the ground a hair before the step: the ground is there all round but on the
        // step's side, so it moves back off the riser.
        let (foot, _) = land(&mut loco, Vec3::new(0.3, 0.0, 0.99));
        assert!((foot.z - 0.97).abs() < 1e-5 && foot.y == 0.0, "{foot}");
    }

    #[test]
    fn a_walker_stops_at_a_wall_and_its_legs_do_not_search_every_tick() {
        let def = spider().validate().expect("valid");
        let ground = Walled {
            wall: 1.0,
            top: 1.0,
            casts: std::cell::Cell::new(0),
        };
        let mut loco = Locomotor::spawn(&def, Vec3::ZERO, 0.0, &ground);
        loco.intent = Intent::Move {
            dir: Vec3::Z,
            speed: 1.0,
            drop: false,
        };
        let mut scratch = Scratch::default();
        let mut run = |ticks: usize, loco: &mut Locomotor| {
            ground.casts.set(0);
            for _ in 0..ticks {
                loco.update(
                    &def,
                    &def.gait,
                    &def.lean,
                    &ground,
                    1.0 / 60.0,
                    &mut scratch,
                );
            }
            ground.casts.get() as f32 / ticks as f32
        };
        // Walk into the wall and stay pressed against it.
        run(240, &mut loco);
        let pressed = run(240, &mut loco);
        // It stopped at the wall, its body (0.7 m long) outside the block.
        assert!(
            loco.position.z + 0.35 < 1.0,
            "walked into the block: {}",
            loco.position
        );
        // The legs' landing probes, and the body's floor probes (under its middle; under
        // its whole underside would be `FLOOR_PROBES`, but no foot is up near it here).
        let probes = def.legs.len() as f32 + 1.0;
        assert!(
            pressed < probes + 0.5,
            "{pressed:.2} casts a tick against the wall for {probes} landing probes"
        );
    }
}
