//! Layer 1: creature models — rigged glTF 2.0 files a mod ships in its `assets/` folder.
//! Loading and validating them inside the mod's sandbox ([`load`]), finding the body plan in
//! a skeleton and binding leg chains to it ([`bind`]), and posing the skeleton from a
//! creature's pose ([`pose`]: the body, its legs' solved joints, its head). Knows nothing of
//! locomotion, physics, scripts or GPUs: the sim hands it points, the renderer skins with the
//! matrices it returns.

pub(crate) mod bind;
pub(crate) mod bind_error;
mod cache;
pub(crate) mod clip;
pub(crate) mod export;
pub(crate) mod eyes;
pub(crate) mod feet;
pub(crate) mod files;
pub(crate) mod flyer;
pub(crate) mod generate;
pub(crate) mod habits;
pub(crate) mod load;
pub(crate) mod lod;
pub(crate) mod picture;
pub(crate) mod plan;
pub(crate) mod pose;
pub(crate) mod record;
pub(crate) mod sides;
pub(crate) mod spine;
pub(crate) mod springs;

use glam::{Mat4, Vec3};

pub use bind::{bind, BindSpec, Binding, BodyPlan, BoundLeg, LegChain};
pub use bind_error::{BindError, ChainError, LegsError, NoLegs, NoSuchBone};
pub use cache::{load_shared, models_parsed};
pub use clip::{Channel, Clip, Interpolation, Target};
pub use export::to_glb;
pub use eyes::{find_eyes, is_eye_name, EYE_MAX};
pub use feet::FootInput;
pub use generate::{generate, ChainSpec, GenSpec, HandShape, LimbSpec};
pub use load::{load, LoadLimits, ModelError, Source, DEFAULT_MAX_ASSET_MB};
pub use lod::{mesh_lods, prune_influences, MeshLod, LOD_INFLUENCES, LOD_RATIOS};
pub use picture::picture;
pub use pose::{PoseInput, Posed};
pub use record::{LimbRecord, PlanRecord};
pub use spine::{default_weights, find_spine, Spine, SpineSpec};
pub use springs::{find_springs, rest_points, SpringBones, SpringSpec};

/// The most joints a skin may have (the skinning shader's limit per creature).
pub const MAX_JOINTS: usize = 256;

/// A loaded model: its skeleton in the bind pose, its skinned triangles and materials, and
/// its clips' names. Everything in the file's scene space (glTF: metres, +Y up, +Z forward).
#[derive(Clone, Debug)]
pub struct Model {
    /// Where it came from, as errors name it (`mod/assets/spider.gltf`).
    pub source: String,
    /// The skin's joints, parents before children.
    pub joints: Vec<Joint>,
    /// Triangles to draw, skinned to [`Model::joints`] (rigid meshes hung on a bone are
    /// weighted wholly to it).
    pub primitives: Vec<Primitive>,
    /// Materials, indexed by [`Primitive::material`].
    pub materials: Vec<Material>,
    /// Animation clips' names.
    pub clips: Vec<String>,
    /// The clips themselves (channels on the skin's joints), in the same order.
    pub animations: Vec<Clip>,
    /// The bind-pose mesh's bounds (lowest and highest corners).
    pub bounds: (Vec3, Vec3),
    /// The body plan the file records (one skitter exported), used while the bones agree.
    pub plan_record: Option<PlanRecord>,
    /// What loading repaired or noticed of exporters' habits, a sentence each (vertices
    /// with unusable weights, a texture without its image, a size far from a creature's):
    /// the define warns with them.
    pub repairs: Vec<String>,
    /// Its skeleton is its node tree (a model with no skin: each limb a node of rigid
    /// meshes), whose limbs may be single bones.
    pub from_nodes: bool,
    /// Coarser meshes made with the model, finest first (a generated one's: fewer sides,
    /// no knuckles); empty for a loaded one, whose levels the renderer simplifies itself
    /// ([`mesh_lods`]).
    pub lods: Vec<ModelLod>,
}

/// A coarser mesh of a model, made with it.
#[derive(Clone, Debug)]
pub struct ModelLod {
    /// Its primitives, on the model's joints and materials.
    pub primitives: Vec<Primitive>,
    /// The largest distance between it and the model's own mesh, scene units.
    pub error: f32,
}

/// One joint of the skin.
#[derive(Clone, Debug)]
pub struct Joint {
    /// The node's name (unnamed nodes get `joint N`).
    pub name: String,
    /// Parent joint (`None`: hangs from no joint, e.g. straight off the armature).
    pub parent: Option<usize>,
    /// Bind pose, scene space (the node's global transform in the file's scene).
    pub bind: Mat4,
    /// The skin's inverse bind matrix.
    pub inverse_bind: Mat4,
    /// Joints hanging from this one.
    pub children: Vec<usize>,
    /// How far its weighted vertices reach from its head along its axis (m, scene space):
    /// a chain's end has no child to say where it ends.
    pub reach: f32,
    /// The point its weighted vertices reach farthest from its head (scene space), or its
    /// head when nothing is weighted to it.
    pub far: Vec3,
}

impl Joint {
    /// The joint's head (origin), scene space.
    pub fn head(&self) -> Vec3 {
        self.bind.w_axis.truncate()
    }
}

/// Skinned triangles with one material.
#[derive(Clone, Debug, Default)]
pub struct Primitive {
    /// Vertex positions, scene space, bind pose.
    pub positions: Vec<[f32; 3]>,
    /// Unit normals.
    pub normals: Vec<[f32; 3]>,
    /// Texture coordinates (zeros when the file has none).
    pub uvs: Vec<[f32; 2]>,
    /// Vertex colours (white when the file has none).
    pub colors: Vec<[f32; 4]>,
    /// Up to four joints per vertex.
    pub joints: Vec<[u16; 4]>,
    /// Their weights (summing to 1).
    pub weights: Vec<[f32; 4]>,
    /// Triangle list.
    pub indices: Vec<u32>,
    /// Index into [`Model::materials`].
    pub material: usize,
    /// A rigid mesh hung on a bone (a helmet, a sword), not part of the skinned body: left
    /// out of the body plan's measures (limb ends, sizes).
    pub rigid: bool,
}

/// A material: its base colour and texture.
#[derive(Clone, Debug)]
pub struct Material {
    /// Name in the file.
    pub name: String,
    /// Base colour factor (linear RGBA).
    pub base_color: [f32; 4],
    /// Base colour texture, decoded.
    pub texture: Option<Texture>,
}

/// A decoded RGBA8 image.
#[derive(Clone, Debug, PartialEq)]
pub struct Texture {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Rows of RGBA8 pixels, top first.
    pub rgba: Vec<u8>,
}

impl Model {
    /// The joint named `name`.
    pub fn joint(&self, name: &str) -> Option<usize> {
        self.joints.iter().position(|j| j.name == name)
    }

    /// Each joint's `reach` and `far`: the vertex it carries most of that lies furthest
    /// from its head.
    pub(crate) fn measure_reach(&mut self) {
        let far: Vec<(Vec3, usize)> = self.dominant_joints().collect();
        for (v, j) in far {
            let joint = &mut self.joints[j];
            let d = v.distance(joint.head());
            if d > joint.reach {
                joint.reach = d;
                joint.far = v;
            }
        }
    }

    /// Every skinned vertex's joint of largest weight, primitive by primitive (rigid meshes
    /// hung on bones left out).
    pub(crate) fn dominant_joints(&self) -> impl Iterator<Item = (Vec3, usize)> + '_ {
        self.primitives.iter().filter(|p| !p.rigid).flat_map(|p| {
            p.positions
                .iter()
                .zip(&p.joints)
                .zip(&p.weights)
                .map(|((v, j), w)| {
                    let mut best = 0;
                    for k in 1..4 {
                        if w[k] > w[best] {
                            best = k;
                        }
                    }
                    (Vec3::from(*v), j[best] as usize)
                })
        })
    }
}

/// A model bound to a creature type: the file's contents, the binding, the body plan found,
/// and the skeleton prepared for posing. Shared by every creature of the type.
#[derive(Clone, Debug)]
pub struct BoundModel {
    /// The loaded file.
    pub model: std::sync::Arc<Model>,
    /// Its bones bound to the creature.
    pub binding: Binding,
    /// The body plan the binding gives (what a define without `legs` gets).
    pub plan: BodyPlan,
    /// The skeleton, ready to pose.
    pub posed: Posed,
    /// A clip looped on the unbound bones.
    pub idle: Option<String>,
    /// Made from the type's definition (it brought no model): traces give no `tip`.
    pub generated: bool,
    /// The bones it swings on springs (see [`springs`]).
    pub springs: Vec<SpringBones>,
    /// The spine the lean spreads along (see [`spine`]; empty: none).
    pub spine: Spine,
}

impl BoundModel {
    /// Binds `model` as `spec` says.
    pub fn new(
        model: std::sync::Arc<Model>,
        spec: &BindSpec,
        idle: Option<String>,
    ) -> Result<BoundModel, String> {
        if let Some(c) = &idle {
            if !model.clips.contains(c) {
                return Err(format!(
                    "model.idle: no clip \"{c}\" in the model (its clips: {})",
                    if model.clips.is_empty() {
                        "none".to_string()
                    } else {
                        model.clips.join(", ")
                    }
                ));
            }
        }
        let (binding, plan) = bind(&model, spec).map_err(|e| e.to_string())?;
        let springs = find_springs(&model, &binding, &spec.springs)?;
        let spine = find_spine(&model, &binding, &spec.spine)?;
        let mut posed = Posed::new(&model, &binding);
        posed.set_springs(&model, &springs);
        posed.set_spine(&spine);
        if let Some(c) = &idle {
            posed.set_idle(&model, model.clips.iter().position(|n| n == c));
        }
        Ok(BoundModel {
            model,
            binding,
            plan,
            posed,
            idle,
            generated: false,
            springs,
            spine,
        })
    }

    /// Puts the legs in the order of `names` (a define's own `legs`, matched by name to the
    /// chains bound or found).
    pub fn ordered_as(&mut self, names: &[String]) -> Result<(), String> {
        let mut legs = Vec::new();
        let mut plans = Vec::new();
        for n in names {
            let Some(i) = self.binding.legs.iter().position(|l| &l.name == n) else {
                return Err(format!(
                    "leg \"{n}\" has no bone chain in the model (its legs: {}); name its bones in model.bind.legs",
                    self.binding
                        .legs
                        .iter()
                        .map(|l| l.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            };
            legs.push(self.binding.legs[i].clone());
            plans.push(self.plan.legs[i].clone());
        }
        self.binding.legs = legs;
        self.plan.legs = plans;
        self.posed = Posed::new(&self.model, &self.binding);
        self.posed.set_springs(&self.model, &self.springs);
        self.posed.set_spine(&self.spine);
        if let Some(c) = &self.idle {
            let clip = self.model.clips.iter().position(|n| n == c);
            self.posed.set_idle(&self.model, clip);
        }
        Ok(())
    }

    /// What `skitter check` prints: the legs and arms found, their bones and lengths.
    pub fn describe(&self) -> String {
        let m = &self.model;
        let mut s = format!(
            "{}: {} joints; body \"{}\"{}; ride height {:.3} m, body {:.2} x {:.2} x {:.2} m",
            m.source,
            m.joints.len(),
            m.joints[self.binding.body].name,
            self.binding
                .head
                .map(|h| format!(", head \"{}\"", m.joints[h].name))
                .unwrap_or_default(),
            self.plan.height,
            self.plan.size.x,
            self.plan.size.y,
            self.plan.size.z
        );
        let chain = |c: &LegChain, segs: &[f32]| {
            format!(
                "{} = {} ({} bones, {:.3} m{})",
                c.name,
                c.bones
                    .iter()
                    .map(|b| m.joints[*b].name.as_str())
                    .collect::<Vec<_>>()
                    .join(" > "),
                c.bones.len(),
                segs.iter().sum::<f32>(),
                c.follower
                    .map(|f| format!(", tip on \"{}\"", m.joints[f].name))
                    .unwrap_or_default()
            )
        };
        if let Some(h) = self.plan.hover {
            s += &format!(
                "\n  a flyer: it hovers {h:.3} m up, its {} limbs hanging (none reaches the ground)",
                self.binding.arms.len()
            );
        } else {
            s += &format!(
                "\n  {} legs{}:",
                self.binding.legs.len(),
                if self.plan.recorded {
                    " (the body plan skitter export recorded in the file; the bones agree with it)"
                } else {
                    ""
                }
            );
        }
        for (c, l) in self.binding.legs.iter().zip(&self.plan.legs) {
            s += &format!("\n    {}", chain(c, &l.segments));
        }
        if !self.binding.arms.is_empty() {
            s += &format!("\n  {} arms:", self.binding.arms.len());
            for (c, a) in self.binding.arms.iter().zip(&self.plan.arms) {
                s += &format!("\n    {}", chain(c, &a.2));
            }
        }
        if !self.spine.joints.is_empty() {
            s += &format!(
                "\n  spine (the lean spread from the pelvis up): {}",
                self.spine
                    .joints
                    .iter()
                    .zip(&self.spine.weights)
                    .map(|(j, w)| format!("{} {:.0}%", m.joints[*j].name, w * 100.0))
                    .collect::<Vec<_>>()
                    .join(" > ")
            );
        }
        let eyes: Vec<&str> = self
            .posed
            .eyes()
            .map(|j| m.joints[j].name.as_str())
            .collect();
        if !eyes.is_empty() {
            s += &format!("\n  eyes (turn to what it looks at): {}", eyes.join(", "));
        }
        if !self.springs.is_empty() {
            s += &format!("\n  spring chains ({}):", self.springs.len());
            for c in &self.springs {
                s += &format!(
                    "\n    {} ({} bones{})",
                    c.joints
                        .iter()
                        .map(|b| m.joints[*b].name.as_str())
                        .collect::<Vec<_>>()
                        .join(" > "),
                    c.joints.len(),
                    if c.on_head { ", on the head" } else { "" }
                );
            }
        }
        s
    }
}

/// How a type's model was loaded and bound, as plain data: what a network viewer needs to
/// load and bind the same file from its own copy of the mod's assets.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ModelSource {
    /// The mod whose folder holds it.
    pub mod_name: String,
    /// The file, relative to the mod's folder.
    pub file: String,
    /// An image beside it for the base colour.
    pub texture: Option<String>,
    /// Mesh nodes left out.
    pub hide: Vec<String>,
    /// The binding asked for (its `fly` as the define resolved it).
    pub bind: BindSpec,
    /// The clip looped on unbound bones.
    pub idle: Option<String>,
    /// The define's own leg names, in its order (`BoundModel::ordered_as`), when it gave legs.
    pub order: Option<Vec<String>>,
}

impl ModelSource {
    /// Loads and binds the model from the mod's folder `root`, as the define did.
    pub fn load(&self, root: &std::path::Path, limits: &LoadLimits) -> Result<BoundModel, String> {
        let loaded = load(
            &Source {
                root,
                mod_name: &self.mod_name,
                file: &self.file,
                texture: self.texture.as_deref(),
                hide: &self.hide,
            },
            limits,
        )
        .map_err(|e| e.to_string())?;
        let mut bound = BoundModel::new(std::sync::Arc::new(loaded), &self.bind, self.idle.clone())
            .map_err(|e| format!("{}: {e}", self.file))?;
        if let Some(names) = &self.order {
            bound
                .ordered_as(names)
                .map_err(|e| format!("{}: {e}", self.file))?;
        }
        Ok(bound)
    }
}
