//! Writing a model as a binary glTF 2.0 file (GLB) a modder can open in Blender and
//! re-model: the skeleton as a node tree in its bind pose, the skin with its inverse bind
//! matrices, the triangles (positions, normals, texture coordinates, vertex colours, four
//! joints and weights a vertex) one primitive per material, and the materials with their
//! base colour and texture (embedded PNG); the creature's body plan, when given, in the
//! scene's extras (see [`super::record`]).

use glam::Vec3;
use serde_json::{json, Value};

use super::record::EXTRAS_KEY;
use super::{Model, PlanRecord};

/// The binary chunk being written and the views and accessors into it.
#[derive(Default)]
struct Chunk {
    bin: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
}

const ARRAY: u32 = 34962;
const ELEMENTS: u32 = 34963;

impl Chunk {
    /// Appends `bytes` as a buffer view (4-byte aligned); returns its index.
    fn view(&mut self, bytes: &[u8], target: Option<u32>) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let mut v = json!({ "buffer": 0, "byteOffset": self.bin.len(), "byteLength": bytes.len() });
        if let Some(t) = target {
            v["target"] = json!(t);
        }
        self.bin.extend_from_slice(bytes);
        self.views.push(v);
        self.views.len() - 1
    }

    /// Appends `bytes` as an accessor of `count` `ty` of component type `ct` (with `extra`
    /// fields: min, max); returns its index.
    fn accessor(
        &mut self,
        bytes: &[u8],
        count: usize,
        ty: &str,
        ct: u32,
        target: Option<u32>,
        extra: Value,
    ) -> usize {
        let v = self.view(bytes, target);
        let mut a = json!({ "bufferView": v, "componentType": ct, "count": count, "type": ty });
        if let Value::Object(m) = extra {
            for (k, x) in m {
                a[k] = x;
            }
        }
        self.accessors.push(a);
        self.accessors.len() - 1
    }
}

fn f32s<const N: usize>(xs: &[[f32; N]]) -> Vec<u8> {
    xs.iter().flatten().flat_map(|x| x.to_le_bytes()).collect()
}

/// The glTF nodes of `model`'s joints, parents before children, each with its local
/// transform in the bind pose.
fn joint_nodes(model: &Model) -> Result<Vec<Value>, String> {
    let mut nodes: Vec<Value> = Vec::new();
    for j in &model.joints {
        let local = match j.parent {
            Some(p) => model.joints[p].bind.inverse() * j.bind,
            None => j.bind,
        };
        let (s, r, t) = local.to_scale_rotation_translation();
        if !(s.is_finite() && r.is_finite() && t.is_finite()) {
            return Err(format!(
                "joint \"{}\" has a transform that is not finite",
                j.name
            ));
        }
        let mut n = json!({ "name": j.name, "translation": t.to_array(), "rotation": r.normalize().to_array() });
        if (s - Vec3::ONE).abs().max_element() > 1e-5 {
            n["scale"] = json!(s.to_array());
        }
        if !j.children.is_empty() {
            n["children"] = json!(j.children);
        }
        nodes.push(n);
    }
    Ok(nodes)
}

/// The inverse bind matrices' bytes: each joint's bind pose inverted (the vertices are
/// stored in the bind pose, scene space), exactly affine (the validator checks the last
/// row).
fn inverse_binds(model: &Model) -> Vec<u8> {
    model
        .joints
        .iter()
        .flat_map(|j| {
            let mut m = j.bind.inverse();
            m.x_axis.w = 0.0;
            m.y_axis.w = 0.0;
            m.z_axis.w = 0.0;
            m.w_axis.w = 1.0;
            m.to_cols_array()
        })
        .flat_map(f32::to_le_bytes)
        .collect()
}

/// One material's triangles, merged from the model's primitives, as glTF wants them.
#[derive(Default)]
struct Merged {
    pos: Vec<[f32; 3]>,
    nrm: Vec<[f32; 3]>,
    uv: Vec<[f32; 2]>,
    col: Vec<[f32; 4]>,
    jnt: Vec<[u16; 4]>,
    wgt: Vec<[f32; 4]>,
    idx: Vec<u32>,
}

impl Merged {
    /// Appends primitive `p`: unit normals, colours in 0..1, unused weight slots as joint 0
    /// with weight 0 and the rest renormalised (as the validator wants them).
    fn push(&mut self, p: &super::Primitive) {
        let base = self.pos.len() as u32;
        self.pos.extend_from_slice(&p.positions);
        self.nrm
            .extend(p.positions.iter().enumerate().map(|(i, _)| {
                let n = Vec3::from(p.normals.get(i).copied().unwrap_or([0.0, 1.0, 0.0]));
                n.normalize_or(Vec3::Y).to_array()
            }));
        self.uv.extend_from_slice(&p.uvs);
        self.col
            .extend(p.colors.iter().map(|c| c.map(|x| x.clamp(0.0, 1.0))));
        for (j, w) in p.joints.iter().zip(&p.weights) {
            let mut jj = *j;
            let mut ww = *w;
            for k in 0..4 {
                if ww[k] <= 0.0 {
                    jj[k] = 0;
                    ww[k] = 0.0;
                }
            }
            let s: f32 = ww.iter().sum();
            self.jnt.push(jj);
            self.wgt.push(if s > 0.0 {
                ww.map(|x| x / s)
            } else {
                [1.0, 0.0, 0.0, 0.0]
            });
        }
        self.idx.extend(p.indices.iter().map(|i| i + base));
    }

    /// Its accessors in `c` and the glTF primitive that reads them (texture coordinates
    /// only when `textured`).
    fn primitive(&self, c: &mut Chunk, material: usize, textured: bool) -> Value {
        let (lo, hi) = self.pos.iter().fold(
            (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
            |(lo, hi), p| (lo.min(Vec3::from(*p)), hi.max(Vec3::from(*p))),
        );
        let n = self.pos.len();
        let a_pos = c.accessor(
            &f32s(&self.pos),
            n,
            "VEC3",
            5126,
            Some(ARRAY),
            json!({ "min": lo.to_array(), "max": hi.to_array() }),
        );
        let a_nrm = c.accessor(&f32s(&self.nrm), n, "VEC3", 5126, Some(ARRAY), json!({}));
        let a_uv =
            textured.then(|| c.accessor(&f32s(&self.uv), n, "VEC2", 5126, Some(ARRAY), json!({})));
        let a_col = c.accessor(&f32s(&self.col), n, "VEC4", 5126, Some(ARRAY), json!({}));
        let jb: Vec<u8> = self
            .jnt
            .iter()
            .flatten()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        let a_jnt = c.accessor(&jb, n, "VEC4", 5123, Some(ARRAY), json!({}));
        let a_wgt = c.accessor(&f32s(&self.wgt), n, "VEC4", 5126, Some(ARRAY), json!({}));
        let ib: Vec<u8> = self.idx.iter().flat_map(|x| x.to_le_bytes()).collect();
        let a_idx = c.accessor(
            &ib,
            self.idx.len(),
            "SCALAR",
            5125,
            Some(ELEMENTS),
            json!({}),
        );
        let mut attributes = json!({
            "POSITION": a_pos, "NORMAL": a_nrm, "COLOR_0": a_col,
            "JOINTS_0": a_jnt, "WEIGHTS_0": a_wgt
        });
        if let Some(a) = a_uv {
            attributes["TEXCOORD_0"] = json!(a);
        }
        json!({
            "attributes": attributes,
            "indices": a_idx,
            "material": material,
        })
    }
}

/// The mesh's primitives: the model's triangles merged per material.
fn primitives(c: &mut Chunk, model: &Model) -> Vec<Value> {
    let mut by_material: std::collections::BTreeMap<usize, Merged> = Default::default();
    for p in &model.primitives {
        by_material.entry(p.material).or_default().push(p);
    }
    by_material
        .iter()
        .filter(|(_, m)| !m.pos.is_empty())
        .map(|(material, m)| {
            let textured = model
                .materials
                .get(*material)
                .is_some_and(|m| m.texture.is_some());
            m.primitive(c, *material, textured)
        })
        .collect()
}

/// A GLB's materials, their textures and those textures' images.
struct Materials {
    images: Vec<Value>,
    textures: Vec<Value>,
    materials: Vec<Value>,
}

/// The materials: their textures as PNGs in `c`.
fn materials(c: &mut Chunk, model: &Model) -> Result<Materials, String> {
    let mut images = Vec::new();
    let mut textures = Vec::new();
    let mut materials = Vec::new();
    for m in &model.materials {
        let mut pbr = json!({ "baseColorFactor": m.base_color, "metallicFactor": 0.0, "roughnessFactor": 0.8 });
        if let Some(t) = &m.texture {
            let mut png = Vec::new();
            {
                let mut enc = png::Encoder::new(&mut png, t.width, t.height);
                enc.set_color(png::ColorType::Rgba);
                enc.set_depth(png::BitDepth::Eight);
                let mut w = enc.write_header().map_err(|e| e.to_string())?;
                w.write_image_data(&t.rgba).map_err(|e| e.to_string())?;
            }
            let v = c.view(&png, None);
            images.push(json!({ "bufferView": v, "mimeType": "image/png" }));
            textures.push(json!({ "source": images.len() - 1, "sampler": 0 }));
            pbr["baseColorTexture"] = json!({ "index": textures.len() - 1 });
        }
        materials.push(json!({ "name": m.name, "pbrMetallicRoughness": pbr }));
    }
    Ok(Materials {
        images,
        textures,
        materials,
    })
}

/// A GLB container of `doc` and the binary chunk `bin`.
fn glb(doc: &Value, mut bin: Vec<u8>) -> Result<Vec<u8>, String> {
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let mut js = serde_json::to_vec(doc).map_err(|e| e.to_string())?;
    while !js.len().is_multiple_of(4) {
        js.push(b' ');
    }
    let total = 12 + 8 + js.len() + 8 + bin.len();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(js.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&js);
    out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(&bin);
    Ok(out)
}

/// The GLB bytes of `model`, with `record` (the body plan of the type it draws) in the
/// scene's extras.
pub fn to_glb(model: &Model, record: Option<&PlanRecord>) -> Result<Vec<u8>, String> {
    let mut c = Chunk::default();
    let mut nodes = joint_nodes(model)?;
    let ibm_accessor = c.accessor(
        &inverse_binds(model),
        model.joints.len(),
        "MAT4",
        5126,
        None,
        json!({}),
    );
    let primitives = primitives(&mut c, model);
    let Materials {
        images,
        textures,
        materials,
    } = materials(&mut c, model)?;
    // The skinned mesh's node, at the root (its own transform is not used by skinning).
    let mut scene_nodes: Vec<usize> = (0..model.joints.len())
        .filter(|j| model.joints[*j].parent.is_none())
        .collect();
    scene_nodes.push(nodes.len());
    nodes.push(json!({ "name": "mesh", "mesh": 0, "skin": 0 }));
    let Chunk {
        bin,
        views,
        accessors,
    } = c;
    let mut doc = json!({
        "asset": { "version": "2.0", "generator": "skitter export" },
        "scene": 0,
        "scenes": [match record {
            Some(r) => json!({ "nodes": scene_nodes, "extras": { EXTRAS_KEY: r.to_json() } }),
            None => json!({ "nodes": scene_nodes }),
        }],
        "nodes": nodes,
        "skins": [{ "joints": (0..model.joints.len()).collect::<Vec<_>>(), "inverseBindMatrices": ibm_accessor }],
        "meshes": [{ "name": "body", "primitives": primitives }],
        "materials": materials,
        "buffers": [{ "byteLength": bin.len().next_multiple_of(4) }],
        "bufferViews": views,
        "accessors": accessors,
    });
    if !images.is_empty() {
        doc["images"] = json!(images);
        doc["textures"] = json!(textures);
        doc["samplers"] = json!([{ "magFilter": 9729, "minFilter": 9729 }]);
    }
    glb(&doc, bin)
}
