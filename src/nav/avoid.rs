//! Local avoidance between agents and against the navmesh's outer edges, on ORCA
//! (`dodgy_2d`, the solver landmass uses). landmass gives each agent the velocity along its
//! path; this turns it into one that avoids the others. skitter does this step itself so it
//! can add what landmass's own cannot:
//!
//! - **a side rule**: an agent with another coming the opposite way ahead of it, close to its
//!   line, bears to its right (as people keep right). Both do, so they pass left shoulder to
//!   left shoulder instead of holding each other still, and in a corridor each stream keeps
//!   to its own side;
//!   Somewhere narrow (a mesh edge near) agents keep to a lane a little off the edge on their
//!   right whether anyone comes or not, and
//!   of two going the same way side by side the one on the right has the way, so a stream
//!   merges into one file on its side before it meets the other;
//! - **a margin that gives way**: agents keep a margin from each other (bodies follow their
//!   velocity within acceleration and turn limits, not exactly), except two passing each
//!   other, which may brush by at their radii;
//! - **giving way where only one fits**: somewhere narrow, of two nose to nose that cannot
//!   pass, the one with the higher key backs off and waits while the other's stream comes
//!   through, and those of its own stream it backs into give way too;
//! - **standing agents are obstacles**: one that has arrived does not move, so the others
//!   take all the avoiding on themselves;
//! - **no hashing, no per-agent allocation**: neighbours come from a sorted grid rebuilt in
//!   place, the mesh's edges from a grid built once per navmesh.

use std::borrow::Cow;

use dodgy_2d::{Agent as Orca, AvoidanceOptions, Obstacle};
use glam::{Vec2, Vec3};

use super::mesh::NavMesh;

/// Extra radius agents keep from each other (not from one they are passing), metres.
pub(crate) const MARGIN: f32 = 0.1;
/// How far ahead an oncoming agent makes one bear right, metres.
const LOOKAHEAD: f32 = 8.0;
/// How hard an agent bears right at most: sideways speed over forward speed (1: 45°).
const SIDE: f32 = 1.0;
/// Somewhere narrow (a mesh edge within this of an agent's radius, metres)...
const NARROW: f32 = 1.0;
/// ...an agent keeps right, bearing up to this much (of `SIDE`) whether anyone comes or
/// not, so streams keep to their sides before they meet...
const NARROW_BEAR: f32 = 0.8;
/// ...toward a lane this far (metres) from the mesh's edge on its right...
const LANE: f32 = 0.3;
/// ...and an oncoming agent this far to the side (metres) still counts.
const NARROW_SIDE: f32 = 2.0;
/// Somewhere narrow, two face to face that cannot pass (nose to nose, too slow to be
/// getting by): the one with the higher key gives way — backs off while the other is close
/// ahead, then waits while anyone of that stream is coming — and one giving way makes
/// those of its own stream it backs into give way too. This long after the last reason.
const YIELD_HOLD: f32 = 1.0;
/// Of two going the same way side by side, the share of their avoidance the one on the
/// right takes (the left one the rest): the right has the way.
const RIGHT_OF_WAY: f32 = 0.05;
/// Agents further apart in height than this are on different floors: neither avoids the
/// other, nor the other floor's edges.
pub(crate) const FLOOR_GAP: f32 = 1.5;
/// How far agents keep from the mesh's outer edges, metres.
const EDGE_MARGIN: f32 = 0.05;
/// ORCA's horizons (s): how far ahead collisions with agents and with edges count.
const TIME_HORIZON: f32 = 0.5;
const OBSTACLE_HORIZON: f32 = 0.25;

/// World (x, z) to the plane avoidance works in (landmass's: x, -z), where the mesh's
/// polygons run counter-clockwise and the right of a direction `d` is `(d.y, -d.x)`.
fn plane(v: Vec3) -> Vec2 {
    Vec2::new(v.x, -v.z)
}

fn world(v: Vec2) -> Vec3 {
    Vec3::new(v.x, 0.0, -v.y)
}

fn dv(v: Vec2) -> dodgy_2d::Vec2 {
    dodgy_2d::Vec2::new(v.x, v.y)
}

fn right(d: Vec2) -> Vec2 {
    Vec2::new(d.y, -d.x)
}

/// A navmesh's outer edges (walls, drops) as ORCA obstacles, in a grid.
pub(crate) struct Borders {
    obstacles: Vec<Obstacle>,
    /// Per edge: its two ends in the plane and its height span.
    edges: Vec<(Vec2, Vec2, f32, f32)>,
    origin: Vec2,
    cell: f32,
    dims: [usize; 2],
    /// Cell `c`'s edges are `items[start[c]..start[c + 1]]`.
    start: Vec<u32>,
    items: Vec<u32>,
}

impl Borders {
    /// The outer edges of `mesh` (those with no polygon across).
    pub(crate) fn new(mesh: &NavMesh) -> Borders {
        let mut obstacles = Vec::new();
        let mut edges = Vec::new();
        for (i, poly) in mesh.polygons.iter().enumerate() {
            let n = poly.len();
            for k in 0..n {
                if mesh
                    .neighbours
                    .get(i)
                    .and_then(|e| e.get(k))
                    .is_some_and(|o| o.is_some())
                {
                    continue;
                }
                let (a, b) = (mesh.vertices[poly[k]], mesh.vertices[poly[(k + 1) % n]]);
                // The polygon is on the edge's left; ORCA wants the solid side there.
                obstacles.push(Obstacle::Open {
                    vertices: vec![dv(plane(b)), dv(plane(a))],
                });
                edges.push((plane(a), plane(b), a.y.min(b.y), a.y.max(b.y)));
            }
        }
        let (mut lo, mut hi) = (Vec2::splat(f32::MAX), Vec2::splat(f32::MIN));
        for (a, b, _, _) in &edges {
            lo = lo.min(a.min(*b));
            hi = hi.max(a.max(*b));
        }
        if edges.is_empty() {
            (lo, hi) = (Vec2::ZERO, Vec2::ONE);
        }
        // Cells of 2 m, fewer (bigger) on a huge level.
        let span = (hi - lo).max(Vec2::splat(1e-3));
        let cell = (span.max_element() / 1024.0).max(2.0);
        let dims = [
            (span.x / cell).floor() as usize + 1,
            (span.y / cell).floor() as usize + 1,
        ];
        let cells_of = |a: Vec2, b: Vec2| {
            let c0 = ((a.min(b) - lo) / cell).floor();
            let c1 = ((a.max(b) - lo) / cell).floor();
            (c0.x as usize..=c1.x as usize)
                .flat_map(move |x| (c0.y as usize..=c1.y as usize).map(move |y| (x, y)))
        };
        let mut count = vec![0u32; dims[0] * dims[1] + 1];
        for (a, b, _, _) in &edges {
            for (x, y) in cells_of(*a, *b) {
                count[x * dims[1] + y + 1] += 1;
            }
        }
        for c in 1..count.len() {
            count[c] += count[c - 1];
        }
        let start = count.clone();
        let mut fill = count;
        let mut items = vec![0u32; *start.last().unwrap_or(&0) as usize];
        for (e, (a, b, _, _)) in edges.iter().enumerate() {
            for (x, y) in cells_of(*a, *b) {
                let c = x * dims[1] + y;
                items[fill[c] as usize] = e as u32;
                fill[c] += 1;
            }
        }
        Borders {
            obstacles,
            edges,
            origin: lo,
            cell,
            dims,
            start,
            items,
        }
    }

    /// How many outer edges the mesh has.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.edges.len()
    }

    /// The distance from `p` to the nearest of `edges` on the side `side` points to
    /// (`f32::MAX` when none is).
    fn clearance(&self, edges: &[u32], p: Vec2, side: Vec2) -> f32 {
        let mut best = f32::MAX;
        for &e in edges {
            let (a, b, _, _) = self.edges[e as usize];
            let ab = b - a;
            let t = ((p - a).dot(ab) / ab.length_squared().max(1e-12)).clamp(0.0, 1.0);
            let q = a + ab * t - p;
            if q.dot(side) > 0.0 {
                best = best.min(q.length());
            }
        }
        best
    }

    /// Pushes (once each) the edges within `reach` of `p` (plane) on the floor at height
    /// `y`; returns the distance to the nearest (`reach` when none).
    fn near(&self, p: Vec2, y: f32, reach: f32, out: &mut Vec<u32>) -> f32 {
        out.clear();
        let mut nearest = reach * reach;
        let c0 = ((p - reach - self.origin) / self.cell)
            .floor()
            .max(Vec2::ZERO);
        let c1 = ((p + reach - self.origin) / self.cell).floor();
        let (x1, y1) = (
            (c1.x.max(-1.0) as i64).min(self.dims[0] as i64 - 1),
            (c1.y.max(-1.0) as i64).min(self.dims[1] as i64 - 1),
        );
        for x in c0.x as i64..=x1 {
            for z in c0.y as i64..=y1 {
                let c = x as usize * self.dims[1] + z as usize;
                for &e in &self.items[self.start[c] as usize..self.start[c + 1] as usize] {
                    let (a, b, ylo, yhi) = self.edges[e as usize];
                    if y < ylo - FLOOR_GAP || y > yhi + FLOOR_GAP {
                        continue;
                    }
                    let ab = b - a;
                    let t = ((p - a).dot(ab) / ab.length_squared().max(1e-12)).clamp(0.0, 1.0);
                    let d2 = (a + ab * t).distance_squared(p);
                    if d2 <= reach * reach {
                        nearest = nearest.min(d2);
                        out.push(e);
                    }
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        nearest.sqrt()
    }
}

/// One agent as avoidance sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Mover {
    /// Its key (creature id).
    pub key: u32,
    /// Its ground point, world space.
    pub position: Vec3,
    /// Its body's velocity, world space.
    pub velocity: Vec3,
    /// Its radius.
    pub radius: f32,
    /// Its top speed.
    pub max_speed: f32,
    /// The velocity along its path (zero when it has none), world space.
    pub preferred: Vec3,
    /// The velocity it should take, world space (the result).
    pub desired: Vec3,
    /// Where it stands with its path, as of its last turn.
    pub state: super::NavAgentState,
    /// Seconds it goes on giving way (see [`avoid`]); 0 when it is not.
    pub yielding: f32,
    /// Far from the camera (level of detail): in a crowd its avoidance updates on every
    /// other turn of its share (see `Navigator::step`).
    pub far: bool,
}

/// Reused buffers of [`avoid`].
#[derive(Default)]
pub(crate) struct Scratch {
    /// (grid cell, mover index), sorted.
    cells: Vec<(u64, u32)>,
    edges: Vec<u32>,
    neighbours: Vec<Cow<'static, Orca>>,
}

fn cell_key(p: Vec2, size: f32) -> (i32, i32) {
    ((p.x / size).floor() as i32, (p.y / size).floor() as i32)
}

/// A cell as a sort key that keeps the order of (x, z): the cells of one row `x` from `z0`
/// to `z1` are one run of the sorted list.
fn pack(c: (i32, i32)) -> u64 {
    let flip = |v: i32| (v as u32 ^ 0x8000_0000) as u64;
    (flip(c.0) << 32) | flip(c.1)
}

/// Sets each mover's `desired` (those `update` refuses keep theirs): its preferred
/// velocity, turned by the side rule, made safe from the others within `neighbourhood` and
/// from the mesh's edges. `dt` is the time until the next update. Movers must come in a
/// fixed order (by key): the result depends only on them.
pub(crate) fn avoid(
    movers: &mut [Mover],
    update: impl Fn(&Mover) -> bool,
    borders: &Borders,
    neighbourhood: f32,
    dt: f32,
    scratch: &mut Scratch,
) {
    let Scratch {
        cells,
        edges,
        neighbours,
    } = scratch;
    // Cells as wide as the farthest neighbour counted: the 3 × 3 around one hold them all.
    let size = neighbourhood + movers.iter().map(|m| m.radius).fold(0.0, f32::max);
    cells.clear();
    cells.extend(
        movers
            .iter()
            .enumerate()
            .map(|(i, m)| (pack(cell_key(plane(m.position), size)), i as u32)),
    );
    cells.sort_unstable();
    let mut obstacles: Vec<Cow<'_, Obstacle>> = Vec::new();
    let options = AvoidanceOptions {
        // The mesh is already eroded by the radius; a few centimetres more keep agents off
        // the very edge, and push back one that got over it (a body does not follow its
        // velocity exactly).
        obstacle_margin: EDGE_MARGIN,
        time_horizon: TIME_HORIZON,
        obstacle_time_horizon: OBSTACLE_HORIZON,
    };
    for i in 0..movers.len() {
        // Those standing (no path) do not move: nothing to work out.
        if !update(&movers[i]) || movers[i].preferred == Vec3::ZERO {
            continue;
        }
        let me = movers[i];
        let p = plane(me.position);
        let pref = plane(me.preferred);
        let dir = pref.normalize_or_zero();
        let wall = borders.near(
            p,
            me.position.y,
            me.radius + me.max_speed * OBSTACLE_HORIZON + 0.5,
            edges,
        );
        let narrow = wall < me.radius + NARROW;
        let (cx, cz) = cell_key(p, size);
        neighbours.clear();
        let mut bear = 0.0f32;
        // The nearest directly ahead: (its distance, its key, it gives way, same stream).
        let mut facing: Option<(f32, u32, bool, bool)> = None;
        let mut oncoming = false;
        for x in cx - 1..=cx + 1 {
            // The row's three cells are one run of the sorted list: one search each row.
            let (k0, k1) = (pack((x, cz - 1)), pack((x, cz + 1)));
            let from = cells.partition_point(|c| c.0 < k0);
            for &(ck, j) in &cells[from..] {
                if ck > k1 {
                    break;
                }
                let o = &movers[j as usize];
                if j as usize == i || (o.position.y - me.position.y).abs() > FLOOR_GAP {
                    continue;
                }
                let d = plane(o.position) - p;
                let reach = neighbourhood + o.radius;
                if d.length_squared() >= reach * reach {
                    continue;
                }
                let odir = plane(o.preferred).normalize_or_zero();
                let (opposed, same) = (dir.dot(odir) < -0.5, dir.dot(odir) > 0.5);
                // Where it is: how far ahead, and how far to the right (< 0: left).
                let (ahead, across) = (d.dot(dir), d.dot(right(dir)));
                let side = across.abs();
                if ahead > 0.0
                    && ahead < me.radius + o.radius + 0.6
                    && side < me.radius + o.radius
                    && facing.is_none_or(|f| ahead < f.0)
                    && (opposed || same)
                {
                    facing = Some((ahead, o.key, o.yielding > 0.0, same));
                }
                if opposed && ahead > 0.0 {
                    oncoming |= ahead < LOOKAHEAD * 0.5 && side < NARROW_SIDE;
                    let near_line = if narrow {
                        NARROW_SIDE
                    } else {
                        me.radius + o.radius + MARGIN
                    };
                    if ahead < LOOKAHEAD && side < near_line {
                        bear = bear.max(1.0 - ahead / LOOKAHEAD);
                    }
                }
                // One standing does not move: the mover does all the avoiding. Going the
                // same way side by side: the one on the right has the way (so a stream
                // bearing right merges into one file behind it).
                let mut share = if odir == Vec2::ZERO { 0.0 } else { 1.0 };
                if same {
                    if across > 0.3 && ahead > -0.5 {
                        share = RIGHT_OF_WAY;
                    } else if across < -0.3 && ahead < 0.5 {
                        share = 1.0 / RIGHT_OF_WAY;
                    }
                }
                neighbours.push(Cow::Owned(Orca {
                    position: dv(plane(o.position)),
                    velocity: dv(plane(o.velocity)),
                    radius: o.radius + if opposed { 0.0 } else { MARGIN },
                    avoidance_responsibility: share,
                }));
            }
        }
        if narrow {
            // Toward a lane `LANE` off the mesh's edge on its right, not against the edge.
            let lane = (borders.clearance(edges, p, right(dir)) - LANE) / LANE;
            bear = bear.max(NARROW_BEAR * lane.clamp(0.0, 1.0));
        }
        let speed = pref.length();
        // Giving way (somewhere narrow only; in the open the side rule does it).
        let slow = plane(me.velocity).length() < 0.3 * me.max_speed;
        let starts = narrow
            && slow
            && facing.is_some_and(
                |(_, k, yields, same)| {
                    if same {
                        yields
                    } else {
                        !yields && me.key > k
                    }
                },
            );
        let yielding = if starts {
            YIELD_HOLD
        } else if me.yielding > 0.0 && narrow && oncoming {
            me.yielding
        } else {
            (me.yielding - dt).max(0.0)
        };
        movers[i].yielding = yielding;
        let preferred = if yielding > 0.0 {
            // Back off from one close ahead; else wait.
            if facing.is_some() {
                -dir * (0.5 * speed)
            } else {
                Vec2::ZERO
            }
        } else if bear > 0.0 {
            (dir + right(dir) * (SIDE * bear.sqrt())).normalize_or_zero() * speed
        } else {
            pref
        };
        obstacles.clear();
        obstacles.extend(
            edges
                .iter()
                .map(|&e| Cow::Borrowed(&borders.obstacles[e as usize])),
        );
        let agent = Orca {
            position: dv(p),
            velocity: dv(plane(me.velocity)),
            radius: me.radius,
            avoidance_responsibility: 1.0,
        };
        let v = agent.compute_avoiding_velocity(
            neighbours,
            &obstacles,
            dv(preferred),
            me.max_speed,
            dt.max(1e-3),
            &options,
        );
        movers[i].desired = world(Vec2::new(v.x, v.y));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nav::mesh::tests::baked_floor_with_wall as mesh;

    /// One avoidance pass over `movers`, every one updated, a tick ahead.
    fn run(b: &Borders, movers: &mut [Mover]) {
        avoid(
            movers,
            |_| true,
            b,
            2.5,
            1.0 / 60.0,
            &mut Scratch::default(),
        );
    }

    fn mover(key: u32, x: f32, dir: f32) -> Mover {
        Mover {
            key,
            position: Vec3::new(x, 0.0, -6.0),
            velocity: Vec3::new(dir * 1.5, 0.0, 0.0),
            radius: 0.5,
            max_speed: 2.0,
            preferred: Vec3::new(dir * 1.5, 0.0, 0.0),
            desired: Vec3::ZERO,
            state: crate::nav::NavAgentState::Moving,
            yielding: 0.0,
            far: false,
        }
    }

    #[test]
    fn outer_edges_are_found_near_walls_only() {
        let m = mesh();
        let b = Borders::new(&m);
        assert!(b.len() >= 8, "{} edges", b.len());
        let mut out = Vec::new();
        // Next to the wall (along x at z = 0, x < 6): its eroded rim is within a metre.
        b.near(plane(Vec3::new(0.0, 0.0, 1.0)), 0.0, 1.0, &mut out);
        assert!(!out.is_empty());
        // The middle of an open half: nothing.
        b.near(plane(Vec3::new(-2.0, 0.0, -5.0)), 0.0, 1.0, &mut out);
        assert!(out.is_empty(), "{out:?}");
        // The same place on a floor far above: nothing either.
        b.near(plane(Vec3::new(0.0, 0.0, 1.0)), 5.0, 1.0, &mut out);
        assert!(out.is_empty(), "{out:?}");
    }

    #[test]
    fn an_agent_heading_for_the_mesh_edge_stops_at_it() {
        let m = mesh();
        let b = Borders::new(&m);
        // 0.3 m from the wall's eroded rim (z = -0.9), heading straight for it at 1.5 m/s.
        let mut movers = [Mover {
            position: Vec3::new(0.0, 0.0, -1.2),
            velocity: Vec3::new(0.0, 0.0, 1.5),
            preferred: Vec3::new(0.0, 0.0, 1.5),
            ..mover(1, 0.0, 1.0)
        }];
        run(&b, &mut movers);
        let v = movers[0].desired;
        // No closer than the rim within ORCA's obstacle horizon.
        assert!(v.z * OBSTACLE_HORIZON <= 0.3 + 1e-3, "{v}");
        // Walking along the rim is left alone.
        let mut movers = [Mover {
            position: Vec3::new(0.0, 0.0, -1.2),
            velocity: Vec3::new(1.5, 0.0, 0.0),
            preferred: Vec3::new(1.5, 0.0, 0.0),
            ..mover(1, 0.0, 1.0)
        }];
        run(&b, &mut movers);
        assert!(movers[0].desired.x > 1.0, "{}", movers[0].desired);
    }

    #[test]
    fn two_meeting_head_on_both_bear_right() {
        let m = mesh();
        let b = Borders::new(&m);
        let mut movers = [mover(1, -1.2, 1.0), mover(2, 1.2, -1.0)];
        run(&b, &mut movers);
        for m in &movers {
            let dir = plane(m.preferred).normalize();
            let d = plane(m.desired);
            assert!(
                d.dot(right(dir)) > 0.2,
                "agent {} does not bear right: {d}",
                m.key
            );
            assert!(d.dot(dir) > 0.5, "agent {} stopped: {d}", m.key);
        }
        // Going the same way, side by side: no turn.
        let mut movers = [mover(1, -1.2, 1.0), mover(2, 1.2, 1.0)];
        run(&b, &mut movers);
        for m in &movers {
            assert!(plane(m.desired).y.abs() < 1e-3, "{:?}", m.desired);
        }
    }
}
