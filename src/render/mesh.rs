//! Procedural meshes: unit sphere, unit cube, capsule template, and the ground grid.

use bytemuck::{Pod, Zeroable};
use glam::Vec3;

use crate::sim::level::GroundGrid;

/// Position and normal.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub(crate) struct Vertex {
    /// Position.
    pub pos: [f32; 3],
    /// Normal.
    pub normal: [f32; 3],
}

/// A capsule template vertex: unit offset direction (y along the axis) and which end.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub(crate) struct CapsuleVertex {
    /// Unit direction from the axis.
    pub offset: [f32; 3],
    /// 0 at end a, 1 at end b.
    pub t: f32,
}

/// Indexed triangles.
#[derive(Clone, Debug, Default)]
pub(crate) struct Mesh<V> {
    /// Vertices.
    pub vertices: Vec<V>,
    /// Triangle indices.
    pub indices: Vec<u32>,
}

/// A UV sphere of radius 1.
pub(crate) fn sphere(rings: u32, segments: u32) -> Mesh<Vertex> {
    let mut m = Mesh::default();
    for r in 0..=rings {
        let phi = std::f32::consts::PI * r as f32 / rings as f32;
        for s in 0..=segments {
            let th = std::f32::consts::TAU * s as f32 / segments as f32;
            let p = [phi.sin() * th.cos(), phi.cos(), phi.sin() * th.sin()];
            m.vertices.push(Vertex { pos: p, normal: p });
        }
    }
    let w = segments + 1;
    for r in 0..rings {
        for s in 0..segments {
            let (a, b) = (r * w + s, (r + 1) * w + s);
            m.indices.extend_from_slice(&[a, a + 1, b, a + 1, b + 1, b]);
        }
    }
    m
}

/// A cube from −0.5 to 0.5.
pub(crate) fn cube() -> Mesh<Vertex> {
    let mut m = Mesh::default();
    let faces = [
        (Vec3::X, Vec3::Y, Vec3::Z),
        (Vec3::NEG_X, Vec3::Y, Vec3::NEG_Z),
        (Vec3::Y, Vec3::Z, Vec3::X),
        (Vec3::NEG_Y, Vec3::NEG_Z, Vec3::X),
        (Vec3::Z, Vec3::Y, Vec3::NEG_X),
        (Vec3::NEG_Z, Vec3::Y, Vec3::X),
    ];
    for (n, u, v) in faces {
        let base = m.vertices.len() as u32;
        for (a, b) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
            let p = (n + u * a + v * b) * 0.5;
            m.vertices.push(Vertex {
                pos: p.to_array(),
                normal: n.to_array(),
            });
        }
        // Counter-clockwise seen from outside.
        let ccw = (u.cross(v)).dot(n) > 0.0;
        if ccw {
            m.indices
                .extend_from_slice(&[base, base + 1, base + 2, base, base + 2, base + 3]);
        } else {
            m.indices
                .extend_from_slice(&[base, base + 2, base + 1, base, base + 3, base + 2]);
        }
    }
    m
}

/// A capsule template: two hemispheres (t = 0 below, t = 1 above) joined by a tube.
pub(crate) fn capsule(rings_per_cap: u32, segments: u32) -> Mesh<CapsuleVertex> {
    let mut m = Mesh::default();
    // Rows from the bottom pole (phi = π) to the top pole (phi = 0); the equator row is doubled
    // (once for each end) to make the tube.
    let mut rows: Vec<(f32, f32)> = Vec::new();
    for r in 0..=rings_per_cap {
        rows.push((
            std::f32::consts::PI - std::f32::consts::FRAC_PI_2 * r as f32 / rings_per_cap as f32,
            0.0,
        ));
    }
    for r in 0..=rings_per_cap {
        rows.push((
            std::f32::consts::FRAC_PI_2 * (1.0 - r as f32 / rings_per_cap as f32),
            1.0,
        ));
    }
    for (phi, t) in &rows {
        for s in 0..=segments {
            let th = std::f32::consts::TAU * s as f32 / segments as f32;
            m.vertices.push(CapsuleVertex {
                offset: [phi.sin() * th.cos(), phi.cos(), phi.sin() * th.sin()],
                t: *t,
            });
        }
    }
    let w = segments + 1;
    for r in 0..rows.len() as u32 - 1 {
        for s in 0..segments {
            let (a, b) = (r * w + s, (r + 1) * w + s);
            m.indices.extend_from_slice(&[a, b, a + 1, a + 1, b, b + 1]);
        }
    }
    m
}

/// The ground heightfield as triangles, with smooth normals.
pub(crate) fn ground(g: &GroundGrid) -> Mesh<Vertex> {
    let mut m = Mesh::default();
    let h = |ix: usize, iz: usize| g.heights[iz.min(g.nz - 1) * g.nx + ix.min(g.nx - 1)];
    for iz in 0..g.nz {
        for ix in 0..g.nx {
            let p = g.origin + Vec3::new(ix as f32 * g.dx, h(ix, iz), iz as f32 * g.dz);
            let (l, r) = (h(ix.saturating_sub(1), iz), h(ix + 1, iz));
            let (d, u) = (h(ix, iz.saturating_sub(1)), h(ix, iz + 1));
            let n = Vec3::new((l - r) / (2.0 * g.dx), 1.0, (d - u) / (2.0 * g.dz)).normalize();
            m.vertices.push(Vertex {
                pos: p.to_array(),
                normal: n.to_array(),
            });
        }
    }
    for iz in 0..g.nz as u32 - 1 {
        for ix in 0..g.nx as u32 - 1 {
            let a = iz * g.nx as u32 + ix;
            let b = a + g.nx as u32;
            m.indices.extend_from_slice(&[a, b, a + 1, a + 1, b, b + 1]);
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meshes_are_well_formed() {
        for m in [sphere(8, 12), cube()] {
            assert!(m.indices.iter().all(|i| (*i as usize) < m.vertices.len()));
            assert_eq!(m.indices.len() % 3, 0);
        }
        let c = capsule(4, 10);
        assert!(c.indices.iter().all(|i| (*i as usize) < c.vertices.len()));
        // Every triangle faces outward (counter-clockwise seen from outside).
        let outward = |pts: Vec<[Vec3; 3]>, what: &str| {
            for p in pts {
                let n = (p[1] - p[0]).cross(p[2] - p[0]);
                if n.length() < 1e-6 {
                    continue;
                }
                let centre = (p[0] + p[1] + p[2]) / 3.0;
                assert!(n.dot(centre) > 0.0, "{what}: inward face");
            }
        };
        let tris = |m: &Mesh<Vertex>| {
            m.indices
                .chunks(3)
                .map(|t| [0, 1, 2].map(|k| Vec3::from(m.vertices[t[k] as usize].pos)))
                .collect::<Vec<_>>()
        };
        outward(tris(&cube()), "cube");
        outward(tris(&sphere(8, 12)), "sphere");
        // Capsule: place the ends at y = ±1 to check it as a solid.
        let cap: Vec<[Vec3; 3]> = c
            .indices
            .chunks(3)
            .map(|t| {
                [0, 1, 2].map(|k| {
                    let v = c.vertices[t[k] as usize];
                    Vec3::from(v.offset) + Vec3::Y * (v.t * 2.0 - 1.0)
                })
            })
            .collect();
        outward(cap, "capsule");
    }
}
