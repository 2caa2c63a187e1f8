//! Posing a bound skeleton from a creature's pose: every bone keeps its bind-pose place
//! relative to its parent (so the body bone carries the body's tilt and lean, and unbound
//! bones ride along), each leg or arm bone is turned (the least turn) and moved so it runs
//! from its solved joint to the next, a foot joint hung elsewhere follows its chain's end,
//! and the head bone takes the head's counter-yaw. The result is one matrix per joint
//! taking bind-pose scene-space vertices to the world: what the renderer skins with.

use glam::{Affine3A, Mat3A, Mat4, Quat, Vec3, Vec3A};

use super::{Binding, Model};

/// A creature's pose, as the sim has it.
#[derive(Clone, Copy, Debug, Default)]
pub struct PoseInput<'a> {
    /// The body's frame in the world: its centre and rotation (tilt, lean, yaw).
    pub body: Affine3A,
    /// The head's world rotation, when the creature has a head to turn.
    pub head: Option<Quat>,
    /// The body's world rotation (the head turns by `head` relative to it).
    pub body_rotation: Quat,
    /// The lean in `body_rotation` (body space, its last factor): a model with a spine
    /// spreads it from the pelvis up to the head (see `model::spine`).
    pub lean: Quat,
    /// Seconds into the idle clip (looped), when the model plays one.
    pub time: f32,
    /// Every leg's solved points, world space, hip to foot, the legs one after another in
    /// the binding's order; `chain_lens[i]` points for leg `i`.
    pub points: &'a [Vec3],
    /// How many points each leg (then each arm) has in `points`.
    pub chain_lens: &'a [usize],
    /// The spring chains' simulated points, world space, chain after chain in the model's
    /// order (each its joints' heads and its tip); empty: they ride along rigidly.
    pub springs: &'a [Vec3],
    /// Each leg's foot (slope, standing): a leg with foot bones lies them on the ground
    /// (see [`super::feet`]); empty: every leg drawn as the sim solved it.
    pub feet: &'a [super::FootInput],
    /// This creature's own shares of the lean along the spine, pelvis first (one for each
    /// spine joint; `None` or another length: the model's).
    pub spine: Option<&'a [f32]>,
    /// Its breath now, −1 (out) to 1 (in) (`body.breathe`; 0: none): a spine's chest joints
    /// lift with it, the head kept level.
    pub breath: f32,
    /// What it looks at (`c:look_at`), world space: its eyes turn to it.
    pub look: Option<Vec3>,
}

/// A joint the idle clip drives: the joint, the clip's channels on it, its bind-pose local
/// scale, rotation and translation (what the channels leave alone).
type Animated = (usize, Vec<usize>, (Vec3, Quat, Vec3));

/// What a bone is to the poser.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Role {
    /// Rides on its parent in its bind-pose place.
    Rides,
    /// Bone `k` of chain `c`: runs from the chain's point `k` toward its next.
    Chain { chain: usize, k: usize },
    /// Follows chain `c`'s last bone rigidly (a foot joint hung elsewhere).
    Follows { chain: usize },
    /// Joint `k` of spring chain `chain`: runs from its simulated point toward the next.
    Spring { chain: usize, k: usize },
    /// An eye, its gaze in joint space: rides on the head, turned to what the creature
    /// looks at (see `model::eyes`).
    Eye { gaze: Vec3 },
    /// A generated foot pad at leg `leg`'s end: laid on the ground's slope, peeling
    /// heel-first as the foot trails (see [`Posed::set_pads`]).
    Pad { leg: usize },
}

/// A bound skeleton prepared for posing (built once per model and binding).
#[derive(Clone, Debug)]
pub struct Posed {
    parent: Vec<Option<usize>>,
    /// Bind-pose transform relative to the parent (or the scene, for a root).
    local: Vec<Affine3A>,
    /// Each joint's scene-space bind matrix, and its inverse.
    bind: Vec<Affine3A>,
    inverse_bind: Vec<Affine3A>,
    /// For chain bones: the bone's direction (to the next joint or the tip), joint space.
    dir: Vec<Vec3>,
    /// For chain bones of a bent chain: the inverse of the bone's frame in joint space (its
    /// axis, the chain's bind-pose bend-plane normal, their cross product): the posed bone's
    /// frame is the solved chain's (its twist follows the knee).
    frame: Vec<Option<Mat3A>>,
    role: Vec<Role>,
    /// Each chain's last bone and the joint its tip's vertices hang on.
    ends: Vec<(usize, usize)>,
    /// Each chain's tip, in the joint space of the joint its vertices hang on.
    tips: Vec<Vec3>,
    /// Each chain's number of bones (its last runs to the chain's last point: a one-bone
    /// leg of a rigid model spans its whole leg).
    bones: Vec<usize>,
    /// Each chain's bind-pose span from its first bone's head to its tip, in world units
    /// (scene units times the binding's scale): a one-bone chain is stretched or squashed
    /// along its axis to span its solved hip-to-foot (a rigid block leg keeps its foot on
    /// the ground as the knee the solver gives it bends).
    spans: Vec<f32>,
    /// Joints below a follower (posed after it).
    after: Vec<usize>,
    fix: Affine3A,
    head: Option<usize>,
    /// The joint the head hangs from, when it is a neck: between the body bone and the
    /// head, carrying no leg (see [`neck_of`]); it takes [`NECK_SHARE`] of the head's turn.
    neck: Option<usize>,
    /// Number of chains (legs then arms).
    pub chains: usize,
    /// The idle clip, and for each joint it drives (none bound: not the body bone or what
    /// carries it, no limb bone, no follower) the clip's channels on it and its bind-pose
    /// local scale, rotation and translation.
    idle: Option<(super::Clip, Vec<Animated>)>,
    /// `idle`'s entry per joint (`usize::MAX`: not animated).
    animated: Vec<usize>,
    body: usize,
    /// Where each spring chain's points start in [`PoseInput::springs`], and how many.
    spring_at: Vec<(usize, usize)>,
    /// Each joint's share of the lean (0 off the spine); the pelvis's share; the spine's
    /// joints, pelvis first.
    spine: Vec<f32>,
    pelvis: f32,
    spine_joints: Vec<usize>,
    /// Number of leg chains (the arms' come after).
    legs: usize,
    /// Each leg's foot and toe bones' shape (see [`super::feet`]).
    feet: Vec<Option<super::feet::FootShape>>,
}

impl Posed {
    /// Prepares `binding` of `model`.
    pub fn new(model: &Model, binding: &Binding) -> Posed {
        let n = model.joints.len();
        let mut role = vec![Role::Rides; n];
        let mut dir = vec![Vec3::ZERO; n];
        let mut frame: Vec<Option<Mat3A>> = vec![None; n];
        let mut ends = Vec::new();
        let mut tips = Vec::new();
        let mut nbones = Vec::new();
        let mut spans = Vec::new();
        for (c, chain) in binding.legs.iter().chain(&binding.arms).enumerate() {
            // The chain's bend plane in the bind pose (hip, middle joint, tip).
            let pts: Vec<Vec3> = chain
                .bones
                .iter()
                .map(|b| model.joints[*b].head())
                .chain([chain.tip])
                .collect();
            let bend = bend_normal(&pts);
            for (k, b) in chain.bones.iter().enumerate() {
                role[*b] = Role::Chain { chain: c, k };
                let next = chain
                    .bones
                    .get(k + 1)
                    .map_or(chain.tip, |x| model.joints[*x].head());
                let j = &model.joints[*b];
                let inv = j.bind.inverse();
                dir[*b] = inv.transform_vector3(next - j.head()).normalize_or(Vec3::Y);
                frame[*b] = bend.and_then(|nb| bone_frame(inv, next - j.head(), nb));
            }
            nbones.push(chain.bones.len());
            let scale = binding.fix.x_axis.truncate().length();
            spans.push(model.joints[chain.bones[0]].head().distance(chain.tip) * scale);
            let last = chain.bones[chain.bones.len() - 1];
            let owner = chain.follower.unwrap_or(last);
            if let Some(f) = chain.follower {
                role[f] = Role::Follows { chain: c };
            }
            ends.push((last, owner));
            tips.push(
                model.joints[owner]
                    .bind
                    .inverse()
                    .transform_point3(chain.tip),
            );
        }
        let below_follower = |mut j: usize| {
            while let Some(p) = model.joints[j].parent {
                if matches!(role[p], Role::Follows { .. }) {
                    return true;
                }
                j = p;
            }
            false
        };
        let after: Vec<usize> = (0..n).filter(|j| below_follower(*j)).collect();
        for (j, gaze) in super::eyes::find_eyes(model, binding) {
            if role[j] == Role::Rides {
                role[j] = Role::Eye { gaze };
            }
        }
        Posed {
            parent: model.joints.iter().map(|j| j.parent).collect(),
            local: bind_pose(model, |j| match j.parent {
                Some(p) => model.joints[p].bind.inverse() * j.bind,
                None => j.bind,
            }),
            bind: bind_pose(model, |j| j.bind),
            inverse_bind: bind_pose(model, |j| j.bind.inverse()),
            dir,
            frame,
            role,
            ends,
            tips,
            bones: nbones,
            spans,
            after,
            fix: Affine3A::from_mat4(binding.fix),
            head: binding.head,
            neck: neck_of(model, binding),
            chains: binding.legs.len() + binding.arms.len(),
            idle: None,
            animated: vec![usize::MAX; n],
            body: binding.body,
            spring_at: Vec::new(),
            spine: vec![0.0; n],
            pelvis: 1.0,
            spine_joints: Vec::new(),
            legs: binding.legs.len(),
            feet: super::feet::find_feet(model, binding),
        }
    }

    /// Its eye joints (see `model::eyes`).
    pub fn eyes(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.role.len()).filter(|j| matches!(self.role[*j], Role::Eye { .. }))
    }

    /// Makes joints foot pads: `(leg, joint)` each (a generated model's `Paw` feet).
    pub fn set_pads(&mut self, pads: &[(usize, usize)]) {
        for (leg, j) in pads {
            if *leg < self.legs && self.role.get(*j) == Some(&Role::Rides) {
                self.role[*j] = Role::Pad { leg: *leg };
            }
        }
    }

    /// Pad joint `j` of leg `leg` (see [`Role::Pad`]), world space: at the leg's end, its
    /// sole on the ground's slope (level while the foot swings) along the heading, its heel
    /// peeled up about the foot's end by up to [`PAD_PEEL`] as the foot trails from 0.05
    /// to 0.35 of the leg's length behind its hip (level with the world) — the same
    /// rule planted and swinging, so it peels before the lift and lies flat again before
    /// it lands.
    fn place_pad(
        &self,
        j: usize,
        leg: usize,
        input: &PoseInput<'_>,
        starts: &[usize],
    ) -> Option<Affine3A> {
        let s = *starts.get(leg)?;
        let pts = input.points.get(s..s + *input.chain_lens.get(leg)?)?;
        let (hip, foot) = (*pts.first()?, *pts.last()?);
        let length: f32 = pts.windows(2).map(|w| w[0].distance(w[1])).sum();
        let planted = input.feet.get(leg).filter(|f| f.grounded);
        let up = match planted {
            Some(f) => f.slope.normalize_or(Vec3::Y),
            None => input.body_rotation * Vec3::Y,
        };
        let ahead = input.body_rotation * Vec3::Z;
        let fwd = (ahead - up * ahead.dot(up)).try_normalize()?;
        let side = up.cross(fwd);
        // How far behind its hip the foot is, along the heading level with the world (a
        // foot under its hip on a slope is not trailing), or the body's own for a body on
        // a wall.
        let level = Vec3::new(ahead.x, 0.0, ahead.z);
        let heading = if (input.body_rotation * Vec3::Y).y > 0.7 {
            level.try_normalize().unwrap_or(fwd)
        } else {
            ahead
        };
        let trail = -(foot - hip).dot(heading) / length.max(1e-4);
        let k = ((trail - 0.05) / 0.3).clamp(0.0, 1.0);
        let peel = PAD_PEEL * k * k * (3.0 - 2.0 * k);
        let turn =
            Mat3A::from_cols(side.into(), up.into(), fwd.into()) * Mat3A::from_rotation_x(peel);
        Some(Affine3A {
            matrix3: turn * self.fix.matrix3 * self.bind[j].matrix3,
            translation: foot.into(),
        })
    }

    /// Spreads the lean along `spine` (see [`super::spine`]).
    pub fn set_spine(&mut self, spine: &super::Spine) {
        self.spine.iter_mut().for_each(|w| *w = 0.0);
        self.pelvis = 1.0;
        self.spine_joints = spine.joints.clone();
        for (k, (j, w)) in spine.joints.iter().zip(&spine.weights).enumerate() {
            if k == 0 {
                self.pelvis = *w;
            } else if let Some(s) = self.spine.get_mut(*j) {
                // (Never 0: a joint of the spine stays one, whatever its share.)
                *s = w.max(1e-9);
            }
        }
    }

    /// Swings `chains`' joints from their simulated points (see [`PoseInput::springs`]).
    pub fn set_springs(&mut self, model: &Model, chains: &[super::SpringBones]) {
        self.spring_at.clear();
        let mut at = 0;
        for (c, chain) in chains.iter().enumerate() {
            for (k, j) in chain.joints.iter().enumerate() {
                if self.role[*j] != Role::Rides {
                    continue;
                }
                self.role[*j] = Role::Spring { chain: c, k };
                let joint = &model.joints[*j];
                self.dir[*j] = joint
                    .bind
                    .inverse()
                    .transform_vector3(chain.rest[k + 1] - joint.head())
                    .normalize_or(Vec3::Y);
            }
            self.spring_at.push((at, chain.rest.len()));
            at += chain.rest.len();
        }
    }

    /// Plays clip `clip` of `model` (looped) on the bones the creature does not drive.
    pub fn set_idle(&mut self, model: &Model, clip: Option<usize>) {
        self.idle = None;
        self.animated.iter_mut().for_each(|a| *a = usize::MAX);
        let Some(c) = clip.and_then(|c| model.animations.get(c)) else {
            return;
        };
        // The body bone and what carries it follow the creature's body, not the clip.
        let mut carries = vec![false; self.parent.len()];
        let mut at = Some(self.body);
        while let Some(j) = at {
            carries[j] = true;
            at = self.parent[j];
        }
        let mut entries: Vec<Animated> = Vec::new();
        for (ci, ch) in c.channels.iter().enumerate() {
            let j = ch.joint;
            // (An eye plays the clip, then turns to a look.)
            if carries[j] || !matches!(self.role[j], Role::Rides | Role::Eye { .. }) {
                continue;
            }
            match entries.iter_mut().find(|e| e.0 == j) {
                Some(e) => e.1.push(ci),
                None => {
                    let (s, r, t) = self.local[j].to_scale_rotation_translation();
                    entries.push((j, vec![ci], (s, r, t)));
                }
            }
        }
        for (k, e) in entries.iter().enumerate() {
            self.animated[e.0] = k;
        }
        self.idle = Some((c.clone(), entries));
    }

    /// Poses the skeleton for `input`: `world` gets every joint's world matrix, `skin` the
    /// matrices taking bind-pose scene-space vertices to the world.
    pub fn pose(&self, input: &PoseInput<'_>, world: &mut Vec<Affine3A>, skin: &mut Vec<Mat4>) {
        let n = self.parent.len();
        world.clear();
        world.resize(n, Affine3A::IDENTITY);
        let (spread, base, unleaned) = self.spread(input);
        // The limbs' points hung from their root joints as drawn (a spread lean draws the
        // pelvis and chest with less of it than the sim's body has): moved at each limb's
        // first bone.
        let feet = !input.feet.is_empty() && self.feet.iter().any(Option::is_some);
        // A neck turning with the head carries what hangs from it (a biped's chest, its arms).
        let turning = self.neck.is_some()
            && self.legs < self.chains
            && input.head.is_some_and(|h| h != input.body_rotation);
        let moved = spread || turning;
        let rehang = moved || feet;
        // The thread's buffer, not a new one per creature per frame.
        let mut hung = HUNG.with(|h| std::mem::take(&mut *h.borrow_mut()));
        hung.clear();
        if rehang {
            hung.extend_from_slice(input.points);
        }
        let (starts, bends) = chain_starts_and_bends(input);
        let chain_point = |c: usize, k: usize| -> Option<(Vec3, Vec3)> {
            let len = *input.chain_lens.get(c)?;
            let s = starts.get(c)?;
            let pts = input.points.get(*s..*s + len)?;
            let last_bone = self.bones.get(c).is_none_or(|n| k + 1 >= *n);
            let to = if last_bone {
                pts.last()
            } else {
                pts.get(k + 1)
            };
            Some((*pts.get(k)?, *to.or(pts.last())?))
        };
        // Each spring chain's shift: its simulated root onto where its root rides now.
        let mut shifts = [Vec3::ZERO; 64];
        for j in 0..n {
            let local = match (&self.idle, self.animated[j]) {
                (Some((clip, entries)), k) if k != usize::MAX => {
                    let (_, channels, rest) = &entries[k];
                    clip.local(channels, input.time, *rest)
                }
                _ => self.local[j],
            };
            let mut m = match self.parent[j] {
                Some(p) => world[p] * local,
                None => base * local,
            };
            if spread && self.spine[j] > 0.0 {
                let share = crate::math::frame::part_of(input.lean, self.share(input, j));
                m.matrix3 = Mat3A::from_quat(unleaned * share * unleaned.inverse()) * m.matrix3;
            }
            if input.breath != 0.0 && self.spine[j] > 0.0 {
                m.matrix3 = Mat3A::from_quat(self.breath_turn(input, j)) * m.matrix3;
            }
            match self.role[j] {
                Role::Rides | Role::Follows { .. } => {}
                Role::Eye { gaze } => {
                    if let Some(t) = input.look {
                        m = super::eyes::aim_eye(m, gaze, t);
                    }
                }
                Role::Pad { leg } => {
                    if let Some(p) = self.place_pad(j, leg, input, &starts) {
                        m = p;
                    }
                }
                Role::Spring { chain, k } => {
                    m = self.swing(m, j, chain, k, input.springs, &mut shifts);
                }
                Role::Chain { chain, k } => {
                    let limb = match (rehang, input.chain_lens.get(chain), starts.get(chain)) {
                        (true, Some(len), Some(s)) => hung
                            .get_mut(*s..*s + *len)
                            .and_then(|pts| self.hang_limb(m, chain, k, pts, moved, input)),
                        _ => chain_point(chain, k),
                    };
                    if let Some(seg) = limb {
                        m = self.place_bone(m, j, chain, seg, bends[chain.min(63)]);
                    }
                }
            }
            if Some(j) == self.head || Some(j) == self.neck {
                m = self.turn_head(j, input, m);
            }
            world[j] = m;
        }
        HUNG.with(|h| *h.borrow_mut() = hung);
        self.ride_followers(world);
        skin.clear();
        skin.extend(
            world
                .iter()
                .zip(&self.inverse_bind)
                .map(|(w, ib)| Mat4::from(*w * *ib)),
        );
    }

    /// Followers ride on their chain's last bone, then what hangs from them.
    fn ride_followers(&self, world: &mut [Affine3A]) {
        for j in 0..world.len() {
            if let Role::Follows { chain } = self.role[j] {
                let (last, _) = self.ends[chain];
                world[j] = world[last] * self.inverse_bind[last] * self.bind[j];
            }
        }
        for &j in &self.after {
            if let Some(p) = self.parent[j] {
                world[j] = world[p] * self.local[j];
            }
        }
    }

    /// Whether the lean is spread along a spine now; the frame the root joints hang from (the
    /// body turned back to the pelvis's share of the lean); the body's rotation without the
    /// lean.
    fn spread(&self, input: &PoseInput<'_>) -> (bool, Affine3A, Quat) {
        // A spine spreads the lean: the pelvis keeps its share, each joint above adds its own.
        let pelvis = match self.spine_joints.first() {
            Some(j) => self.share(input, *j),
            None => 1.0,
        };
        if pelvis < 1.0 && input.lean != Quat::IDENTITY {
            let back = crate::math::frame::part_of(input.lean.inverse(), 1.0 - pelvis);
            (
                true,
                input.body * Affine3A::from_quat(back) * self.fix,
                input.body_rotation * input.lean.inverse(),
            )
        } else {
            (false, input.body * self.fix, Quat::IDENTITY)
        }
    }

    /// Spine joint `j`'s part of the breath (world space): each chest joint (between the
    /// pelvis and the head) lifts by its share of [`BREATH_TILT`]; the head turns back by
    /// all of it, staying level.
    fn breath_turn(&self, input: &PoseInput<'_>, j: usize) -> Quat {
        let chest = self.spine_joints.len().saturating_sub(2);
        if chest == 0 {
            return Quat::IDENTITY;
        }
        let side = input.body_rotation * Vec3::X;
        let each = -BREATH_TILT * input.breath.clamp(-1.0, 1.0) / chest as f32;
        if Some(&j) == self.spine_joints.last() {
            Quat::from_axis_angle(side, -each * chest as f32)
        } else {
            Quat::from_axis_angle(side, each)
        }
    }

    /// Joint `j` (the head or its neck), riding at `m`, turned by its part of the head's turn
    /// (its counter-yaw, a look; world space): the neck [`NECK_SHARE`], the head the rest.
    fn turn_head(&self, j: usize, input: &PoseInput<'_>, mut m: Affine3A) -> Affine3A {
        let Some(h) = input.head else { return m };
        let turn = h * input.body_rotation.inverse();
        let neck = crate::math::frame::part_of(turn, NECK_SHARE);
        let q = match (Some(j) == self.neck, self.neck.is_some()) {
            (true, _) => neck,
            (false, true) => turn * neck.inverse(),
            (false, false) => turn,
        };
        m.matrix3 = Mat3A::from_quat(q) * m.matrix3;
        m
    }

    /// Spine joint `j`'s share of the lean: the creature's own (`input.spine`) or the model's.
    fn share(&self, input: &PoseInput<'_>, j: usize) -> f32 {
        let own = input
            .spine
            .filter(|w| w.len() == self.spine_joints.len())
            .and_then(|w| Some(w[self.spine_joints.iter().position(|s| *s == j)?]));
        match own {
            Some(w) => w,
            None if Some(&j) == self.spine_joints.first() => self.pelvis,
            None => self.spine[j],
        }
    }

    /// Joint `j`, riding at `m`, as bone of limb `chain` along its solved segment `from → to`
    /// (the limb bending in the plane `bend`).
    fn place_bone(
        &self,
        m: Affine3A,
        j: usize,
        chain: usize,
        (from, to): (Vec3, Vec3),
        bend: Option<Vec3>,
    ) -> Affine3A {
        let m = match (bend, self.frame[j]) {
            // The bone's axis along the solved segment and its bend-plane normal on the
            // solved chain's: one frame to another.
            (Some(want), Some(local)) => {
                orient(m, local, from, to, want).unwrap_or_else(|| aim(m, self.dir[j], from, to))
            }
            _ => aim(m, self.dir[j], from, to),
        };
        if self.bones[chain] == 1 && self.spans[chain] > 1e-6 {
            stretch(m, self.dir[j], from.distance(to) / self.spans[chain])
        } else {
            m
        }
    }

    /// Bone `k` of limb `chain` (riding at `m`) as its solved points `pts` say, redrawn in
    /// place at its first bone: when the body is drawn otherwise than the sim has it
    /// (`spread`: a lean spread down the spine, a neck turned with the head), hung from the
    /// limb's root joint as drawn (an arm moves whole with its shoulder; a leg is solved again from the drawn hip
    /// to its foot, which stays where it stands, its bones their lengths, its knee its
    /// side); a leg with foot bones, its foot laid on the ground (see [`super::feet`]).
    fn hang_limb(
        &self,
        m: Affine3A,
        chain: usize,
        k: usize,
        pts: &mut [Vec3],
        spread: bool,
        input: &PoseInput<'_>,
    ) -> Option<(Vec3, Vec3)> {
        let n = pts.len();
        if n < 2 {
            return None;
        }
        if k == 0 {
            let root = if spread {
                Vec3::from(m.translation)
            } else {
                pts[0]
            };
            let shape = self.feet.get(chain).copied().flatten();
            let foot = input.feet.get(chain);
            if chain >= self.legs {
                let shift = root - pts[0];
                pts.iter_mut().for_each(|p| *p += shift);
            } else if let (Some(shape), Some(foot)) = (shape, foot) {
                let heading = input.body_rotation;
                if !super::feet::shape_foot(pts, root, &shape, foot, heading) && spread {
                    reach_from(pts, root);
                }
            } else if spread {
                reach_from(pts, root);
            }
        }
        let last_bone = self.bones.get(chain).is_none_or(|b| k + 1 >= *b);
        let to = if last_bone { n - 1 } else { (k + 1).min(n - 1) };
        Some((*pts.get(k)?, pts[to]))
    }

    /// Joint `j`, bone `k` of spring chain `chain`, riding at `m`: turned from its
    /// simulated point toward the next (the chain shifted so its root is where it rides:
    /// `shifts`, set at its root).
    fn swing(
        &self,
        m: Affine3A,
        j: usize,
        chain: usize,
        k: usize,
        springs: &[Vec3],
        shifts: &mut [Vec3; 64],
    ) -> Affine3A {
        let Some(&(s, len)) = self.spring_at.get(chain) else {
            return m;
        };
        let (Some(pts), Some(shift)) = (springs.get(s..s + len), shifts.get_mut(chain)) else {
            return m;
        };
        if k == 0 {
            *shift = Vec3::from(m.translation) - pts[0];
        }
        aim(m, self.dir[j], pts[k] + *shift, pts[k + 1] + *shift)
    }

    /// Chain `c`'s end as drawn with the joints posed at `world`.
    pub fn tip(&self, c: usize, world: &[Affine3A]) -> Option<Vec3> {
        let (_, owner) = *self.ends.get(c)?;
        Some(world.get(owner)?.transform_point3(self.tips[c]))
    }
}

/// The inverse of a bone's frame in joint space (`inv`: its inverse bind matrix): its axis
/// (`along`, scene space, to the next joint), the chain's bend-plane normal `normal`, their
/// cross product. `None` where they are parallel.
fn bone_frame(inv: Mat4, along: Vec3, normal: Vec3) -> Option<Mat3A> {
    let d = inv.transform_vector3(along).normalize_or_zero();
    let p = inv.transform_vector3(normal);
    let p = (p - d * p.dot(d)).normalize_or_zero();
    (d != Vec3::ZERO && p != Vec3::ZERO)
        .then(|| Mat3A::from_cols(d.into(), p.into(), d.cross(p).into()).transpose())
}

/// How far a full breath lifts a spine's chest, radians (1.5°, shared by its chest joints).
const BREATH_TILT: f32 = 0.026;

/// How far a generated foot pad's heel peels up as its foot trails (radians).
const PAD_PEEL: f32 = 0.9;

/// The share of a head's turn (counter-yaw, look) its neck takes: a head turns on its neck,
/// not as a block on a rigid body.
const NECK_SHARE: f32 = 0.4;

/// The head's parent when it is a neck: not the body bone, on the way from the body bone to
/// the head, and no leg hangs from it or from a joint below it on that way.
fn neck_of(model: &Model, binding: &Binding) -> Option<usize> {
    let neck = model.joints[binding.head?]
        .parent
        .filter(|p| *p != binding.body)?;
    super::spine::way_up(model, neck, binding.body)?;
    (!super::spine::legs_hang_from(model, binding, &[neck])).then_some(neck)
}

thread_local! {
    /// [`Posed::pose`]'s copy of the limbs' points, kept per thread between creatures.
    static HUNG: std::cell::RefCell<Vec<Vec3>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Where each limb's points start in `input.points`, and each limb's solved bend plane.
fn chain_starts_and_bends(input: &PoseInput<'_>) -> ([usize; 64], [Option<Vec3>; 64]) {
    let mut starts = [0usize; 64];
    let mut at = 0;
    for (c, len) in input.chain_lens.iter().enumerate().take(64) {
        starts[c] = at;
        at += len;
    }
    let mut bends = [None::<Vec3>; 64];
    for (c, b) in bends.iter_mut().enumerate().take(input.chain_lens.len()) {
        let (s, len) = (starts[c], input.chain_lens[c]);
        if let Some(pts) = input.points.get(s..s + len) {
            *b = bend_normal(pts);
        }
    }
    (starts, bends)
}

/// Moves the chain `pts` (root first) so it starts at `root` and still ends where it ends,
/// each segment its length (FABRIK from where it was; the end as near as the chain reaches).
fn reach_from(pts: &mut [Vec3], root: Vec3) {
    let n = pts.len();
    let mut lens = [0.0f32; 16];
    if n > lens.len() {
        return;
    }
    for i in 0..n - 1 {
        lens[i] = pts[i].distance(pts[i + 1]);
    }
    let end = pts[n - 1];
    for _ in 0..REACH_ITERATIONS {
        pts[n - 1] = end;
        for i in (0..n - 1).rev() {
            let d = (pts[i] - pts[i + 1]).normalize_or_zero();
            pts[i] = pts[i + 1] + d * lens[i];
        }
        pts[0] = root;
        for i in 0..n - 1 {
            let d = (pts[i + 1] - pts[i]).normalize_or_zero();
            pts[i + 1] = pts[i] + d * lens[i];
        }
    }
}

/// FABRIK passes for [`reach_from`]: its moves are a lean's shift of a hip or so, a few
/// centimetres, settled to well under a millimetre.
const REACH_ITERATIONS: usize = 8;

/// `f` of every joint of `model`'s bind pose, as an affine transform.
fn bind_pose(model: &Model, f: impl Fn(&super::Joint) -> glam::Mat4) -> Vec<Affine3A> {
    model
        .joints
        .iter()
        .map(|j| Affine3A::from_mat4(f(j)))
        .collect()
}

/// `m` scaled by `s` along `dir` (unit, joint space).
fn stretch(mut m: Affine3A, dir: Vec3, s: f32) -> Affine3A {
    let d = glam::Vec3A::from(dir);
    let along = Mat3A::from_cols(d * d.x, d * d.y, d * d.z);
    let scale = Mat3A::IDENTITY + along * (s - 1.0);
    m.matrix3 *= scale;
    m
}

/// `m` turned the least (about its head) so its bone (`dir`, joint space) points from
/// `from` toward `to`, its head moved to `from`.
fn aim(m: Affine3A, dir: Vec3, from: Vec3, to: Vec3) -> Affine3A {
    let now = m.transform_vector3(dir).normalize_or_zero();
    let want = (to - from).normalize_or_zero();
    let matrix3 = if now == Vec3::ZERO || want == Vec3::ZERO {
        m.matrix3
    } else {
        Mat3A::from_quat(Quat::from_rotation_arc(now, want)) * m.matrix3
    };
    Affine3A {
        matrix3,
        translation: Vec3A::from(from),
    }
}

/// The normal of the plane a chain bends in (its first point, its middle one, its last),
/// `None` when it is straight.
fn bend_normal(pts: &[Vec3]) -> Option<Vec3> {
    let (a, b, c) = (pts.first()?, pts.get(pts.len() / 2)?, pts.last()?);
    (*b - *a)
        .cross(*c - *a)
        .try_normalize()
        .filter(|_| pts.len() >= 3)
}

/// The joint of `m` with its bone along `from → to` and its frame's bend-plane axis on the
/// solved chain's normal `want` (`local`: the inverse of its frame in joint space). `None`
/// when the segment lies along `want`.
fn orient(m: Affine3A, local: Mat3A, from: Vec3, to: Vec3, want: Vec3) -> Option<Affine3A> {
    let d = (to - from).try_normalize()?;
    let p = (want - d * want.dot(d)).try_normalize()?;
    let world = Mat3A::from_cols(d.into(), p.into(), d.cross(p).into());
    // The joint's own scale as its parent carries it (the file's, `model.scale`).
    let scale = Vec3::new(
        m.matrix3.x_axis.length(),
        m.matrix3.y_axis.length(),
        m.matrix3.z_axis.length(),
    );
    Some(Affine3A {
        matrix3: world * local * Mat3A::from_diagonal(scale),
        translation: Vec3A::from(from),
    })
}
