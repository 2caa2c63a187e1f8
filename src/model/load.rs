//! Reading a model file inside a mod's folder: the file and every `uri` it names resolved
//! inside the mod (a mod reads nothing outside its folder), sizes bounded, the glTF parsed
//! and every range and value the loader will touch checked first, then the skeleton, the
//! skinned triangles (pre-skinned to the bind pose in scene space) and the materials read.

use std::path::Path;

use glam::{Mat3, Mat4, Quat, Vec3};

use super::files::{data_uri, read_in_mod, resolve};
use super::habits::{
    compressed, drop_imageless_textures, node_skeleton, repair_weights, same_joints,
};
use super::{Joint, Material, Model, PlanRecord, Primitive, Texture, MAX_JOINTS};

/// The default size limit of one asset file (`--max-asset-mb`), MiB.
pub const DEFAULT_MAX_ASSET_MB: u64 = 64;

/// What a model load may read.
#[derive(Clone, Copy, Debug)]
pub struct LoadLimits {
    /// Largest file (the model, a buffer, an image) in bytes.
    pub max_bytes: u64,
}

impl Default for LoadLimits {
    fn default() -> LoadLimits {
        LoadLimits {
            max_bytes: DEFAULT_MAX_ASSET_MB * 1024 * 1024,
        }
    }
}

/// Why a model did not load: the file (as the mod names it) and what is wrong.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{file}: {what}")]
pub struct ModelError {
    /// `mod/assets/spider.gltf`.
    pub file: String,
    /// What is wrong, and where in the file.
    pub what: String,
}

/// A model file of a mod: the mod's folder, its name (for messages) and the file's path
/// inside it.
pub struct Source<'a> {
    /// The mod's folder.
    pub root: &'a Path,
    /// The mod's name.
    pub mod_name: &'a str,
    /// The file, relative to the mod's folder (`assets/spider.gltf`).
    pub file: &'a str,
    /// An image beside it to use as the base colour where the file references none.
    pub texture: Option<&'a str>,
    /// Mesh nodes to leave out, by node or mesh name (a knight's spare weapons).
    pub hide: &'a [String],
}

impl Source<'_> {
    fn err(&self, what: impl Into<String>) -> ModelError {
        ModelError {
            file: format!("{}/{}", self.mod_name, self.file),
            what: what.into(),
        }
    }
}

/// Loads and checks the model `src`.
pub fn load(src: &Source<'_>, limits: &LoadLimits) -> Result<Model, ModelError> {
    let rel = resolve(src.root, Path::new(""), src.file).map_err(|e| src.err(e))?;
    let bytes = read_in_mod(src.root, &rel, limits, "the model").map_err(|e| src.err(e))?;
    if bytes.is_empty() {
        return Err(src.err("is empty (not a glTF file)"));
    }
    let base = rel.parent().map(Path::to_path_buf).unwrap_or_default();
    let invalid = |e: gltf::Error| src.err(format!("is not a valid glTF 2.0 file: {e}"));
    let raw = gltf::Gltf::from_slice_without_validation(&bytes).map_err(invalid)?;
    // Compressed geometry first: its accessors have no data of their own, and the
    // validator's complaints about them would bury the cause.
    if let Some(why) = compressed(&raw.document) {
        return Err(src.err(why));
    }
    let mut root = raw.document.into_json();
    let repairs: Vec<String> = drop_imageless_textures(&mut root).into_iter().collect();
    let gltf = gltf::Gltf {
        document: gltf::Document::from_json(root).map_err(invalid)?,
        blob: raw.blob,
    };
    let doc = &gltf.document;
    // Every buffer's bytes.
    let mut buffers: Vec<Vec<u8>> = Vec::new();
    for b in doc.buffers() {
        let data = match b.source() {
            gltf::buffer::Source::Bin => gltf.blob.clone().ok_or_else(|| {
                src.err(format!(
                    "buffer {} names a GLB binary chunk the file lacks",
                    b.index()
                ))
            })?,
            gltf::buffer::Source::Uri(uri) => match data_uri(uri) {
                Some(d) => d.map_err(|e| src.err(format!("buffer {}: {e}", b.index())))?,
                None => {
                    let p = resolve(src.root, &base, uri)
                        .map_err(|e| src.err(format!("buffer {}: {e}", b.index())))?;
                    read_in_mod(src.root, &p, limits, "buffer")
                        .map_err(|e| src.err(format!("buffer {}: {e}", b.index())))?
                }
            },
        };
        if data.len() < b.length() {
            return Err(src.err(format!(
                "buffer {} has {} bytes, fewer than its byteLength {}",
                b.index(),
                data.len(),
                b.length()
            )));
        }
        buffers.push(data);
    }
    check_ranges(doc, &buffers).map_err(|e| src.err(e))?;
    let read = Reading {
        doc,
        buffers: &buffers,
        repairs: std::cell::RefCell::new(repairs),
    };
    read.model(src, limits)
}

/// Every buffer view within its buffer, every accessor within its view (so the readers
/// never index past the data), no sparse accessors.
fn check_ranges(doc: &gltf::Document, buffers: &[Vec<u8>]) -> Result<(), String> {
    for v in doc.views() {
        let len = buffers[v.buffer().index()].len();
        let end = v.offset() + v.length();
        if end > len {
            return Err(format!(
                "buffer view {} reaches byte {end}, past the end of buffer {} ({len} bytes)",
                v.index(),
                v.buffer().index()
            ));
        }
    }
    for a in doc.accessors() {
        if a.sparse().is_some() {
            return Err(format!("accessor {} is sparse (not supported)", a.index()));
        }
        let Some(v) = a.view() else {
            return Err(format!("accessor {} has no buffer view", a.index()));
        };
        let size = a.size();
        let stride = v.stride().unwrap_or(size);
        if a.count() == 0 {
            continue;
        }
        let end = a.offset() + stride * (a.count() - 1) + size;
        if end > v.length() {
            return Err(format!(
                "accessor {} reaches byte {end} of buffer view {}, which has {}",
                a.index(),
                v.index(),
                v.length()
            ));
        }
    }
    Ok(())
}

struct Reading<'a> {
    doc: &'a gltf::Document,
    buffers: &'a [Vec<u8>],
    /// What was repaired so far (see [`Model::repairs`]).
    repairs: std::cell::RefCell<Vec<String>>,
}

/// `model.hide` names `h`, which no mesh node of `doc` is: says so, with the nearest name.
fn no_such_mesh(doc: &gltf::Document, h: &str) -> String {
    let near = doc
        .nodes()
        .filter_map(|nd| Some([nd.name(), nd.mesh()?.name()]))
        .flatten()
        .flatten()
        .map(|n| (strsim::levenshtein(&h.to_lowercase(), &n.to_lowercase()), n))
        .min();
    let hint = match near {
        Some((d, n)) if d <= 3.max(h.len() / 3) => format!(" (did you mean \"{n}\"?)"),
        _ => String::new(),
    };
    format!("model.hide: no mesh node named \"{h}\"{hint}")
}

/// Every node's global transform in `scene` and its parent (of `n` nodes; `None` for those
/// the scene does not reach): refused when a transform is not finite or a node is reached
/// twice.
type NodeTree = (Vec<Option<Mat4>>, Vec<Option<usize>>);
fn scene_transforms(scene: &gltf::Scene<'_>, n: usize) -> Result<NodeTree, String> {
    let mut global = vec![None::<Mat4>; n];
    let mut parent = vec![None::<usize>; n];
    let mut stack: Vec<(gltf::Node<'_>, Mat4)> =
        scene.nodes().map(|r| (r, Mat4::IDENTITY)).collect();
    while let Some((node, up)) = stack.pop() {
        let m = up * local(&node);
        if !m.is_finite() {
            return Err(format!(
                "node {} has a transform that is not finite",
                node.index()
            ));
        }
        if global[node.index()].is_some() {
            return Err(format!(
                "node {} is reached twice in the scene",
                node.index()
            ));
        }
        global[node.index()] = Some(m);
        for c in node.children() {
            parent[c.index()] = Some(node.index());
            stack.push((c, m));
        }
    }
    Ok((global, parent))
}

/// The skeleton's joints from `joint_nodes` (their inverse bind matrices `inverse`; the
/// scene's `global` transforms and `parent`s), ordered parents first (by depth in the node
/// tree); the joint number of each of `joint_nodes` (`remap`) and of each joint's node.
type Ordered = (
    Vec<Joint>,
    Vec<u16>,
    std::collections::HashMap<usize, usize>,
);
fn ordered_joints(
    joint_nodes: &[gltf::Node<'_>],
    inverse: &[Mat4],
    global: &[Option<Mat4>],
    parent: &[Option<usize>],
) -> Ordered {
    // Joints ordered parents first (by depth in the node tree).
    let depth = |mut i: usize| {
        let mut d = 0;
        while let Some(p) = parent[i] {
            d += 1;
            i = p;
        }
        d
    };
    let mut order: Vec<usize> = (0..joint_nodes.len()).collect();
    order.sort_by_key(|k| (depth(joint_nodes[*k].index()), *k));
    let mut remap = vec![0u16; joint_nodes.len()];
    for (new, old) in order.iter().enumerate() {
        remap[*old] = new as u16;
    }
    let node_joint: std::collections::HashMap<usize, usize> = joint_nodes
        .iter()
        .enumerate()
        .map(|(k, nd)| (nd.index(), remap[k] as usize))
        .collect();
    let mut joints: Vec<Joint> = order
        .iter()
        .map(|&k| {
            let nd = &joint_nodes[k];
            Joint {
                name: nd
                    .name()
                    .map(str::to_string)
                    .unwrap_or_else(|| format!("joint {}", nd.index())),
                parent: joint_above(parent, &node_joint, nd.index()),
                bind: global[nd.index()].unwrap_or(Mat4::IDENTITY),
                inverse_bind: inverse[k],
                children: Vec::new(),
                reach: 0.0,
                far: Vec3::ZERO,
            }
        })
        .collect();
    for j in 0..joints.len() {
        if let Some(p) = joints[j].parent {
            joints[p].children.push(j);
        }
        joints[j].far = joints[j].head();
    }
    (joints, remap, node_joint)
}

/// The joint nearest above node `i` (its parents' nodes walked up until one is a joint).
fn joint_above(
    parent: &[Option<usize>],
    node_joint: &std::collections::HashMap<usize, usize>,
    mut i: usize,
) -> Option<usize> {
    while let Some(p) = parent[i] {
        if let Some(j) = node_joint.get(&p) {
            return Some(*j);
        }
        i = p;
    }
    None
}

/// A node's local transform.
fn local(n: &gltf::Node<'_>) -> Mat4 {
    match n.transform() {
        gltf::scene::Transform::Matrix { matrix } => Mat4::from_cols_array_2d(&matrix),
        gltf::scene::Transform::Decomposed {
            translation,
            rotation,
            scale,
        } => Mat4::from_scale_rotation_translation(
            Vec3::from(scale),
            Quat::from_array(rotation).normalize(),
            Vec3::from(translation),
        ),
    }
}

fn finite3(v: [f32; 3]) -> bool {
    v.iter().all(|x| x.is_finite())
}

/// A model's skeleton as its meshes are read onto it: the scene's node transforms and
/// parents, the joints, node → joint maps, and the skin (`None`: the node tree is the
/// skeleton).
struct Skeleton<'s> {
    global: &'s [Option<Mat4>],
    parent: &'s [Option<usize>],
    joints: &'s [Joint],
    remap: &'s [u16],
    node_joint: &'s std::collections::HashMap<usize, usize>,
    skin: Option<usize>,
}

/// The bounds of the skinned triangles (all of them when every one is rigid).
fn skinned_bounds(primitives: &[Primitive]) -> (Vec3, Vec3) {
    let skinned_only = primitives.iter().any(|p| !p.rigid);
    primitives
        .iter()
        .filter(|p| !(skinned_only && p.rigid))
        .flat_map(|p| &p.positions)
        .fold(
            (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
            |(lo, hi), v| (lo.min(Vec3::from(*v)), hi.max(Vec3::from(*v))),
        )
}

impl<'a> Reading<'a> {
    fn data(&self) -> impl for<'b> Fn(gltf::Buffer<'b>) -> Option<&'a [u8]> + Clone + 'a {
        let buffers = self.buffers;
        move |b| buffers.get(b.index()).map(Vec::as_slice)
    }

    fn model(&self, src: &Source<'_>, limits: &LoadLimits) -> Result<Model, ModelError> {
        let doc = self.doc;
        let scene = doc
            .default_scene()
            .or_else(|| doc.scenes().next())
            .ok_or_else(|| src.err("has no scene"))?;
        let (global, parent) =
            scene_transforms(&scene, doc.nodes().count()).map_err(|e| src.err(e))?;
        // The skin: the first one a node of the scene uses, else the first. A model with
        // none (Blockbench's, Luanti's: each limb a node of rigid meshes) has its node tree
        // for a skeleton.
        let skin = doc
            .nodes()
            .filter(|nd| global[nd.index()].is_some())
            .find_map(|nd| nd.skin())
            .or_else(|| doc.skins().next());
        let (joint_nodes, inverse) = match &skin {
            Some(skin) => self.skin_joints(src, skin, &global)?,
            None => node_skeleton(doc, &global),
        };
        if joint_nodes.is_empty() {
            return Err(src.err("has no skin and no nodes with meshes to make a skeleton of"));
        }
        if joint_nodes.len() > MAX_JOINTS {
            return Err(src.err(format!(
                "has {} joints, more than the {MAX_JOINTS} a model may have",
                joint_nodes.len()
            )));
        }
        let skinless = skin.is_none();
        let (joints, remap, node_joint) = ordered_joints(&joint_nodes, &inverse, &global, &parent);
        let (materials, default_material) = self.materials(src, limits)?;
        let sk = Skeleton {
            global: &global,
            parent: &parent,
            joints: &joints,
            remap: &remap,
            node_joint: &node_joint,
            skin: skin.as_ref().map(|k| k.index()),
        };
        let primitives = self.meshes(src, &sk, default_material)?;
        let bounds = skinned_bounds(&primitives);
        let mut model = Model {
            source: format!("{}/{}", src.mod_name, src.file),
            joints,
            primitives,
            materials,
            clips: doc
                .animations()
                .enumerate()
                .map(|(i, a)| {
                    a.name()
                        .map(str::to_string)
                        .unwrap_or_else(|| format!("clip {i}"))
                })
                .collect(),
            animations: self.clips(&node_joint).map_err(|e| src.err(e))?,
            bounds,
            plan_record: scene
                .extras()
                .as_ref()
                .and_then(|e| PlanRecord::from_extras(e.get())),
            repairs: self.repairs.take(),
            from_nodes: skinless,
            lods: Vec::new(),
        };
        model.measure_reach();
        Ok(model)
    }

    /// The scene's meshes as primitives on `sk`: skinned ones by their skin (a second skin
    /// over the same joints by node), rigid ones on the joint above their node (without a
    /// skin, their node's joint: the creature's body), `model.hide`'s left out (one it
    /// cannot find is an error).
    fn meshes(
        &self,
        src: &Source<'_>,
        sk: &Skeleton<'_>,
        default_material: usize,
    ) -> Result<Vec<Primitive>, ModelError> {
        let mut primitives = Vec::new();
        let mut two_skins: Vec<usize> = Vec::new();
        let mut hidden = vec![false; src.hide.len()];
        for nd in self.doc.nodes() {
            let (Some(mesh), Some(g)) = (nd.mesh(), sk.global[nd.index()]) else {
                continue;
            };
            let names = [nd.name(), mesh.name()];
            let mut hide = false;
            for (h, seen) in src.hide.iter().zip(hidden.iter_mut()) {
                if names.contains(&Some(h.as_str())) {
                    (hide, *seen) = (true, true);
                }
            }
            if hide {
                continue;
            }
            // Another skin over the same joints (exporters write one skin a mesh): its
            // joints are the skin's, by node.
            let other: Option<Vec<u16>> = match nd.skin() {
                Some(s) if Some(s.index()) != sk.skin => {
                    let Some(r) = same_joints(&s, sk.node_joint) else {
                        continue; // another skeleton's mesh
                    };
                    two_skins.push(s.index());
                    Some(r)
                }
                _ => None,
            };
            let skinned = nd.skin().is_some();
            let rigid_joint = if skinned {
                None
            } else if sk.skin.is_none() {
                sk.node_joint.get(&nd.index()).copied()
            } else {
                Some(joint_above(sk.parent, sk.node_joint, nd.index()).unwrap_or(0))
            };
            for (pi, prim) in mesh.primitives().enumerate() {
                if prim.mode() != gltf::mesh::Mode::Triangles {
                    continue;
                }
                let at = format!("mesh {} primitive {pi}", mesh.index());
                let p = self
                    .primitive(
                        &prim,
                        &at,
                        g,
                        rigid_joint,
                        sk.joints,
                        other.as_deref().unwrap_or(sk.remap),
                        default_material,
                    )
                    .map_err(|e| src.err(e))?;
                // Without a skin, the meshes on the nodes are the creature's body.
                let p = Primitive {
                    rigid: p.rigid && sk.skin.is_some(),
                    ..p
                };
                if !p.indices.is_empty() {
                    primitives.push(p);
                }
            }
        }
        if let Some(h) = src.hide.iter().zip(&hidden).find(|(_, seen)| !**seen) {
            return Err(src.err(no_such_mesh(self.doc, h.0)));
        }
        if primitives.is_empty() {
            return Err(src.err("has no triangles to draw"));
        }
        self.note_second_skins(two_skins, sk.skin.unwrap_or(0));
        Ok(primitives)
    }

    /// Every material of the file, then glTF's default (for primitives that name none;
    /// its index the second value), the define's `model.texture` on those with no texture.
    fn materials(
        &self,
        src: &Source<'_>,
        limits: &LoadLimits,
    ) -> Result<(Vec<Material>, usize), ModelError> {
        let doc = self.doc;
        let mut materials: Vec<Material> = Vec::new();
        for m in doc.materials() {
            materials.push(self.material(src, limits, &m)?);
        }
        // glTF's default material, for primitives that name none.
        let default_material = materials.len();
        materials.push(Material {
            name: "default".into(),
            base_color: [1.0; 4],
            texture: None,
        });
        if let Some(t) = src.texture {
            let p = resolve(src.root, Path::new(""), t)
                .map_err(|e| src.err(format!("texture: {e}")))?;
            let bytes = read_in_mod(src.root, &p, limits, "texture").map_err(|e| src.err(e))?;
            let tex =
                decode_image(&bytes, None).map_err(|e| src.err(format!("texture {t}: {e}")))?;
            for m in materials.iter_mut().filter(|m| m.texture.is_none()) {
                m.texture = Some(tex.clone());
            }
        }
        Ok((materials, default_material))
    }

    /// The repair note for meshes skinned by `others` (other skins over the joints of skin
    /// `main`), when there were any.
    fn note_second_skins(&self, mut others: Vec<usize>, main: usize) {
        others.sort_unstable();
        others.dedup();
        if others.is_empty() {
            return;
        }
        let list: Vec<String> = others.iter().map(usize::to_string).collect();
        self.repairs.borrow_mut().push(format!(
            "skin {} skins meshes over the joints of skin {main}: drawn as one skeleton",
            list.join(", ")
        ));
    }

    /// A skin's joints and their inverse bind matrices (from the file, else the joints'
    /// bind poses).
    fn skin_joints<'d>(
        &self,
        src: &Source<'_>,
        skin: &gltf::Skin<'d>,
        global: &[Option<Mat4>],
    ) -> Result<(Vec<gltf::Node<'d>>, Vec<Mat4>), ModelError> {
        let joint_nodes: Vec<gltf::Node<'d>> = skin.joints().collect();
        if joint_nodes.is_empty() {
            return Err(src.err(format!("skin {} has no joints", skin.index())));
        }
        if joint_nodes.len() > MAX_JOINTS {
            return Err(src.err(format!(
                "skin {} has {} joints, more than the {MAX_JOINTS} a model may have",
                skin.index(),
                joint_nodes.len()
            )));
        }
        let inverse: Vec<Mat4> = match skin.reader(self.data()).read_inverse_bind_matrices() {
            Some(it) => it.map(|m| Mat4::from_cols_array_2d(&m)).collect(),
            None => joint_nodes
                .iter()
                .map(|j| global[j.index()].unwrap_or(Mat4::IDENTITY).inverse())
                .collect(),
        };
        if inverse.len() < joint_nodes.len() || inverse.iter().any(|m| !m.is_finite()) {
            return Err(src.err(format!(
                "skin {}: its inverse bind matrices are too few or not finite",
                skin.index()
            )));
        }
        Ok((joint_nodes, inverse))
    }

    /// Every clip's channels on the skin's joints (channels on other nodes are dropped).
    fn clips(
        &self,
        node_joint: &std::collections::HashMap<usize, usize>,
    ) -> Result<Vec<super::Clip>, String> {
        use super::clip::{Channel, Clip, Interpolation, Target};
        use gltf::animation::util::ReadOutputs;
        let mut out = Vec::new();
        for (i, a) in self.doc.animations().enumerate() {
            let name = a
                .name()
                .map(str::to_string)
                .unwrap_or_else(|| format!("clip {i}"));
            let mut channels = Vec::new();
            let mut duration = 0.0f32;
            for (ci, ch) in a.channels().enumerate() {
                let Some(&joint) = node_joint.get(&ch.target().node().index()) else {
                    continue;
                };
                let at = format!("clip \"{name}\" channel {ci}");
                let r = ch.reader(self.data());
                let times: Vec<f32> = r
                    .read_inputs()
                    .ok_or_else(|| format!("{at} has no key times"))?
                    .collect();
                if times.iter().any(|t| !t.is_finite()) || times.windows(2).any(|w| w[1] < w[0]) {
                    return Err(format!("{at}: key times must be finite and increasing"));
                }
                let (target, values): (Target, Vec<glam::Vec4>) = match r.read_outputs() {
                    Some(ReadOutputs::Translations(t)) => (
                        Target::Translation,
                        t.map(|v| glam::Vec3::from(v).extend(0.0)).collect(),
                    ),
                    Some(ReadOutputs::Rotations(q)) => (
                        Target::Rotation,
                        q.into_f32().map(glam::Vec4::from).collect(),
                    ),
                    Some(ReadOutputs::Scales(s)) => (
                        Target::Scale,
                        s.map(|v| glam::Vec3::from(v).extend(0.0)).collect(),
                    ),
                    _ => continue, // morph weights: not skinning
                };
                let interpolation = match ch.sampler().interpolation() {
                    gltf::animation::Interpolation::Step => Interpolation::Step,
                    gltf::animation::Interpolation::Linear => Interpolation::Linear,
                    gltf::animation::Interpolation::CubicSpline => Interpolation::Cubic,
                };
                let per = if interpolation == Interpolation::Cubic {
                    3
                } else {
                    1
                };
                if values.len() != times.len() * per || values.iter().any(|v| !v.is_finite()) {
                    return Err(format!(
                        "{at}: its values do not match its key times or are not finite"
                    ));
                }
                duration = duration.max(times.last().copied().unwrap_or(0.0));
                channels.push(Channel {
                    joint,
                    target,
                    interpolation,
                    times,
                    values,
                });
            }
            out.push(Clip {
                name,
                duration,
                channels,
            });
        }
        Ok(out)
    }

    fn material(
        &self,
        src: &Source<'_>,
        limits: &LoadLimits,
        m: &gltf::Material<'_>,
    ) -> Result<Material, ModelError> {
        let pbr = m.pbr_metallic_roughness();
        let name = m
            .name()
            .map(str::to_string)
            .unwrap_or_else(|| format!("material {}", m.index().unwrap_or(0)));
        let base_color = pbr.base_color_factor();
        if base_color.iter().any(|c| !c.is_finite()) {
            return Err(src.err(format!(
                "material \"{name}\": a base colour that is not finite"
            )));
        }
        let texture = match pbr.base_color_texture() {
            None => None,
            Some(info) => {
                let img = info.texture().source();
                let what = format!("image {} (material \"{name}\")", img.index());
                let bytes = match img.source() {
                    gltf::image::Source::View { view, .. } => {
                        let b = &self.buffers[view.buffer().index()];
                        b[view.offset()..view.offset() + view.length()].to_vec()
                    }
                    gltf::image::Source::Uri { uri, .. } => match data_uri(uri) {
                        Some(d) => d.map_err(|e| src.err(format!("{what}: {e}")))?,
                        None => {
                            let base = Path::new(src.file).parent().unwrap_or(Path::new(""));
                            let p = resolve(src.root, base, uri)
                                .map_err(|e| src.err(format!("{what}: {e}")))?;
                            read_in_mod(src.root, &p, limits, "image")
                                .map_err(|e| src.err(format!("{what}: {e}")))?
                        }
                    },
                };
                Some(
                    decode_image(&bytes, Some(limits))
                        .map_err(|e| src.err(format!("{what}: {e}")))?,
                )
            }
        };
        Ok(Material {
            name,
            base_color,
            texture,
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn primitive(
        &self,
        prim: &gltf::Primitive<'_>,
        at: &str,
        node: Mat4,
        rigid_joint: Option<usize>,
        joints: &[Joint],
        remap: &[u16],
        default_material: usize,
    ) -> Result<Primitive, String> {
        let r = prim.reader(self.data());
        let raw: Vec<[f32; 3]> = r
            .read_positions()
            .ok_or_else(|| format!("{at} has no POSITION"))?
            .collect();
        if let Some(i) = raw.iter().position(|v| !finite3(*v)) {
            return Err(format!("{at}: POSITION {i} is not a finite number"));
        }
        let count = raw.len();
        let raw_normals: Option<Vec<[f32; 3]>> = r.read_normals().map(|n| n.collect());
        let (jw, mut weights): (Vec<[u16; 4]>, Vec<[f32; 4]>) = match rigid_joint {
            Some(j) => (
                vec![[j as u16, 0, 0, 0]; count],
                vec![[1.0, 0.0, 0.0, 0.0]; count],
            ),
            None => {
                let js: Vec<[u16; 4]> = r
                    .read_joints(0)
                    .ok_or_else(|| format!("{at} is skinned but has no JOINTS_0"))?
                    .into_u16()
                    .collect();
                let ws: Vec<[f32; 4]> = r
                    .read_weights(0)
                    .ok_or_else(|| format!("{at} is skinned but has no WEIGHTS_0"))?
                    .into_f32()
                    .collect();
                if js.len() != count || ws.len() != count {
                    return Err(format!(
                        "{at}: JOINTS_0/WEIGHTS_0 do not match POSITION's count"
                    ));
                }
                let mut mapped = Vec::with_capacity(count);
                for (i, j) in js.iter().enumerate() {
                    let mut m = [0u16; 4];
                    for k in 0..4 {
                        let Some(r) = remap.get(j[k] as usize) else {
                            return Err(format!(
                                "{at}: vertex {i} names joint {}, the skin has {}",
                                j[k],
                                remap.len()
                            ));
                        };
                        m[k] = *r;
                    }
                    mapped.push(m);
                }
                (mapped, ws)
            }
        };
        if let Some(note) = repair_weights(at, &mut weights)? {
            self.repairs.borrow_mut().push(note);
        }
        // Pre-skinned to the bind pose: scene space (a rigid mesh: its node's transform).
        let skin_of = |i: usize| -> Mat4 {
            match rigid_joint {
                Some(_) => node,
                None => {
                    let mut m = Mat4::ZERO;
                    for k in 0..4 {
                        let j = &joints[jw[i][k] as usize];
                        m += (j.bind * j.inverse_bind) * weights[i][k];
                    }
                    m
                }
            }
        };
        let mut positions = Vec::with_capacity(count);
        let mut normals = Vec::with_capacity(count);
        for (i, v) in raw.iter().enumerate() {
            let m = skin_of(i);
            positions.push(m.transform_point3(Vec3::from(*v)).to_array());
            if let Some(n) = &raw_normals {
                let nm = Mat3::from_mat4(m).inverse().transpose();
                normals.push(
                    (nm * Vec3::from(n.get(i).copied().unwrap_or([0.0, 1.0, 0.0])))
                        .normalize_or(Vec3::Y)
                        .to_array(),
                );
            }
        }
        let indices: Vec<u32> = match r.read_indices() {
            Some(ix) => ix.into_u32().collect(),
            None => (0..count as u32).collect(),
        };
        if let Some(i) = indices.iter().position(|x| *x as usize >= count) {
            return Err(format!(
                "{at}: index {i} is {}, but there are {count} vertices",
                indices[i]
            ));
        }
        let indices: Vec<u32> = indices[..indices.len() / 3 * 3].to_vec();
        if raw_normals.is_none() {
            normals = smooth_normals(&positions, &indices);
        }
        let uvs: Vec<[f32; 2]> = match r.read_tex_coords(0) {
            Some(t) => t.into_f32().collect(),
            None => vec![[0.0; 2]; count],
        };
        let colors: Vec<[f32; 4]> = match r.read_colors(0) {
            Some(c) => c.into_rgba_f32().collect(),
            None => vec![[1.0; 4]; count],
        };
        if uvs.len() != count || colors.len() != count {
            return Err(format!(
                "{at}: TEXCOORD_0/COLOR_0 do not match POSITION's count"
            ));
        }
        Ok(Primitive {
            positions,
            normals,
            uvs,
            colors,
            joints: jw,
            weights,
            indices,
            material: prim.material().index().unwrap_or(default_material),
            rigid: rigid_joint.is_some(),
        })
    }
}

/// Area-weighted vertex normals of a triangle list.
fn smooth_normals(positions: &[[f32; 3]], indices: &[u32]) -> Vec<[f32; 3]> {
    let mut n = vec![Vec3::ZERO; positions.len()];
    for t in indices.chunks_exact(3) {
        let [a, b, c] = [t[0], t[1], t[2]].map(|i| Vec3::from(positions[i as usize]));
        let f = (b - a).cross(c - a);
        for i in t {
            n[*i as usize] += f;
        }
    }
    n.into_iter()
        .map(|v| v.normalize_or(Vec3::Y).to_array())
        .collect()
}

/// A PNG or JPEG decoded to RGBA8.
fn decode_image(bytes: &[u8], limits: Option<&LoadLimits>) -> Result<Texture, String> {
    if let Some(l) = limits {
        if bytes.len() as u64 > l.max_bytes {
            return Err("over the size limit".into());
        }
    }
    let img =
        image::load_from_memory(bytes).map_err(|e| format!("not a PNG or JPEG image: {e}"))?;
    let rgba = img.to_rgba8();
    Ok(Texture {
        width: rgba.width(),
        height: rgba.height(),
        rgba: rgba.into_raw(),
    })
}
