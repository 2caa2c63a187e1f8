//! Navmesh baking with `rerecast` (Recast's pipeline: rasterize, filter, compact, erode,
//! regions, contours, polygons) from a triangle soup, for one set of agent settings; the
//! result is world-space convex polygons with their neighbours.

use glam::{UVec3, Vec3, Vec3A};
use rerecast::{AreaType, ConfigBuilder, HeightfieldBuilder, PolygonNavmesh, TriMesh};

/// The agent settings a navmesh is baked for (from a creature type's `nav` table).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NavSettings {
    /// Agent radius, m.
    pub radius: f32,
    /// Agent height, m.
    pub height: f32,
    /// Steepest walkable slope, degrees.
    pub max_slope: f32,
    /// Tallest step climbed, m.
    pub step_height: f32,
    /// Jump limits: the bake finds jump, drop and hop links within them (see `nav::links`).
    pub jump: Option<super::links::JumpSettings>,
}

impl NavSettings {
    /// A key equal for equal settings (bit patterns; the values are validated finite).
    pub fn key(&self) -> [u32; 12] {
        let mut k = [0u32; 12];
        k[..4].copy_from_slice(&[
            self.radius.to_bits(),
            self.height.to_bits(),
            self.max_slope.to_bits(),
            self.step_height.to_bits(),
        ]);
        if let Some(j) = &self.jump {
            k[4] = 1;
            k[5..].copy_from_slice(&j.key());
        }
        k
    }
}

/// Static geometry to bake from: world-space triangles.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NavInput {
    /// Vertices.
    pub vertices: Vec<Vec3>,
    /// Triangles (counter-clockwise seen from above for upward faces).
    pub triangles: Vec<[u32; 3]>,
    /// The level's links (`world.link`).
    pub links: Vec<super::links::LinkInput>,
    /// The solid boxes among the triangles (centre, half extents, rotation): Recast sees
    /// surfaces only, so the floor inside a hollow box tall enough for the agent would be
    /// walkable; the bake drops polygons inside these.
    pub solids: Vec<(Vec3, Vec3, glam::Quat)>,
}

impl NavInput {
    /// Appends a triangle facing `outward` (its winding is fixed to match).
    pub fn triangle(&mut self, a: Vec3, b: Vec3, c: Vec3, outward: Vec3) {
        let i = self.vertices.len() as u32;
        if (b - a).cross(c - a).dot(outward) >= 0.0 {
            self.vertices.extend([a, b, c]);
        } else {
            self.vertices.extend([a, c, b]);
        }
        self.triangles.push([i, i + 1, i + 2]);
    }

    /// Appends a quad (corners in order around it) facing `outward`.
    pub fn quad(&mut self, q: [Vec3; 4], outward: Vec3) {
        self.triangle(q[0], q[1], q[2], outward);
        self.triangle(q[0], q[2], q[3], outward);
    }

    /// Appends a solid box: centre, half extents, rotation.
    pub fn cuboid(&mut self, centre: Vec3, half: Vec3, rot: glam::Quat) {
        self.solids.push((centre, half, rot));
        let corner = |x: f32, y: f32, z: f32| centre + rot * (half * Vec3::new(x, y, z));
        for axis in 0..3 {
            for sign in [-1.0f32, 1.0] {
                let mut n = Vec3::ZERO;
                n[axis] = sign;
                let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
                let mut pts = [Vec3::ZERO; 4];
                for (k, (a, b)) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
                    .iter()
                    .enumerate()
                {
                    let mut c = Vec3::ZERO;
                    c[axis] = sign;
                    c[u] = *a;
                    c[v] = *b;
                    pts[k] = corner(c.x, c.y, c.z);
                }
                self.quad(pts, rot * n);
            }
        }
    }
}

/// A baked navmesh: convex polygons (world space) and which polygon lies across each edge.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NavMesh {
    /// Vertices, world space.
    pub vertices: Vec<Vec3>,
    /// Polygons as vertex indices, counter-clockwise seen from above (+Y).
    pub polygons: Vec<Vec<usize>>,
    /// Per polygon, per edge (from vertex k to k+1): the neighbour polygon, if any.
    pub neighbours: Vec<Vec<Option<usize>>>,
    /// The settings it was baked for.
    pub settings: Option<NavSettings>,
}

/// Why a bake failed.
#[derive(Debug, thiserror::Error)]
pub enum BakeError {
    /// Nothing to bake from.
    #[error("the level has no geometry to walk on")]
    Empty,
    /// A step of the pipeline failed.
    #[error("navmesh bake failed: {0}")]
    Pipeline(String),
    /// The mesh came out in a shape agents cannot use.
    #[error("the baked navmesh is not valid: {0}")]
    Invalid(String),
}

impl NavMesh {
    /// Bakes `input` for `settings`. A failure anywhere in the pipeline, a panic included,
    /// is an error, never a crash.
    pub fn bake(input: &NavInput, settings: NavSettings) -> Result<NavMesh, BakeError> {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            Self::bake_inner(input, settings)
        }))
        .unwrap_or_else(|_| Err(BakeError::Pipeline("the bake panicked".into())))
    }

    fn bake_inner(input: &NavInput, settings: NavSettings) -> Result<NavMesh, BakeError> {
        if input.triangles.is_empty() {
            return Err(BakeError::Empty);
        }
        let err = |e: &dyn std::fmt::Display| BakeError::Pipeline(e.to_string());
        let mut trimesh = TriMesh {
            vertices: input.vertices.iter().map(|v| Vec3A::from(*v)).collect(),
            indices: input
                .triangles
                .iter()
                .map(|t| UVec3::from_array(*t))
                .collect(),
            area_types: vec![AreaType::NOT_WALKABLE; input.triangles.len()],
        };
        let aabb = trimesh.compute_aabb().ok_or(BakeError::Empty)?;
        let config = ConfigBuilder {
            agent_radius: settings.radius,
            agent_height: settings.height,
            walkable_climb: settings.step_height,
            walkable_slope_angle: settings.max_slope.to_radians(),
            // Cells of a third of the radius across; finer heights so steps just under
            // `step_height` are not rounded up past it.
            cell_size_fraction: 3.0,
            cell_height_fraction: 6.0,
            aabb,
            ..ConfigBuilder::default()
        }
        .build();
        // Recast counts cells in u16: refuse a level too wide for this agent's cells.
        let cells =
            ((aabb.max.x - aabb.min.x).max(aabb.max.z - aabb.min.z) / config.cell_size).ceil();
        if !(cells < 30_000.0) {
            return Err(BakeError::Pipeline(format!(
                "the level is {:.0} m across: too wide for cells of {:.3} m (an agent of radius {})",
                (aabb.max.x - aabb.min.x).max(aabb.max.z - aabb.min.z),
                config.cell_size,
                settings.radius
            )));
        }
        trimesh.mark_walkable_triangles(config.walkable_slope_angle);
        let mut hf = HeightfieldBuilder {
            aabb,
            cell_size: config.cell_size,
            cell_height: config.cell_height,
        }
        .build()
        .map_err(|e| err(&e))?;
        hf.rasterize_triangles(&trimesh, config.walkable_climb)
            .map_err(|e| err(&e))?;
        hf.filter_low_hanging_walkable_obstacles(config.walkable_climb);
        hf.filter_ledge_spans(config.walkable_height, config.walkable_climb);
        hf.filter_walkable_low_height_spans(config.walkable_height);
        let mut chf = hf
            .into_compact(config.walkable_height, config.walkable_climb)
            .map_err(|e| err(&e))?;
        chf.erode_walkable_area(config.walkable_radius);
        chf.build_distance_field();
        chf.build_regions(
            config.border_size,
            config.min_region_area,
            config.merge_region_area,
        )
        .map_err(|e| err(&e))?;
        let contours = chf.build_contours(
            config.max_simplification_error,
            config.max_edge_len,
            config.contour_flags,
        );
        let poly = contours
            .into_polygon_mesh(config.max_vertices_per_polygon)
            .map_err(|e| err(&e))?;
        let mut mesh = Self::from_recast(&poly);
        mesh.settings = Some(settings);
        mesh.drop_inside(&input.solids);
        Ok(mesh)
    }

    /// Drops the polygons whose centre (a little above it) lies inside one of `solids`: the
    /// floor Recast finds inside a hollow box. Neighbours are renumbered; a dropped
    /// polygon's neighbours lose it.
    fn drop_inside(&mut self, solids: &[(Vec3, Vec3, glam::Quat)]) {
        let inside = |p: Vec3| {
            solids.iter().any(|(c, h, r)| {
                let l = r.inverse() * (p - *c);
                l.x.abs() < h.x && l.y.abs() < h.y && l.z.abs() < h.z
            })
        };
        let keep: Vec<bool> = (0..self.polygons.len())
            .map(|i| {
                let c = self.polygon(i).sum::<Vec3>() / self.polygons[i].len().max(1) as f32;
                !inside(c + Vec3::Y * 0.05)
            })
            .collect();
        if keep.iter().all(|k| *k) {
            return;
        }
        let mut new_index = vec![None; keep.len()];
        let mut n = 0;
        for (i, k) in keep.iter().enumerate() {
            if *k {
                new_index[i] = Some(n);
                n += 1;
            }
        }
        let (polygons, neighbours) = (
            std::mem::take(&mut self.polygons),
            std::mem::take(&mut self.neighbours),
        );
        for ((poly, nb), k) in polygons.into_iter().zip(neighbours).zip(&keep) {
            if *k {
                self.polygons.push(poly);
                self.neighbours.push(
                    nb.into_iter()
                        .map(|o| o.and_then(|j| new_index[j]))
                        .collect(),
                );
            }
        }
    }

    fn from_recast(p: &PolygonNavmesh) -> NavMesh {
        let origin = p.aabb.min;
        let vertices = p
            .vertices
            .iter()
            .map(|v| {
                origin
                    + Vec3::new(
                        v.x as f32 * p.cell_size,
                        v.y as f32 * p.cell_height,
                        v.z as f32 * p.cell_size,
                    )
            })
            .collect();
        let nvp = p.max_vertices_per_polygon as usize;
        let mut polygons = Vec::new();
        let mut neighbours = Vec::new();
        for i in 0..p.polygon_count() {
            let idx = &p.polygons[i * nvp..(i + 1) * nvp];
            let nb = &p.polygon_neighbors[i * nvp..(i + 1) * nvp];
            let n = idx
                .iter()
                .position(|v| *v == PolygonNavmesh::NO_INDEX)
                .unwrap_or(nvp);
            polygons.push(idx[..n].iter().map(|v| *v as usize).collect());
            // Recast's neighbour entries: a polygon index, or a border marker (high bit).
            neighbours.push(
                nb[..n]
                    .iter()
                    .map(|v| (*v & 0x8000 == 0).then_some(*v as usize))
                    .collect(),
            );
        }
        NavMesh {
            vertices,
            polygons,
            neighbours,
            settings: None,
        }
    }

    /// The corners of polygon `i`.
    pub fn polygon(&self, i: usize) -> impl Iterator<Item = Vec3> + '_ {
        self.polygons[i].iter().map(|v| self.vertices[*v])
    }

    /// Horizontal area of polygon `i`, m².
    pub fn area(&self, i: usize) -> f32 {
        let pts: Vec<Vec3> = self.polygon(i).collect();
        let mut a = 0.0;
        for k in 0..pts.len() {
            let (p, q) = (pts[k], pts[(k + 1) % pts.len()]);
            a += p.x * q.z - q.x * p.z;
        }
        (a * 0.5).abs()
    }

    /// Total walkable area, m².
    pub fn total_area(&self) -> f32 {
        (0..self.polygons.len()).map(|i| self.area(i)).sum()
    }

    /// The polygon containing `p` (by its horizontal position, nearest in height), if any.
    pub fn polygon_at(&self, p: Vec3, max_dy: f32) -> Option<usize> {
        let mut best: Option<(f32, usize)> = None;
        for i in 0..self.polygons.len() {
            let pts: Vec<Vec3> = self.polygon(i).collect();
            if !inside_xz(&pts, p) {
                continue;
            }
            let y = pts.iter().map(|v| v.y).sum::<f32>() / pts.len() as f32;
            let dy = (y - p.y).abs();
            if dy <= max_dy && best.is_none_or(|(d, _)| dy < d) {
                best = Some((dy, i));
            }
        }
        best.map(|(_, i)| i)
    }

    /// Polygons reachable from polygon `start` through shared edges.
    pub fn connected(&self, start: usize) -> Vec<bool> {
        let mut seen = vec![false; self.polygons.len()];
        let mut todo = vec![start];
        while let Some(i) = todo.pop() {
            if i >= seen.len() || seen[i] {
                continue;
            }
            seen[i] = true;
            todo.extend(self.neighbours[i].iter().flatten().copied());
        }
        seen
    }

    /// The point of polygon `i` closest to `p` horizontally (its height from the polygon).
    pub fn closest_in_polygon(&self, i: usize, p: Vec3) -> Vec3 {
        let pts: Vec<Vec3> = self.polygon(i).collect();
        let y = pts.iter().map(|v| v.y).sum::<f32>() / pts.len() as f32;
        if inside_xz(&pts, p) {
            return Vec3::new(p.x, y, p.z);
        }
        let mut best = (f32::MAX, pts[0]);
        for k in 0..pts.len() {
            let (a, b) = (pts[k], pts[(k + 1) % pts.len()]);
            let ab = Vec3::new(b.x - a.x, 0.0, b.z - a.z);
            let ap = Vec3::new(p.x - a.x, 0.0, p.z - a.z);
            let t = (ap.dot(ab) / ab.length_squared().max(1e-12)).clamp(0.0, 1.0);
            let q = a + (b - a) * t;
            let d = Vec3::new(q.x - p.x, 0.0, q.z - p.z).length_squared();
            if d < best.0 {
                best = (d, q);
            }
        }
        best.1
    }
}

/// Whether `p` is inside the convex polygon `pts` on the XZ plane (either winding).
pub(crate) fn inside_xz(pts: &[Vec3], p: Vec3) -> bool {
    let mut sign = 0.0f32;
    for k in 0..pts.len() {
        let (a, b) = (pts[k], pts[(k + 1) % pts.len()]);
        let c = (b.x - a.x) * (p.z - a.z) - (b.z - a.z) * (p.x - a.x);
        if c.abs() < 1e-9 {
            continue;
        }
        if sign == 0.0 {
            sign = c.signum();
        } else if c.signum() != sign {
            return false;
        }
    }
    true
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// [`floor_with_wall`] baked for agents of radius 0.4.
    pub(crate) fn baked_floor_with_wall() -> NavMesh {
        let s = NavSettings {
            radius: 0.4,
            height: 0.5,
            max_slope: 45.0,
            step_height: 0.3,
            jump: None,
        };
        NavMesh::bake(&floor_with_wall(), s).expect("bake")
    }

    /// A flat 20 × 20 floor with a wall across the middle, a gap at one end.
    pub(crate) fn floor_with_wall() -> NavInput {
        let mut input = NavInput::default();
        let s = 10.0;
        input.quad(
            [
                Vec3::new(-s, 0.0, -s),
                Vec3::new(s, 0.0, -s),
                Vec3::new(s, 0.0, s),
                Vec3::new(-s, 0.0, s),
            ],
            Vec3::Y,
        );
        // A wall from x = -10 to 6 at z in [-0.5, 0.5], 2 m tall.
        input.cuboid(
            Vec3::new(-2.0, 1.0, 0.0),
            Vec3::new(8.0, 1.0, 0.5),
            glam::Quat::IDENTITY,
        );
        input
    }

    #[test]
    fn bakes_a_floor_around_a_wall() {
        let s = NavSettings {
            radius: 0.4,
            height: 0.5,
            max_slope: 45.0,
            step_height: 0.3,
            jump: None,
        };
        let m = NavMesh::bake(&floor_with_wall(), s).expect("bakes");
        assert!(!m.polygons.is_empty());
        // The floor minus the wall and the eroded rims: most of 400 m².
        let area = m.total_area();
        assert!(area > 300.0 && area < 400.0, "area {area}");
        let a = m
            .polygon_at(Vec3::new(0.0, 0.0, -5.0), 0.5)
            .expect("south side");
        let b = m
            .polygon_at(Vec3::new(0.0, 0.0, 5.0), 0.5)
            .expect("north side");
        assert!(m.connected(a)[b], "connected through the gap");
        assert!(
            m.polygon_at(Vec3::new(0.0, 0.0, 0.0), 0.5).is_none(),
            "no floor under the wall"
        );
        assert!(NavMesh::bake(&NavInput::default(), s).is_err());
        // A level far too wide for the cells is an error, not a crash.
        let mut huge = NavInput::default();
        let w = 20_000.0;
        huge.quad(
            [
                Vec3::new(-w, 0.0, -w),
                Vec3::new(w, 0.0, -w),
                Vec3::new(w, 0.0, w),
                Vec3::new(-w, 0.0, w),
            ],
            Vec3::Y,
        );
        assert!(NavMesh::bake(&huge, s).is_err());
    }
}
