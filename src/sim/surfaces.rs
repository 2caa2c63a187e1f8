//! The surface graph climbers of walls are routed on: points on every surface of the static
//! level (floors, walls, tops, ceilings), sampled on a lattice and joined to their
//! neighbours where the way between them keeps to the surfaces; baked from the level's
//! colliders when a climber first needs a route on a level, kept until the level changes.
//! A route is an A* search on it, over the points whose faces the climber can stand on.

use std::collections::{BinaryHeap, HashMap};

use glam::Vec3;

use crate::locomotion::{GroundHit, GroundQuery};

/// Lattice spacing (m).
const SPACING: f32 = 0.5;
/// A lattice point this near a surface (a share of the spacing) samples it: every face has a
/// layer of the lattice outside it within the spacing.
const SAMPLE_NEAR: f32 = 1.0;
/// Points further apart than this (a share of the spacing) are not joined.
const JOIN_WITHIN: f32 = 1.75;
/// The way between two joined points keeps this near a surface (a share of the spacing).
const KEEP_NEAR: f32 = 0.45;
/// The lattice's offset from the level's corner (a share of the spacing along each axis).
const LATTICE_SHIFT: Vec3 = Vec3::new(0.137, 0.171, 0.113);
/// How far a joined pair's middle is lifted along their faces' ways out (a share of the
/// spacing, per unit of their sum).
const LIFT: f32 = 0.3;
/// The level's extent sampled, at most (m, along each axis).
const MAX_EXTENT: f32 = 200.0;

/// A point on a surface.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Node {
    /// Where, on the surface.
    pub(crate) at: Vec3,
    /// The way out of the surface there.
    pub(crate) normal: Vec3,
}

/// Points on the level's surfaces and their neighbours.
#[derive(Clone, Debug, Default)]
pub(crate) struct SurfaceGraph {
    nodes: Vec<Node>,
    /// Neighbours of each node and the distance to each.
    edges: Vec<Vec<(u32, f32)>>,
    /// Nodes by lattice cell (of [`SPACING`]).
    cells: HashMap<(i32, i32, i32), Vec<u32>>,
}

fn cell_of(p: Vec3) -> (i32, i32, i32) {
    let c = (p / SPACING).floor();
    (c.x as i32, c.y as i32, c.z as i32)
}

/// Whether `p` lies outside the solid whose surface point nearest it is `hit`.
fn outside(p: Vec3, hit: &GroundHit) -> bool {
    (p - hit.point).dot(hit.normal) >= -1e-4
}

impl SurfaceGraph {
    /// The graph of the level `ground` answers for, within `min`..`max` (the level's
    /// bounds).
    /// `under` tells the points inside the ground's earth (under a heightfield), which
    /// neither sample a surface nor join two.
    pub(crate) fn bake(
        ground: &impl GroundQuery,
        under: &dyn Fn(Vec3) -> bool,
        min: Vec3,
        max: Vec3,
    ) -> SurfaceGraph {
        let mut g = SurfaceGraph::default();
        let max = max.min(min + Vec3::splat(MAX_EXTENT));
        let n = ((max - min) / SPACING).ceil().max(Vec3::ZERO);
        let (nx, ny, nz) = (n.x as i32 + 2, n.y as i32 + 2, n.z as i32 + 2);
        for i in -1..nx {
            for k in -1..nz {
                for j in -1..ny {
                    // Off the round numbers levels are built on: a lattice point on a face
                    // has no way out of its own to measure.
                    let p =
                        min + (Vec3::new(i as f32, j as f32, k as f32) + LATTICE_SHIFT) * SPACING;
                    let Some(hit) = ground.nearest(p, SAMPLE_NEAR * SPACING) else {
                        continue;
                    };
                    if !outside(p, &hit)
                        || !hit.point.is_finite()
                        || p.distance(hit.point) < 1e-3
                        || under(p)
                    {
                        continue;
                    }
                    // One point per cell of the spacing: the first found.
                    let cell = cell_of(hit.point);
                    if g.cells.get(&cell).is_some_and(|v| !v.is_empty()) {
                        continue;
                    }
                    let id = g.nodes.len() as u32;
                    g.nodes.push(Node {
                        at: hit.point,
                        normal: hit.normal,
                    });
                    g.cells.entry(cell).or_default().push(id);
                }
            }
        }
        g.edges = vec![Vec::new(); g.nodes.len()];
        let reach = JOIN_WITHIN * SPACING;
        for a in 0..g.nodes.len() {
            let pa = g.nodes[a].at;
            let (ci, cj, ck) = cell_of(pa);
            for di in -2..=2 {
                for dj in -2..=2 {
                    for dk in -2..=2 {
                        let Some(list) = g.cells.get(&(ci + di, cj + dj, ck + dk)) else {
                            continue;
                        };
                        for &b in list {
                            let b = b as usize;
                            if b <= a {
                                continue;
                            }
                            let pb = g.nodes[b].at;
                            let d = pa.distance(pb);
                            if d > reach || d < 1e-4 {
                                continue;
                            }
                            // The way between keeps to the surfaces: its middle, lifted off
                            // them (a chord across a convex edge cuts through its corner), is
                            // outside every solid and near one. Two sides of a wall thinner
                            // than the spacing lift it nowhere: it stays inside, unjoined.
                            let mid = (pa + pb) * 0.5
                                + (g.nodes[a].normal + g.nodes[b].normal) * (LIFT * SPACING);
                            let near = ground.nearest(mid, (KEEP_NEAR + 2.0 * LIFT) * SPACING);
                            if near.is_some_and(|h| outside(mid, &h)) && !under(mid) {
                                g.edges[a].push((b as u32, d));
                                g.edges[b].push((a as u32, d));
                            }
                        }
                    }
                }
            }
        }
        g
    }

    /// How many points it has.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.nodes.len()
    }

    /// The node nearest `p` within `within` whose face is within `min_cos` of level.
    fn nearest_node(&self, p: Vec3, within: f32, min_cos: f32) -> Option<u32> {
        let (ci, cj, ck) = cell_of(p);
        let r = (within / SPACING).ceil() as i32;
        let mut best: Option<(f32, u32)> = None;
        for di in -r..=r {
            for dj in -r..=r {
                for dk in -r..=r {
                    let Some(list) = self.cells.get(&(ci + di, cj + dj, ck + dk)) else {
                        continue;
                    };
                    for &id in list {
                        let node = &self.nodes[id as usize];
                        let d = node.at.distance(p);
                        if d <= within
                            && node.normal.y >= min_cos
                            && best.is_none_or(|(bd, bid)| (d, id) < (bd, bid))
                        {
                            best = Some((d, id));
                        }
                    }
                }
            }
        }
        best.map(|(_, id)| id)
    }

    /// The shortest way over the surfaces from `from` to `to` (points on or near them),
    /// through points whose faces are no steeper than `max_angle` degrees and which are
    /// `roomy` (the climber's body fits over them): its points, the last `to`'s own node;
    /// `None` when either end is off the graph or nothing joins them.
    pub(crate) fn route(
        &self,
        from: Vec3,
        to: Vec3,
        max_angle: f32,
        roomy: &dyn Fn(&Node) -> bool,
    ) -> Option<Vec<Node>> {
        let min_cos = max_angle.to_radians().cos() - 1e-4;
        let start = self.nearest_node(from, 1.0, min_cos)?;
        let goal = self.nearest_node(to, 1.0, min_cos)?;
        let target = self.nodes[goal as usize].at;
        // A* with the straight distance as the estimate; ties broken by node id, so the
        // route depends on nothing but the graph.
        #[derive(PartialEq)]
        struct Open(f32, u32);
        impl Eq for Open {}
        impl PartialOrd for Open {
            fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
                Some(self.cmp(o))
            }
        }
        impl Ord for Open {
            fn cmp(&self, o: &Self) -> std::cmp::Ordering {
                o.0.total_cmp(&self.0).then(o.1.cmp(&self.1))
            }
        }
        let mut best = vec![f32::INFINITY; self.nodes.len()];
        let mut came: Vec<u32> = vec![u32::MAX; self.nodes.len()];
        let mut open = BinaryHeap::new();
        best[start as usize] = 0.0;
        open.push(Open(self.nodes[start as usize].at.distance(target), start));
        while let Some(Open(_, a)) = open.pop() {
            if a == goal {
                let mut path = vec![self.nodes[goal as usize]];
                let mut at = goal;
                while at != start {
                    at = came[at as usize];
                    path.push(self.nodes[at as usize]);
                }
                path.reverse();
                return Some(path);
            }
            let ga = best[a as usize];
            for &(b, d) in &self.edges[a as usize] {
                let node = &self.nodes[b as usize];
                if node.normal.y < min_cos || (b != goal && !roomy(node)) {
                    continue;
                }
                let gb = ga + d;
                if gb < best[b as usize] {
                    best[b as usize] = gb;
                    came[b as usize] = a;
                    open.push(Open(gb + node.at.distance(target), b));
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::locomotion::FlatGround;

    #[test]
    fn a_flat_floor_routes_straight_and_a_route_ends_at_its_goal() {
        let g = SurfaceGraph::bake(
            &FlatGround(0.0),
            &|p: Vec3| p.y < 0.0,
            Vec3::new(-3.0, -0.5, -3.0),
            Vec3::new(3.0, 0.5, 3.0),
        );
        assert!(g.len() > 100, "{} points", g.len());
        let from = Vec3::new(-2.5, 0.0, -2.0);
        let to = Vec3::new(2.5, 0.0, 2.0);
        let room = |_: &Node| true;
        let r = g.route(from, to, 180.0, &room).expect("a route");
        let length: f32 = r.windows(2).map(|w| w[0].at.distance(w[1].at)).sum();
        let straight = from.distance(to);
        assert!(length < 1.1 * straight, "{length} m for {straight} m");
        assert!(r.last().expect("end").at.distance(to) < 0.5);
        assert!(r.iter().all(|n| n.at.y.abs() < 1e-4 && n.normal == Vec3::Y));
        // Level faces are 0° steep: a climber of the gentlest slopes has its way too.
        assert!(g.route(from, to, 0.0001, &room).is_some());
        assert!(
            g.route(from, Vec3::new(2.5, 5.0, 2.0), 180.0, &room)
                .is_none(),
            "off the graph"
        );
        // No room for its body anywhere but at the ends: no way between.
        assert!(g.route(from, to, 180.0, &|_: &Node| false).is_none());
    }
}
