//! Per-frame instance data built on the CPU from a snapshot: one instance per body, joint and
//! leg segment, so draw calls never grow with the number of creatures; plus debug lines.

use bytemuck::{Pod, Zeroable};
use glam::{Mat4, Quat, Vec3};

use crate::sim::level::Level;
use crate::sim::{CreatureId, CreatureView, LegPose, Snapshot};

/// A mesh instance: model matrix (columns) and colour (rgb albedo, a = emissive).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq)]
pub struct MeshInstance {
    /// Model matrix, column-major.
    pub model: [[f32; 4]; 4],
    /// rgb albedo, a = emissive.
    pub color: [f32; 4],
}

/// A capsule from `a` to `b` (radius in `a[3]`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq)]
pub struct CapsuleInstance {
    /// End a (xyz) and radius (w).
    pub a: [f32; 4],
    /// End b.
    pub b: [f32; 4],
    /// rgb albedo, a = emissive.
    pub color: [f32; 4],
}

/// A debug line vertex.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq)]
pub struct LineVertex {
    /// Position.
    pub pos: [f32; 3],
    /// RGBA.
    pub color: [f32; 4],
}

/// Which debug layers to draw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DebugFlags {
    /// Foot targets (crosses) and the line from each foot to its target.
    pub targets: bool,
    /// Ground casts: the ray from above the body down to each target.
    pub casts: bool,
    /// Planted feet green, swinging feet orange.
    pub contacts: bool,
    /// The fitted body plane.
    pub plane: bool,
    /// Paths and click destinations.
    pub paths: bool,
    /// Lean axes on every body (the selected one always shows its own).
    pub lean: bool,
    /// The navmesh and each agent's path.
    pub nav: bool,
    /// Ragdoll joints: each joint, its muscle's target (magenta) and the hips' swing limits.
    pub ragdoll: bool,
    /// Model creatures' skeletons: a line from each bone to its parent, over the mesh.
    pub bones: bool,
    /// Every creature drawn as the locomotion sees it — a body, a head and a capsule per leg
    /// segment — instead of its skinned model.
    pub sticks: bool,
    /// Climbers' surfaces: the body's up (cyan), a cross on it while crossing a crease
    /// (magenta concave, orange convex), and each foot's surface normal (yellow, planted;
    /// grey, the target of a lifted foot).
    pub surface: bool,
    /// A network viewer: the server's latest snapshot of each body (a yellow cross and a
    /// line to it from what is drawn), to see the buffer's delay.
    pub net: bool,
    /// Spring chains (tails, antennae, abdomens): a pink line through each chain's points
    /// and a cross at each joint.
    pub springs: bool,
    /// Skinned creatures tinted by the level of detail they are drawn at.
    pub lod: bool,
}

/// Every debug layer: its `--debug` name, the window's key for it, and what it draws. The
/// one list: the help, the unknown-layer error, the README and the docs are checked
/// against it (`tests/docs.rs`).
pub const DEBUG_LAYERS: [(&str, &str, &str); 14] = [
    ("targets", "1", "foot targets (crosses) and the line from each foot to its target"),
    ("casts", "2", "the ground casts from above the body down to each target"),
    ("contacts", "3", "planted feet green, swinging feet orange"),
    ("plane", "4", "the body plane fitted to the feet"),
    ("paths", "5", "paths and click destinations"),
    ("lean", "6", "lean axes on every body"),
    ("nav", "7", "the navmesh, its links and each agent's path"),
    ("ragdoll", "8", "ragdoll joints, muscle targets (magenta) and the hips' swing limits"),
    ("bones", "9", "model creatures' skeletons over their meshes"),
    ("sticks", "0", "every creature as the locomotion sees it (body, head, a capsule per leg segment) instead of its model"),
    ("surface", "U", "climbers' surfaces: the body's up, creases crossed, each foot's normal"),
    ("net", "N", "a network viewer: the server's latest snapshot of each body beside what is drawn"),
    ("springs", "J", "spring chains (tails, antennae, abdomens): each chain's points and joints"),
    ("lod", "L", "skinned creatures tinted by the level of detail they are drawn at: as made, then green, yellow, blue"),
];

/// A debug layer name `DebugFlags::parse` does not know.
#[derive(Clone, Debug, PartialEq)]
pub struct UnknownLayer(pub String);

impl std::fmt::Display for UnknownLayer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = DEBUG_LAYERS.iter().map(|(n, _, _)| *n).collect();
        write!(
            f,
            "unknown debug layer \"{}\" ({}, or all)",
            self.0,
            names.join(", ")
        )
    }
}

impl std::error::Error for UnknownLayer {}

impl DebugFlags {
    /// Parses a comma list: `targets,casts,contacts,plane,paths` or `all`.
    pub fn parse(s: &str) -> Result<DebugFlags, UnknownLayer> {
        let mut f = DebugFlags::default();
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            match part {
                "targets" => f.targets = true,
                "casts" => f.casts = true,
                "contacts" => f.contacts = true,
                "plane" => f.plane = true,
                "paths" => f.paths = true,
                "lean" => f.lean = true,
                "nav" => f.nav = true,
                "ragdoll" => f.ragdoll = true,
                "bones" => f.bones = true,
                "sticks" => f.sticks = true,
                "surface" => f.surface = true,
                "net" => f.net = true,
                "springs" => f.springs = true,
                "lod" => f.lod = true,
                "all" => {
                    f = DebugFlags {
                        targets: true,
                        casts: true,
                        contacts: true,
                        plane: true,
                        paths: true,
                        lean: true,
                        nav: true,
                        ragdoll: true,
                        bones: true,
                        // `all` draws every overlay; the stick view replaces the models.
                        sticks: false,
                        surface: true,
                        net: true,
                        springs: true,
                        lod: true,
                    }
                }
                other => return Err(UnknownLayer(other.to_string())),
            }
        }
        Ok(f)
    }

    /// Whether any layer is on.
    pub fn any(&self) -> bool {
        self.targets
            || self.casts
            || self.contacts
            || self.plane
            || self.paths
            || self.lean
            || self.nav
            || self.ragdoll
            || self.bones
            || self.sticks
            || self.springs
            || self.lod
    }
}

/// A path for debug drawing: a polyline and its handles.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PathView {
    /// Points along the path.
    pub points: Vec<Vec3>,
    /// Handle lines (anchor, handle).
    pub handles: Vec<(Vec3, Vec3)>,
}

impl PathView {
    /// Samples `path` (12 points a segment), lifted by `lift` metres.
    pub fn of(path: &crate::math::bezier::BezierPath, lift: f32) -> PathView {
        let up = Vec3::Y * lift;
        let mut points: Vec<Vec3> = path
            .sample(path.segments().len() * 12 + 1)
            .into_iter()
            .map(|p| p + up)
            .collect();
        if path.closed() {
            // A closed path's samples stop short of the start: draw the last stretch too.
            if let Some(first) = points.first().copied() {
                points.push(first);
            }
        }
        let mut handles = Vec::new();
        for s in path.segments() {
            handles.push((s.p0 + up, s.p1 + up));
            handles.push((s.p3 + up, s.p2 + up));
        }
        PathView { points, handles }
    }
}

/// Everything dynamic a frame draws.
#[derive(Clone, Debug, Default)]
pub struct FrameInstances {
    /// Bodies and heads (sphere mesh).
    pub spheres: Vec<MeshInstance>,
    /// Knee joints (a coarser sphere: they are small on screen).
    pub joints: Vec<MeshInstance>,
    /// Leg segments.
    pub capsules: Vec<CapsuleInstance>,
    /// Debug lines (pairs of vertices).
    pub lines: Vec<LineVertex>,
    /// Model creatures, drawn skinned.
    pub(crate) skinned: Vec<super::skinned::SkinnedView>,
    /// Their skinning matrices (the snapshot's).
    pub(crate) skins: Vec<Mat4>,
    /// Draw the model creatures' skeletons (the renderer adds the lines: it has the models).
    pub(crate) bones: bool,
    /// The `lod` layer: skinned creatures tinted by their level of detail.
    pub(crate) lod_tint: bool,
}

const BODY: [f32; 4] = [0.42, 0.12, 0.07, 0.0];
const BODY_SELECTED: [f32; 4] = [0.85, 0.55, 0.15, 0.35];
const LEG: [f32; 4] = [0.10, 0.07, 0.06, 0.0];
const JOINT: [f32; 4] = [0.50, 0.22, 0.12, 0.0];
const HEAD: [f32; 4] = [0.12, 0.08, 0.07, 0.0];

/// A colour recoloured in a creature's tint, if it has one (see [`recolour`]; emission kept).
fn tinted(c: [f32; 4], tint: Option<Vec3>) -> [f32; 4] {
    match tint {
        Some(t) => recolour(Vec3::new(c[0], c[1], c[2]), t)
            .extend(c[3])
            .to_array(),
        None => c,
    }
}

/// Recolours `c` in `tint`, keeping its lightness: its luma, doubled, times the tint (a
/// mid-grey takes the tint's colour). `shaders/scene.wgsl` does the same to models.
fn recolour(c: Vec3, tint: Vec3) -> Vec3 {
    c.dot(Vec3::new(0.2126, 0.7152, 0.0722)) * 2.0 * tint
}

fn line(out: &mut Vec<LineVertex>, a: Vec3, b: Vec3, color: [f32; 4]) {
    out.push(LineVertex {
        pos: a.to_array(),
        color,
    });
    out.push(LineVertex {
        pos: b.to_array(),
        color,
    });
}

fn cross(out: &mut Vec<LineVertex>, p: Vec3, r: f32, color: [f32; 4]) {
    line(out, p - Vec3::X * r, p + Vec3::X * r, color);
    line(out, p - Vec3::Z * r, p + Vec3::Z * r, color);
}

fn circle(out: &mut Vec<LineVertex>, c: Vec3, r: f32, color: [f32; 4]) {
    let n = 24;
    for i in 0..n {
        let (a, b) = (
            i as f32 / n as f32 * std::f32::consts::TAU,
            (i + 1) as f32 / n as f32 * std::f32::consts::TAU,
        );
        line(
            out,
            c + Vec3::new(a.cos(), 0.0, a.sin()) * r,
            c + Vec3::new(b.cos(), 0.0, b.sin()) * r,
            color,
        );
    }
}

impl FrameInstances {
    /// Rebuilds the instances from `snap` (reusing buffers). `selected` is highlighted;
    /// `destinations` are drawn when paths are on.
    pub fn build(
        &mut self,
        snap: &Snapshot,
        selected: Option<CreatureId>,
        debug: DebugFlags,
        destinations: &[(CreatureId, Vec3)],
        paths: &[PathView],
    ) {
        self.spheres.clear();
        self.joints.clear();
        self.capsules.clear();
        self.lines.clear();
        self.skinned.clear();
        self.skins.clone_from(&snap.skins);
        self.bones = debug.bones;
        self.lod_tint = debug.lod;
        for c in &snap.creatures {
            let sel = Some(c.id) == selected;
            match c.model.filter(|_| !debug.sticks) {
                // A model creature is drawn skinned; its limbs only as debug marks.
                Some(model) => {
                    self.skinned.push(super::skinned::SkinnedView {
                        model,
                        first_skin: c.first_skin,
                        skin_count: c.skin_count,
                        selected: sel,
                        tint: c.tint,
                    });
                    for leg in snap.legs_of(c) {
                        self.leg_marks(c, leg, debug);
                    }
                }
                None => {
                    self.body(c, sel);
                    for leg in snap.legs_of(c) {
                        self.leg(c, leg, debug);
                    }
                }
            }
            if debug.plane {
                self.support_plane(c);
            }
            if debug.lean || sel {
                self.lean_axis(c);
            }
            if debug.surface && c.climbing {
                self.surface_normals(c, snap.legs_of(c));
            }
            if sel {
                let ground = snap.legs_of(c).first().map(|l| l.foot.y);
                self.selection_ring(c, ground);
            }
        }
        if debug.paths {
            self.paths(snap, destinations, paths);
        }
        if debug.ragdoll {
            self.rig_joints(snap);
        }
        if debug.springs {
            self.spring_chains(snap);
        }
    }

    /// Every spring chain: a pink line through its points, a cross at each joint.
    fn spring_chains(&mut self, snap: &Snapshot) {
        const PINK: [f32; 4] = [1.0, 0.35, 0.75, 1.0];
        let mut at = 0usize;
        for &n in &snap.spring_chains {
            let Some(pts) = snap.spring_points.get(at..at + n as usize) else {
                break;
            };
            at += n as usize;
            let len = pts.windows(2).map(|w| w[0].distance(w[1])).sum::<f32>();
            let r = (len * 0.06).clamp(0.005, 0.05);
            for w in pts.windows(2) {
                line(&mut self.lines, w[0], w[1], PINK);
            }
            for p in pts {
                cross(&mut self.lines, *p, r, PINK);
            }
        }
    }

    /// A climber's surface: its body's up from its centre (cyan), and at each foot the
    /// normal of the face it stands on or steps to (yellow planted, grey lifted).
    fn surface_normals(&mut self, c: &CreatureView, legs: &[LegPose]) {
        const UP: [f32; 4] = [0.2, 0.9, 1.0, 1.0];
        const PLANTED: [f32; 4] = [1.0, 0.9, 0.2, 1.0];
        const LIFTED: [f32; 4] = [0.6, 0.6, 0.6, 1.0];
        line(&mut self.lines, c.position, c.position + c.up * 0.6, UP);
        // A crease it is crossing: a cross at the top of its up line, magenta where the
        // faces meet in a valley, orange over a ridge.
        if let Some(k) = c.crease {
            let colour = match k {
                crate::sim::Crease::Concave => [1.0, 0.3, 0.9, 1.0],
                crate::sim::Crease::Convex => [1.0, 0.55, 0.1, 1.0],
            };
            cross(&mut self.lines, c.position + c.up * 0.6, 0.08, colour);
        }
        for l in legs {
            let (at, color) = if l.grounded {
                (l.foot, PLANTED)
            } else {
                (l.target, LIFTED)
            };
            line(&mut self.lines, at, at + l.normal * 0.2, color);
        }
    }

    /// Ragdoll joints: a cross at each, a magenta line to where its muscle pulls the child
    /// segment, and at hips eight spokes on the swing limit's cone around that target.
    fn rig_joints(&mut self, snap: &Snapshot) {
        const TARGET: [f32; 4] = [1.0, 0.2, 0.9, 1.0];
        const LIMIT: [f32; 4] = [0.9, 0.9, 0.3, 1.0];
        for j in &snap.rig_joints {
            cross(&mut self.lines, j.at, 0.03, LIMIT);
            line(&mut self.lines, j.at, j.target, TARGET);
            if !j.hip {
                continue;
            }
            let d = j.target - j.at;
            let Some(dir) = d.try_normalize() else {
                continue;
            };
            let side = dir.any_orthonormal_vector();
            for i in 0..8 {
                let about =
                    glam::Quat::from_axis_angle(dir, i as f32 * std::f32::consts::TAU / 8.0) * side;
                let spoke = glam::Quat::from_axis_angle(about, j.limit.to_radians()) * d * 0.35;
                line(&mut self.lines, j.at, j.at + spoke, LIMIT);
            }
        }
    }

    /// The body and the head.
    fn body(&mut self, c: &CreatureView, sel: bool) {
        let body = Mat4::from_scale_rotation_translation(c.size * 0.5, c.rotation, c.position);
        self.spheres.push(MeshInstance {
            model: body.to_cols_array_2d(),
            color: tinted(if sel { BODY_SELECTED } else { BODY }, c.tint),
        });
        // A head at the front shows which way the creature faces.
        self.spheres.push(MeshInstance {
            model: Mat4::from_scale_rotation_translation(
                c.head_size * 0.5,
                c.head_rotation,
                c.head_position,
            )
            .to_cols_array_2d(),
            color: tinted(HEAD, c.tint),
        });
    }

    /// A leg's two capsules and knee, and its debug marks (targets, casts, contacts).
    fn leg(&mut self, c: &CreatureView, leg: &LegPose, debug: DebugFlags) {
        let r = c.leg_radius;
        self.capsules.push(CapsuleInstance {
            a: leg.hip.extend(r).to_array(),
            b: leg.knee.extend(0.0).to_array(),
            color: tinted(LEG, c.tint),
        });
        self.capsules.push(CapsuleInstance {
            a: leg.knee.extend(r * 0.75).to_array(),
            b: leg.foot.extend(0.0).to_array(),
            color: tinted(LEG, c.tint),
        });
        self.joints.push(MeshInstance {
            model: Mat4::from_scale_rotation_translation(
                Vec3::splat(r * 1.35),
                Quat::IDENTITY,
                leg.knee,
            )
            .to_cols_array_2d(),
            color: JOINT,
        });
        self.leg_marks(c, leg, debug);
    }

    /// A leg's debug marks (targets, casts, contacts).
    fn leg_marks(&mut self, c: &CreatureView, leg: &LegPose, debug: DebugFlags) {
        if debug.targets {
            cross(&mut self.lines, leg.target, 0.06, [0.2, 0.9, 1.0, 1.0]);
            line(&mut self.lines, leg.foot, leg.target, [0.2, 0.9, 1.0, 0.6]);
        }
        if debug.casts {
            let top = Vec3::new(leg.target.x, c.position.y + 0.5, leg.target.z);
            line(&mut self.lines, top, leg.target, [1.0, 1.0, 0.3, 0.8]);
        }
        if debug.contacts {
            let col = if leg.grounded {
                [0.2, 1.0, 0.3, 1.0]
            } else {
                [1.0, 0.55, 0.1, 1.0]
            };
            cross(&mut self.lines, leg.foot + Vec3::Y * 0.01, 0.09, col);
            line(&mut self.lines, leg.foot, leg.foot + Vec3::Y * 0.15, col);
        }
    }

    /// The fitted support plane under the body.
    fn support_plane(&mut self, c: &CreatureView) {
        let n = c.up.normalize_or(Vec3::Y);
        let fwd = (c.rotation * Vec3::Z).reject_from(n).normalize_or(Vec3::Z);
        let side = n.cross(fwd);
        let centre = c.position - n * (c.size.y * 0.5 + 0.02);
        let (a, b) = (fwd * c.size.z * 0.9, side * c.size.x * 1.4);
        let col = [0.9, 0.3, 1.0, 1.0];
        let q = [
            centre + a + b,
            centre + a - b,
            centre - a - b,
            centre - a + b,
        ];
        for i in 0..4 {
            line(&mut self.lines, q[i], q[(i + 1) % 4], col);
        }
        line(&mut self.lines, centre, centre + n * 0.4, col);
    }

    /// The lean axis: the body's up with the lean (cyan) beside the up it would have
    /// without it (grey), from the body centre.
    fn lean_axis(&mut self, c: &CreatureView) {
        // The lean axis: the body's up with the lean (cyan) beside the up it would
        // have without it (grey), from the body centre.
        let base = c.up.normalize_or(Vec3::Y);
        let leaned = c.rotation * Vec3::Y;
        let len = c.size.y * 0.5 + 0.45;
        line(
            &mut self.lines,
            c.position,
            c.position + base * len,
            [0.6, 0.6, 0.6, 0.8],
        );
        line(
            &mut self.lines,
            c.position,
            c.position + leaned * len,
            [0.2, 1.0, 1.0, 1.0],
        );
        cross(
            &mut self.lines,
            c.position + leaned * len,
            0.04,
            [0.2, 1.0, 1.0, 1.0],
        );
    }

    /// A ring on the ground (at `ground`, the first foot's height) round the selection.
    fn selection_ring(&mut self, c: &CreatureView, ground: Option<f32>) {
        circle(
            &mut self.lines,
            c.position - Vec3::Y * (c.position.y - ground.unwrap_or(c.position.y)),
            c.size.z.max(c.size.x) * 1.3,
            [1.0, 0.8, 0.2, 1.0],
        );
    }

    /// Paths with their handles, and each hand-given destination.
    fn paths(&mut self, snap: &Snapshot, destinations: &[(CreatureId, Vec3)], paths: &[PathView]) {
        for p in paths {
            for w in p.points.windows(2) {
                line(&mut self.lines, w[0], w[1], [1.0, 0.85, 0.2, 1.0]);
            }
            for (a, h) in &p.handles {
                line(&mut self.lines, *a, *h, [0.6, 0.6, 1.0, 0.9]);
                cross(&mut self.lines, *h, 0.08, [0.6, 0.6, 1.0, 1.0]);
            }
        }
        for (id, dest) in destinations {
            if let Some(c) = snap.creatures.iter().find(|c| c.id == *id) {
                line(&mut self.lines, c.position, *dest, [1.0, 0.3, 0.3, 1.0]);
                circle(
                    &mut self.lines,
                    *dest + Vec3::Y * 0.02,
                    0.25,
                    [1.0, 0.3, 0.3, 1.0],
                );
            }
        }
    }
}

impl FrameInstances {
    /// Adds debug line segments (drawn after [`FrameInstances::build`]).
    pub fn add_lines(&mut self, segs: impl IntoIterator<Item = (Vec3, Vec3)>, color: [f32; 4]) {
        for (a, b) in segs {
            line(&mut self.lines, a, b, color);
        }
    }
}

/// Instances for the level's boxes (built once per level version).
pub(crate) fn box_instances(level: &Level) -> Vec<MeshInstance> {
    level
        .boxes
        .iter()
        .map(|b| {
            let shade = 0.30 + 0.06 * ((b.position.x * 1.7 + b.position.z * 2.3).sin() * 0.5 + 0.5);
            MeshInstance {
                model: Mat4::from_scale_rotation_translation(b.size, b.quat(), b.position)
                    .to_cols_array_2d(),
                color: [shade, shade * 0.98, shade * 1.02, 0.0],
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{CreatureView, LegPose};

    #[test]
    fn a_closed_path_is_drawn_all_the_way_round() {
        use crate::math::bezier::{BezierPath, ControlPoint};
        let cp = |x: f32, z: f32| ControlPoint {
            position: Vec3::new(x, 0.0, z),
            handle_in: None,
            handle_out: None,
        };
        let pts = [cp(0.0, 0.0), cp(4.0, 0.0), cp(2.0, 3.0)];
        let closed = PathView::of(&BezierPath::new(&pts, true).expect("path"), 0.0);
        assert_eq!(closed.points.first(), closed.points.last());
        let open = PathView::of(&BezierPath::new(&pts, false).expect("path"), 0.0);
        assert!((*open.points.last().expect("points") - pts[2].position).length() < 1e-4);
    }

    fn snap(n: usize) -> Snapshot {
        let mut s = Snapshot::default();
        for i in 0..n {
            let first_leg = s.legs.len() as u32;
            for k in 0..8 {
                let x = i as f32 + k as f32 * 0.1;
                s.legs.push(LegPose {
                    hip: Vec3::new(x, 0.4, 0.0),
                    knee: Vec3::new(x, 0.7, 0.3),
                    foot: Vec3::new(x, 0.0, 0.6),
                    target: Vec3::new(x, 0.0, 0.7),
                    grounded: k % 2 == 0,
                    normal: Vec3::Y,
                });
            }
            s.creatures.push(CreatureView {
                id: CreatureId(i as u32 + 1),
                position: Vec3::new(i as f32, 0.35, 0.0),
                rotation: Quat::IDENTITY,
                size: Vec3::new(0.5, 0.2, 0.7),
                up: Vec3::Y,
                head_position: Vec3::new(i as f32, 0.35, 0.4),
                head_rotation: Quat::IDENTITY,
                head_size: Vec3::splat(0.1),
                leg_radius: 0.03,
                first_leg,
                leg_count: 8,
                turn: true,
                model: None,
                first_skin: 0,
                skin_count: 0,
                climbing: i % 2 == 1,
                crease: None,
                tint: None,
            });
        }
        s
    }

    #[test]
    fn instance_counts_scale_with_creatures_and_debug_adds_lines() {
        let mut f = FrameInstances::default();
        f.build(&snap(3), None, DebugFlags::default(), &[], &[]);
        assert_eq!(f.spheres.len(), 3 * 2);
        assert_eq!(f.joints.len(), 3 * 8);
        assert_eq!(f.capsules.len(), 3 * 16);
        assert!(f.lines.is_empty());
        f.build(
            &snap(3),
            Some(CreatureId(2)),
            DebugFlags::parse("all").expect("flags"),
            &[(CreatureId(1), Vec3::new(5.0, 0.0, 5.0))],
            &[PathView {
                points: vec![Vec3::ZERO, Vec3::X, Vec3::Z],
                handles: vec![(Vec3::ZERO, Vec3::Y)],
            }],
        );
        assert!(f.lines.len() > 100);
        // The lean axis: two lines and a cross per creature with the layer on, and only the
        // selected creature's without it.
        let mut lean = FrameInstances::default();
        let only = DebugFlags {
            lean: true,
            ..DebugFlags::default()
        };
        lean.build(&snap(3), None, only, &[], &[]);
        assert_eq!(lean.lines.len(), 3 * 4 * 2);
        lean.build(
            &snap(3),
            Some(CreatureId(1)),
            DebugFlags::default(),
            &[],
            &[],
        );
        assert_eq!(
            lean.lines.len(),
            4 * 2 + 24 * 2,
            "axis and selection circle"
        );
        assert_eq!(f.spheres[2].color, BODY_SELECTED);
        assert!(DebugFlags::parse("feet").is_err());
        // The surface layer: for each climber (the second of three here), its up and a
        // normal per foot, yellow where planted; walkers get none.
        let mut surf = FrameInstances::default();
        let flags = DebugFlags::parse("surface").expect("flags");
        surf.build(&snap(3), None, flags, &[], &[]);
        assert_eq!(surf.lines.len(), (1 + 8) * 2);
        let yellow = surf
            .lines
            .iter()
            .filter(|v| v.color == [1.0, 0.9, 0.2, 1.0])
            .count();
        assert_eq!(yellow, 4 * 2, "four planted feet");
        // Crossing a crease: a magenta cross on its up line for a concave one.
        let mut s = snap(3);
        s.creatures[1].crease = Some(crate::sim::Crease::Concave);
        surf.build(&s, None, flags, &[], &[]);
        let magenta = surf
            .lines
            .iter()
            .filter(|v| v.color == [1.0, 0.3, 0.9, 1.0])
            .count();
        assert_eq!(magenta, 2 * 2, "the crease's cross");
    }
}
