//! Levels of detail of a skinned mesh: coarser triangle lists made by edge collapse
//! (meshoptimizer's simplifier, on the bind pose), each with the vertices it still uses and
//! fewer joint influences per vertex, and the largest distance, in scene units, between it and
//! the full mesh — so a renderer can pick, per creature and per frame, the coarsest level whose
//! error covers less than a pixel.
//!
//! Skinning seams are kept: a vertex whose triangles reach a vertex that another joint moves
//! most is locked, so a collapse never drags skin from one bone onto another (a knee's ring
//! stays on the knee when the leg bends). Attribute seams (UV or colour splits, hard normals)
//! are kept by the simplifier itself; normals weigh in its error.

use meshopt::{SimplifyOptions, VertexDataAdapter};

/// Fraction of the full mesh's triangles each coarser level aims for.
pub const LOD_RATIOS: [f32; 3] = [0.5, 0.25, 0.12];
/// Joint influences a vertex keeps at each coarser level (the full mesh keeps its four).
pub const LOD_INFLUENCES: [usize; 3] = [2, 1, 1];
/// Largest error a level may have, as a fraction of the mesh's extent: a coarser target that
/// would cost more stops short of its triangle count.
const MAX_RELATIVE_ERROR: f32 = 0.04;

/// One coarser level of a mesh.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshLod {
    /// For each vertex of this level, the full mesh's vertex it is.
    pub vertices: Vec<u32>,
    /// The triangle list, indexing `vertices`.
    pub indices: Vec<u32>,
    /// Joint influences kept per vertex (the strongest, renormalised: [`prune_influences`]).
    pub influences: usize,
    /// The largest distance between this level's surface and the full mesh, scene units.
    pub error: f32,
}

/// The coarser levels of a mesh (bind-pose `positions`, `normals`, per-vertex `joints` and
/// `weights`, triangle list `indices`), finest first, one per [`LOD_RATIOS`]: a level that
/// could not lose triangles repeats the one before it (its count and error), so every mesh of
/// a model has as many levels as every other.
pub fn mesh_lods(
    positions: &[[f32; 3]],
    normals: &[[f32; 3]],
    joints: &[[u16; 4]],
    weights: &[[f32; 4]],
    indices: &[u32],
) -> Vec<MeshLod> {
    let n = positions.len();
    let Ok(adapter) = VertexDataAdapter::new(bytemuck::cast_slice(positions), 12, 0) else {
        return Vec::new();
    };
    let scale = meshopt::simplify_scale(&adapter);
    let locks = seam_locks(joints, weights, indices, n);
    let mut attributes = Vec::with_capacity(n * 3);
    for i in 0..n {
        attributes.extend_from_slice(&normals.get(i).copied().unwrap_or([0.0, 1.0, 0.0]));
    }
    let mut out: Vec<MeshLod> = Vec::new();
    let mut source = indices.to_vec();
    let mut carried = 0.0f32;
    for (k, &ratio) in LOD_RATIOS.iter().enumerate() {
        let target = ((indices.len() as f32 * ratio) as usize / 3 * 3).max(3);
        let prune = if k == 0 {
            SimplifyOptions::None
        } else {
            SimplifyOptions::Prune
        };
        let run = |options: SimplifyOptions, error: &mut f32| {
            meshopt::simplify_with_attributes_and_locks(
                &source,
                &adapter,
                &attributes,
                &[0.25, 0.25, 0.25],
                12,
                &locks,
                target,
                MAX_RELATIVE_ERROR,
                options,
                Some(error),
            )
        };
        let mut error = 0.0f32;
        let mut simplified = run(prune, &mut error);
        // A mesh split at every triangle (flat shading, a UV island per face) has nothing
        // but seams: only collapses across them reduce it.
        if simplified.len() * 10 > source.len() * 9 {
            let mut e = 0.0f32;
            let across = run(prune | SimplifyOptions::Permissive, &mut e);
            if across.len() < simplified.len() {
                (simplified, error) = (across, e);
            }
        }
        // Each level simplifies the one before: errors add up (an upper bound).
        carried += error * scale;
        if !simplified.is_empty() {
            source = simplified;
        }
        out.push(compact(&source, LOD_INFLUENCES[k], carried));
    }
    out
}

/// `indices` renumbered over only the vertices they use, in first-use order.
fn compact(indices: &[u32], influences: usize, error: f32) -> MeshLod {
    let mut map = std::collections::HashMap::new();
    let mut vertices = Vec::new();
    let indices = indices
        .iter()
        .map(|&v| {
            *map.entry(v).or_insert_with(|| {
                vertices.push(v);
                vertices.len() as u32 - 1
            })
        })
        .collect();
    MeshLod {
        vertices,
        indices,
        influences,
        error,
    }
}

/// The joint that moves a vertex most.
fn dominant(joints: &[u16; 4], weights: &[f32; 4]) -> u16 {
    let mut best = 0;
    for i in 1..4 {
        if weights[i] > weights[best] {
            best = i;
        }
    }
    joints[best]
}

/// Vertices on a skinning seam: those sharing a triangle with a vertex another joint
/// dominates.
fn seam_locks(joints: &[[u16; 4]], weights: &[[f32; 4]], indices: &[u32], n: usize) -> Vec<bool> {
    let owner: Vec<u16> = (0..n)
        .map(|i| match (joints.get(i), weights.get(i)) {
            (Some(j), Some(w)) => dominant(j, w),
            _ => 0,
        })
        .collect();
    let mut locks = vec![false; n];
    for t in indices.chunks_exact(3) {
        let [a, b, c] = [t[0] as usize, t[1] as usize, t[2] as usize];
        if a >= n || b >= n || c >= n {
            continue;
        }
        if owner[a] != owner[b] || owner[b] != owner[c] {
            locks[a] = true;
            locks[b] = true;
            locks[c] = true;
        }
    }
    locks
}

/// A vertex's joint influences sorted strongest first, only the `keep` strongest kept and
/// renormalised to sum to 1 (the others' weights 0). Sorting changes nothing a shader sums;
/// it lets one stop at the first zero weight.
pub fn prune_influences(joints: [u16; 4], weights: [f32; 4], keep: usize) -> ([u16; 4], [f32; 4]) {
    let mut order = [0usize, 1, 2, 3];
    order.sort_by(|a, b| weights[*b].total_cmp(&weights[*a]));
    let mut j = [0u16; 4];
    let mut w = [0f32; 4];
    for (slot, &i) in order.iter().enumerate().take(keep.clamp(1, 4)) {
        j[slot] = joints[i];
        w[slot] = weights[i].max(0.0);
    }
    let sum: f32 = w.iter().sum();
    if sum > 0.0 {
        for x in &mut w {
            *x /= sum;
        }
    } else {
        w = [1.0, 0.0, 0.0, 0.0];
    }
    (j, w)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Positions, normals, joints, weights, indices.
    type Mesh = (
        Vec<[f32; 3]>,
        Vec<[f32; 3]>,
        Vec<[u16; 4]>,
        Vec<[f32; 4]>,
        Vec<u32>,
    );

    /// A UV sphere of `rings` × `segs` quads on joint 0, the lower half on joint 1.
    fn sphere(rings: u32, segs: u32) -> Mesh {
        let (mut p, mut nrm, mut j, mut w, mut idx) = (vec![], vec![], vec![], vec![], vec![]);
        for i in 0..=rings {
            let phi = std::f32::consts::PI * i as f32 / rings as f32;
            for s in 0..=segs {
                let th = std::f32::consts::TAU * s as f32 / segs as f32;
                let v = [phi.sin() * th.cos(), phi.cos(), phi.sin() * th.sin()];
                p.push(v);
                nrm.push(v);
                j.push([if v[1] < 0.0 { 1 } else { 0 }, 0, 0, 0]);
                w.push([1.0, 0.0, 0.0, 0.0]);
            }
        }
        let wd = segs + 1;
        for i in 0..rings {
            for s in 0..segs {
                let (a, b) = (i * wd + s, (i + 1) * wd + s);
                idx.extend_from_slice(&[a, b, a + 1, a + 1, b, b + 1]);
            }
        }
        (p, nrm, j, w, idx)
    }

    #[test]
    fn coarser_levels_have_fewer_triangles_valid_indices_and_a_bounded_error() {
        let (p, n, j, w, idx) = sphere(24, 32);
        let lods = mesh_lods(&p, &n, &j, &w, &idx);
        assert_eq!(lods.len(), LOD_RATIOS.len());
        let mut last = idx.len();
        let mut last_err = 0.0;
        for l in &lods {
            assert!(l.indices.len() < last, "{} !< {last}", l.indices.len());
            assert!(l.indices.iter().all(|&i| (i as usize) < l.vertices.len()));
            assert!(l.vertices.iter().all(|&v| (v as usize) < p.len()));
            assert!(l.error >= last_err && l.error < 0.2, "error {}", l.error);
            last = l.indices.len();
            last_err = l.error;
        }
        assert!(
            lods[0].indices.len() <= idx.len() * 6 / 10,
            "{} of {}",
            lods[0].indices.len(),
            idx.len()
        );
        // Every vertex a level keeps is where the full mesh's surface is (within its error).
        for l in &lods {
            for &v in &l.vertices {
                let q = glam::Vec3::from(p[v as usize]);
                assert!((q.length() - 1.0).abs() < 1e-4);
            }
        }
    }

    #[test]
    fn the_seam_between_two_joints_is_kept() {
        let (p, n, j, w, idx) = sphere(24, 32);
        let locks = seam_locks(&j, &w, &idx, p.len());
        let coarsest = mesh_lods(&p, &n, &j, &w, &idx).pop().expect("levels");
        let kept: std::collections::HashSet<u32> = coarsest.vertices.iter().copied().collect();
        let locked: Vec<u32> = (0..p.len() as u32).filter(|i| locks[*i as usize]).collect();
        assert!(!locked.is_empty());
        // A locked vertex is never moved: it is kept wherever a triangle still reaches it,
        // and no triangle of the coarsest level mixes the two halves other than through them.
        for t in coarsest.indices.chunks_exact(3) {
            let owners: Vec<u16> = t
                .iter()
                .map(|&i| coarsest.vertices[i as usize])
                .filter(|v| !locks[*v as usize])
                .map(|v| j[v as usize][0])
                .collect();
            assert!(owners.windows(2).all(|o| o[0] == o[1]), "{owners:?}");
        }
        assert!(locked.iter().filter(|v| kept.contains(v)).count() >= locked.len() / 2);
    }

    #[test]
    fn pruned_influences_are_the_strongest_renormalised_and_sorted() {
        let (j, w) = prune_influences([3, 7, 9, 11], [0.1, 0.5, 0.3, 0.1], 2);
        assert_eq!(j, [7, 9, 0, 0]);
        assert!((w[0] - 0.625).abs() < 1e-6 && (w[1] - 0.375).abs() < 1e-6);
        assert_eq!(w[2] + w[3], 0.0);
        let (j, w) = prune_influences([3, 7, 9, 11], [0.1, 0.5, 0.3, 0.1], 4);
        assert_eq!(j[..2], [7, 9]);
        assert!((w.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        assert_eq!(
            prune_influences([4, 0, 0, 0], [0.0; 4], 1),
            ([4, 0, 0, 0], [1.0, 0.0, 0.0, 0.0])
        );
    }
}
