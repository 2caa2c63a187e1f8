//! Links: ways between navmesh edges that walking cannot take — a gap jumped, a ledge
//! dropped off, a block hopped onto — crossed by an action instead (landmass's animation
//! links). A level gives links (`world.link`, [`LinkInput`]); a bake for a type with jump
//! limits ([`JumpSettings`]) also finds them by itself: from every outer edge of the mesh it
//! looks outward for mesh within the limits that walking does not reach nearby, and keeps
//! those whose ballistic arc the creature's body (a capsule) clears against the level.

use glam::Vec3;
use rapier3d::parry::query::{cast_shapes, ShapeCastOptions};
use rapier3d::parry::shape::{Capsule, TriMesh};

use super::mesh::{inside_xz, BakeError, NavInput, NavMesh, NavSettings};
use crate::math::ballistic::{flight_axis, jump_arc, Ballistic};

/// Gravity of jumps (m/s²): the locomotor's.
pub(crate) const JUMP_GRAVITY: f32 = crate::math::ballistic::GRAVITY;
/// The kinds a bake finds by itself, as kind numbers: a gap jumped (0), a ledge dropped
/// off (1), a block hopped onto (2). A World's kind table starts with these names.
pub const GENERATED_KINDS: [&str; 3] = ["jump", "drop", "hop"];
/// Seconds a crossing spends on the ground besides the flight (crouch and landing), for
/// its cost.
pub(crate) const CROSSING_GROUND_TIME: f32 = 0.45;
/// A rise (or fall) smaller than this (m) is no hop (or drop): a level jump.
const LEVEL: f32 = 0.3;
/// A fall over a gap narrower than this (m) is a drop, wider a jump.
const DROP_GAP: f32 = 0.5;
/// Outer edges are looked out from every this many metres.
const SAMPLE: f32 = 0.5;
/// Outward search step (m).
const SEARCH_STEP: f32 = 0.1;
/// How far back from the edge a take-off may be moved to clear the arc (m), in the order
/// tried.
const SETBACKS: [f32; 4] = [0.0, 0.25, 0.5, 0.75];

/// A creature type's jump limits and body, for the links a bake finds by itself.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JumpSettings {
    /// Widest gap jumped between ledges, m.
    pub gap: f32,
    /// Highest hop up, m.
    pub up: f32,
    /// Deepest drop, m.
    pub down: f32,
    /// Ride height of the body centre, m.
    pub ride: f32,
    /// The body as a capsule lying along the jump: its radius, m...
    pub body_radius: f32,
    /// ...and the half length of its segment, m.
    pub body_half: f32,
    /// Cruise speed, m/s (a crossing's cost is its time at this speed).
    pub speed: f32,
}

impl JumpSettings {
    /// Bit patterns, for cache keys.
    pub fn key(&self) -> [u32; 7] {
        [
            self.gap,
            self.up,
            self.down,
            self.ride,
            self.body_radius,
            self.body_half,
            self.speed,
        ]
        .map(f32::to_bits)
    }

    /// Whether a jump from ground point `from` to ground point `to` is within the limits:
    /// `Err` says which it breaks. The gap is the run less the two ledge margins
    /// (`margin`: the mesh's agent radius, each side).
    pub fn allows(&self, from: Vec3, to: Vec3, margin: f32) -> Result<(), JumpLimitError> {
        let dy = to.y - from.y;
        let run = horizontal(to - from).length();
        let gap = (run - 2.0 * margin).max(0.0);
        if dy > self.up + 1e-4 {
            return Err(JumpLimitError::TooHigh {
                up: dy,
                limit: self.up,
            });
        }
        if -dy > self.down + 1e-4 {
            return Err(JumpLimitError::TooDeep {
                down: -dy,
                limit: self.down,
            });
        }
        if gap > self.gap + 1e-4 {
            return Err(JumpLimitError::TooWide {
                gap,
                limit: self.gap,
            });
        }
        Ok(())
    }

    /// The body's flight from ground point `from` to ground point `to` (see
    /// `math::ballistic::jump_arc`).
    pub fn arc(&self, from: Vec3, to: Vec3) -> Ballistic {
        jump_arc(from, to, self.ride, JUMP_GRAVITY)
    }

    /// A crossing's cost (m of walking): its time at cruise speed.
    pub fn cost(&self, arc: &Ballistic) -> f32 {
        (arc.time + CROSSING_GROUND_TIME) * self.speed
    }
}

/// The `nav.jump` limit a jump breaks (see [`JumpSettings::allows`]).
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum JumpLimitError {
    /// It rises more than `nav.jump.up`.
    #[error("{up:.2} m up is more than nav.jump.up ({limit:.2})")]
    TooHigh {
        /// The rise, m.
        up: f32,
        /// `nav.jump.up`.
        limit: f32,
    },
    /// It drops more than `nav.jump.down`.
    #[error("{down:.2} m down is more than nav.jump.down ({limit:.2})")]
    TooDeep {
        /// The drop, m.
        down: f32,
        /// `nav.jump.down`.
        limit: f32,
    },
    /// Its gap is wider than `nav.jump.gap`.
    #[error("a {gap:.2} m gap is wider than nav.jump.gap ({limit:.2})")]
    TooWide {
        /// The gap between the ledges, m.
        gap: f32,
        /// `nav.jump.gap`.
        limit: f32,
    },
}

/// A link as a level gives it (`world.link`): kind numbers are the World's.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkInput {
    /// The World's number for it.
    pub id: u32,
    /// Where it starts and ends (put onto the mesh by the bake).
    pub from: Vec3,
    /// See `from`.
    pub to: Vec3,
    /// Its width across, m.
    pub width: f32,
    /// Its kind's number.
    pub kind: usize,
    /// Its cost (m of walking); `None`: its length plus a second at cruise (see `install`).
    pub cost: Option<f32>,
    /// Crossed both ways.
    pub bidirectional: bool,
}

/// Generated links' ids start here (a level's are below).
pub const GENERATED_ID: u32 = 1 << 31;

/// A link on one navmesh: two edges on the mesh (`start.0` leads to `end.0`).
#[derive(Clone, Debug, PartialEq)]
pub struct NavLink {
    /// The level's link number, or [`GENERATED_ID`] and up for one the bake found.
    pub id: u32,
    /// The edge it is taken from.
    pub start: (Vec3, Vec3),
    /// The edge it leads to.
    pub end: (Vec3, Vec3),
    /// Its kind's number.
    pub kind: usize,
    /// Its cost, m of walking.
    pub cost: f32,
    /// Crossed both ways.
    pub bidirectional: bool,
}

impl NavLink {
    /// The middle of its start edge and of its end edge.
    pub fn middle(&self) -> (Vec3, Vec3) {
        (
            (self.start.0 + self.start.1) * 0.5,
            (self.end.0 + self.end.1) * 0.5,
        )
    }
}

/// A bake's result: the mesh and its links.
pub struct Baked {
    /// The navmesh.
    pub mesh: NavMesh,
    /// The level's links put on it, then those it found.
    pub links: Vec<NavLink>,
}

/// Bakes `input` for `s`, puts the level's links on the mesh and finds links by itself
/// when `s` has jump limits.
pub fn bake(input: &NavInput, s: NavSettings) -> Result<Baked, BakeError> {
    let mesh = NavMesh::bake(input, s)?;
    let grid = PolyGrid::new(&mesh);
    let mut links: Vec<NavLink> = input
        .links
        .iter()
        .filter_map(|l| place(&mesh, &grid, l))
        .collect();
    if let Some(js) = s.jump {
        links.extend(generate(&mesh, &grid, input, &js, s.radius));
    }
    Ok(Baked { mesh, links })
}

/// A level's link put on `mesh`: both ends moved onto it (within 1.5 m), its edges
/// `width` across the way between. `None` when an end is off the mesh.
fn place(mesh: &NavMesh, grid: &PolyGrid, l: &LinkInput) -> Option<NavLink> {
    let a = grid.nearest(mesh, l.from, 1.5)?;
    let b = grid.nearest(mesh, l.to, 1.5)?;
    let way = horizontal(b - a);
    let across = Vec3::new(-way.z, 0.0, way.x).normalize_or(Vec3::X) * (0.5 * l.width);
    Some(NavLink {
        id: l.id,
        start: (a - across, a + across),
        end: (b - across, b + across),
        kind: l.kind,
        cost: l.cost.unwrap_or(a.distance(b) + 2.0),
        bidirectional: l.bidirectional,
    })
}

fn horizontal(v: Vec3) -> Vec3 {
    Vec3::new(v.x, 0.0, v.z)
}

/// The mesh's polygons by 1 m cells of their bounds.
struct PolyGrid {
    min: (f32, f32),
    nx: usize,
    nz: usize,
    cells: Vec<Vec<usize>>,
}

impl PolyGrid {
    const CELL: f32 = 1.0;

    fn new(mesh: &NavMesh) -> PolyGrid {
        let (mut lo, mut hi) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
        for v in &mesh.vertices {
            lo = lo.min(*v);
            hi = hi.max(*v);
        }
        if mesh.vertices.is_empty() {
            return PolyGrid {
                min: (0.0, 0.0),
                nx: 0,
                nz: 0,
                cells: Vec::new(),
            };
        }
        let nx = (((hi.x - lo.x) / Self::CELL) as usize + 1).min(4096);
        let nz = (((hi.z - lo.z) / Self::CELL) as usize + 1).min(4096);
        let mut g = PolyGrid {
            min: (lo.x, lo.z),
            nx,
            nz,
            cells: vec![Vec::new(); nx * nz],
        };
        for (i, _) in mesh.polygons.iter().enumerate() {
            let (mut a, mut b) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
            for p in mesh.polygon(i) {
                a = a.min(p);
                b = b.max(p);
            }
            let (x0, z0) = g.cell(a);
            let (x1, z1) = g.cell(b);
            for z in z0..=z1 {
                for x in x0..=x1 {
                    g.cells[z * nx + x].push(i);
                }
            }
        }
        g
    }

    fn cell(&self, p: Vec3) -> (usize, usize) {
        let x = ((p.x - self.min.0) / Self::CELL).floor().max(0.0) as usize;
        let z = ((p.z - self.min.1) / Self::CELL).floor().max(0.0) as usize;
        (x.min(self.nx - 1), z.min(self.nz - 1))
    }

    /// Polygons whose bounds' cells hold `p`.
    fn at(&self, p: Vec3) -> &[usize] {
        if self.nx == 0 {
            return &[];
        }
        let (x, z) = self.cell(p);
        &self.cells[z * self.nx + x]
    }

    /// The polygon under `p` (horizontally) whose height lies in `ys`, nearest `prefer` in
    /// height, with that height.
    fn under(&self, mesh: &NavMesh, p: Vec3, ys: (f32, f32), prefer: f32) -> Option<(usize, f32)> {
        let mut best: Option<(f32, usize, f32)> = None;
        for &i in self.at(p) {
            let pts: Vec<Vec3> = mesh.polygon(i).collect();
            if !inside_xz(&pts, p) {
                continue;
            }
            let y = pts.iter().map(|v| v.y).sum::<f32>() / pts.len() as f32;
            if y < ys.0 || y > ys.1 {
                continue;
            }
            let d = (y - prefer).abs();
            if best.is_none_or(|(bd, _, _)| d < bd) {
                best = Some((d, i, y));
            }
        }
        best.map(|(_, i, y)| (i, y))
    }

    /// The mesh point nearest `p` within `reach` m horizontally and 1.5 m in height.
    fn nearest(&self, mesh: &NavMesh, p: Vec3, reach: f32) -> Option<Vec3> {
        let mut best: Option<(f32, Vec3)> = None;
        let steps = (reach / Self::CELL).ceil() as i32;
        let mut seen = std::collections::BTreeSet::new();
        for dz in -steps..=steps {
            for dx in -steps..=steps {
                let q = p + Vec3::new(dx as f32, 0.0, dz as f32) * Self::CELL;
                for &i in self.at(q) {
                    if !seen.insert(i) {
                        continue;
                    }
                    let c = mesh.closest_in_polygon(i, p);
                    if (c.y - p.y).abs() > 1.5 || horizontal(c - p).length() > reach {
                        continue;
                    }
                    let d = c.distance_squared(p);
                    if best.is_none_or(|(bd, _)| d < bd) {
                        best = Some((d, c));
                    }
                }
            }
        }
        best.map(|(_, c)| c)
    }
}

/// One outward look that found somewhere to jump to.
#[derive(Clone, Copy)]
struct Found {
    edge: usize,
    from: Vec3,
    to: Vec3,
    kind: usize,
    cost: f32,
}

/// The links a bake finds by itself (see the module's notes), in a fixed order.
fn generate(
    mesh: &NavMesh,
    grid: &PolyGrid,
    input: &NavInput,
    js: &JumpSettings,
    radius: f32,
) -> Vec<NavLink> {
    let Ok(level) = TriMesh::new(input.vertices.clone(), input.triangles.clone()) else {
        return Vec::new();
    };
    let centres: Vec<Vec3> = (0..mesh.polygons.len())
        .map(|i| mesh.polygon(i).sum::<Vec3>() / mesh.polygons[i].len() as f32)
        .collect();
    let reach = js.gap + 2.0 * radius + 0.5;
    let mut found: Vec<Found> = Vec::new();
    let mut edge_no = 0usize;
    for (i, poly) in mesh.polygons.iter().enumerate() {
        for k in 0..poly.len() {
            if mesh.neighbours[i][k].is_some() {
                continue;
            }
            let (a, b) = (
                mesh.vertices[poly[k]],
                mesh.vertices[poly[(k + 1) % poly.len()]],
            );
            let along = horizontal(b - a);
            let len = along.length();
            edge_no += 1;
            if len < 0.2 {
                continue;
            }
            let mut out = Vec3::new(-along.z, 0.0, along.x) / len;
            if out.dot(horizontal((a + b) * 0.5 - centres[i])) < 0.0 {
                out = -out;
            }
            let n = (len / SAMPLE).floor().max(1.0) as usize;
            for j in 0..n {
                let p = a + (b - a) * ((j as f32 + 0.5) / n as f32);
                if let Some(f) =
                    look_out(mesh, grid, &centres, &level, js, radius, i, p, out, reach)
                {
                    found.push(Found { edge: edge_no, ..f });
                }
            }
        }
    }
    merge(&found)
}

/// From `p` on polygon `poly`'s outer edge, outward along `out`: the first mesh within the
/// limits that walking does not reach within a few times the run, if the arc there is clear.
#[allow(clippy::too_many_arguments)]
fn look_out(
    mesh: &NavMesh,
    grid: &PolyGrid,
    centres: &[Vec3],
    level: &TriMesh,
    js: &JumpSettings,
    radius: f32,
    poly: usize,
    p: Vec3,
    out: Vec3,
    reach: f32,
) -> Option<Found> {
    let ys = (p.y - js.down - 0.2, p.y + js.up + 0.2);
    let mut d = SEARCH_STEP;
    while d <= reach {
        let q = p + out * d;
        d += SEARCH_STEP;
        let Some((landing, y)) = grid.under(mesh, q, ys, p.y) else {
            continue;
        };
        if landing == poly {
            continue;
        }
        // Land a little inside, not on the rim (when the mesh goes on there).
        let mut to = Vec3::new(q.x, y, q.z);
        let inner = q + out * 0.3;
        if let Some((l2, y2)) = grid.under(mesh, inner, (y - 0.1, y + 0.1), y) {
            if l2 == landing || (y2 - y).abs() < 0.05 {
                to = Vec3::new(inner.x, y2, inner.z);
            }
        }
        let run = horizontal(to - p).length();
        if walkable_within(mesh, centres, poly, landing, 2.0 * run + 3.0) {
            // Walking gets there about as soon: keep looking further out.
            continue;
        }
        // The gap from the rim found (the mesh's erosion rounds to its cells: a step's
        // slack on each side).
        let rim = Vec3::new(q.x, y, q.z);
        if js.allows(p, rim, radius + SEARCH_STEP).is_err() {
            return None;
        }
        // The arc between the real ground points (the mesh floats up to a cell over them),
        // from the edge or, where the body would clip what it jumps onto (a block's face
        // close ahead), from a little further back on the mesh it stands on.
        let landing_at = ground_under(level, to);
        let (from, arc) = SETBACKS.iter().find_map(|back| {
            let from = p - out * *back;
            let on_mesh = *back == 0.0
                || grid
                    .under(mesh, from, (p.y - 0.15, p.y + 0.15), p.y)
                    .is_some_and(|(i, _)| i == poly || mesh.neighbours[poly].contains(&Some(i)));
            let arc = js.arc(ground_under(level, from), landing_at);
            (on_mesh && arc_clear(level, &arc, js)).then_some((from, arc))
        })?;
        let dy = to.y - p.y;
        let gap = (horizontal(rim - p).length() - 2.0 * radius).max(0.0);
        let kind = if dy > LEVEL {
            2
        } else if dy < -LEVEL && gap < DROP_GAP {
            1
        } else {
            0
        };
        return Some(Found {
            edge: 0,
            from,
            to,
            kind,
            cost: js.cost(&arc),
        });
    }
    None
}

/// The level's surface under a navmesh point (within 0.3 m above and below it), or the point.
fn ground_under(level: &TriMesh, p: Vec3) -> Vec3 {
    use rapier3d::parry::query::{Ray, RayCast};
    let ray = Ray::new(p + Vec3::Y * 0.3, Vec3::NEG_Y);
    match level.cast_local_ray(&ray, 0.6, true) {
        Some(t) => p + Vec3::Y * (0.3 - t),
        None => p,
    }
}

/// Whether polygon `to` is within `limit` m of walking from `from` (between centres).
fn walkable_within(mesh: &NavMesh, centres: &[Vec3], from: usize, to: usize, limit: f32) -> bool {
    let mut best: std::collections::BTreeMap<usize, f32> = Default::default();
    let mut todo = std::collections::BinaryHeap::new();
    best.insert(from, 0.0);
    todo.push(std::cmp::Reverse((0u32, from)));
    while let Some(std::cmp::Reverse((d, i))) = todo.pop() {
        let d = f32::from_bits(d);
        if i == to {
            return true;
        }
        if best.get(&i).is_some_and(|b| d > *b) {
            continue;
        }
        for j in mesh.neighbours[i].iter().flatten() {
            let nd = d + centres[i].distance(centres[*j]);
            if nd <= limit && best.get(j).is_none_or(|b| nd < *b) {
                best.insert(*j, nd);
                // Non-negative floats order as their bits do.
                todo.push(std::cmp::Reverse((nd.to_bits(), *j)));
            }
        }
    }
    false
}

/// The body flying `arc` as shape casts: per straight piece, a capsule along the body as it
/// flies there (its heading pitched by `math::ballistic::flight_pitch`, as the locomotor
/// draws it), its radius 2 cm over the body's to allow for the pieces' distance from the
/// curve, with the piece's start and motion.
pub(crate) fn arc_sweeps(arc: &Ballistic, js: &JumpSettings) -> Vec<(Capsule, Vec3, Vec3)> {
    let way = horizontal(arc.to - arc.from).normalize_or(Vec3::Z);
    let n = arc.pieces(0.02);
    let pts: Vec<Vec3> = arc.points(n).collect();
    pts.windows(2)
        .enumerate()
        .map(|(i, w)| {
            let t = arc.time * (i as f32 + 0.5) / n as f32;
            let axis = flight_axis(arc.velocity(t), way, t) * js.body_half;
            let capsule = Capsule::new(-axis, axis, js.body_radius + 0.02);
            (capsule, w[0], w[1] - w[0])
        })
        .collect()
}

/// Whether the body flies `arc` without touching `level` (see [`arc_sweeps`]).
fn arc_clear(level: &TriMesh, arc: &Ballistic, js: &JumpSettings) -> bool {
    let still = rapier3d::math::Pose::IDENTITY;
    arc_sweeps(arc, js).iter().all(|(capsule, at, motion)| {
        let pose = rapier3d::math::Pose::from_translation(*at);
        let opts = ShapeCastOptions::with_max_time_of_impact(1.0);
        !matches!(
            cast_shapes(&pose, *motion, capsule, &still, Vec3::ZERO, level, opts),
            Ok(Some(_))
        )
    })
}

/// Neighbouring looks along one outer edge with the same kind and landings side by side,
/// as one link as wide as they are (each look covers [`SAMPLE`] of the edge).
fn merge(found: &[Found]) -> Vec<NavLink> {
    let mut links = Vec::new();
    let mut i = 0;
    while i < found.len() {
        let mut j = i + 1;
        while j < found.len()
            && found[j].edge == found[i].edge
            && found[j].kind == found[i].kind
            && (found[j].to - found[j - 1].to).length() < 1.5 * SAMPLE + 0.2
        {
            j += 1;
        }
        let run = &found[i..j];
        let (first, last) = (run[0], run[run.len() - 1]);
        let tangent = if run.len() > 1 {
            (last.from - first.from).normalize_or_zero()
        } else {
            let out = horizontal(first.to - first.from).normalize_or(Vec3::Z);
            Vec3::new(-out.z, 0.0, out.x)
        };
        let half = tangent * (0.25 * SAMPLE);
        links.push(NavLink {
            id: GENERATED_ID + links.len() as u32,
            start: (first.from - half, last.from + half),
            end: (first.to - half, last.to + half),
            kind: first.kind,
            cost: run.iter().map(|f| f.cost).fold(0.0, f32::max),
            bidirectional: false,
        });
        i = j;
    }
    links
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spider_jump() -> JumpSettings {
        JumpSettings {
            gap: 1.5,
            up: 0.8,
            down: 2.0,
            ride: 0.35,
            body_radius: 0.11,
            body_half: 0.24,
            speed: 1.6,
        }
    }

    fn settings(jump: Option<JumpSettings>) -> NavSettings {
        NavSettings {
            radius: 0.5,
            height: 0.4,
            max_slope: 45.0,
            step_height: 0.3,
            jump,
        }
    }

    /// Two 6 m platforms 3 m tall, `gap` apart along x.
    fn platforms(gap: f32) -> NavInput {
        let mut input = NavInput::default();
        input.cuboid(
            Vec3::new(0.0, -1.5, 0.0),
            Vec3::new(3.0, 1.5, 3.0),
            glam::Quat::IDENTITY,
        );
        input.cuboid(
            Vec3::new(6.0 + gap, -1.5, 0.0),
            Vec3::new(3.0, 1.5, 3.0),
            glam::Quat::IDENTITY,
        );
        input
    }

    #[test]
    fn a_gap_within_the_limits_gets_jump_links_both_ways_and_a_wider_one_none() {
        let b = bake(&platforms(1.2), settings(Some(spider_jump()))).expect("bake");
        let jumps: Vec<&NavLink> = b.links.iter().filter(|l| l.kind == 0).collect();
        assert!(!jumps.is_empty(), "{:?}", b.links);
        assert!(b.links.iter().all(|l| l.kind == 0), "{:?}", b.links);
        let east = jumps.iter().filter(|l| l.end.0.x > l.start.0.x).count();
        let west = jumps.len() - east;
        assert!(east > 0 && west > 0, "{:?}", jumps);
        for l in &jumps {
            let (a, z) = l.middle();
            let run = horizontal(z - a).length();
            assert!((2.0..=2.9).contains(&run), "run {run}: {l:?}");
        }
        let wide = bake(&platforms(3.0), settings(Some(spider_jump()))).expect("bake");
        assert!(wide.links.is_empty(), "{:?}", wide.links);
        let none = bake(&platforms(1.2), settings(None)).expect("bake");
        assert!(none.links.is_empty());
    }

    #[test]
    fn a_ledge_gets_drop_links_down_and_a_low_block_hop_links_up() {
        let hound = JumpSettings {
            gap: 1.0,
            up: 0.8,
            down: 1.0,
            ride: 0.5,
            body_radius: 0.14,
            body_half: 0.285,
            speed: 1.3,
        };
        let mut input = NavInput::default();
        input.cuboid(
            Vec3::new(0.0, -0.5, 0.0),
            Vec3::new(10.0, 0.5, 10.0),
            glam::Quat::IDENTITY,
        );
        input.cuboid(
            Vec3::new(0.0, 0.3, 0.0),
            Vec3::new(1.5, 0.3, 1.5),
            glam::Quat::IDENTITY,
        );
        let b = bake(&input, settings(Some(hound))).expect("bake");
        let hops = b.links.iter().filter(|l| l.kind == 2).count();
        let drops = b.links.iter().filter(|l| l.kind == 1).count();
        assert!(
            hops >= 4 && drops >= 4,
            "{hops} hops, {drops} drops: {:?}",
            b.links
        );
    }
}
