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

/// The GLB bytes of `model`, with `record` (the body plan of the type it draws) in the
/// scene's extras.
pub fn to_glb(model: &Model, record: Option<&PlanRecord>) -> Result<Vec<u8>, String> {
    let mut c = Chunk::default();
    // Nodes: one per joint, parents before children; local transforms from the bind pose.
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
    let roots: Vec<usize> = (0..model.joints.len())
        .filter(|j| model.joints[*j].parent.is_none())
        .collect();
    // Inverse bind matrices: each joint's bind pose inverted (the vertices are stored in
    // the bind pose, scene space).
    let ibm: Vec<u8> = model
        .joints
        .iter()
        .flat_map(|j| {
            let mut m = j.bind.inverse();
            // Exactly affine: the validator checks the last row.
            m.x_axis.w = 0.0;
            m.y_axis.w = 0.0;
            m.z_axis.w = 0.0;
            m.w_axis.w = 1.0;
            m.to_cols_array()
        })
        .flat_map(f32::to_le_bytes)
        .collect();
    let ibm_accessor = c.accessor(&ibm, model.joints.len(), "MAT4", 5126, None, json!({}));
    // Triangles, merged per material.
    let mut by_material: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
    for (i, p) in model.primitives.iter().enumerate() {
        by_material.entry(p.material).or_default().push(i);
    }
    let mut primitives = Vec::new();
    for (material, prims) in &by_material {
        let mut pos: Vec<[f32; 3]> = Vec::new();
        let mut nrm: Vec<[f32; 3]> = Vec::new();
        let mut uv: Vec<[f32; 2]> = Vec::new();
        let mut col: Vec<[f32; 4]> = Vec::new();
        let mut jnt: Vec<[u16; 4]> = Vec::new();
        let mut wgt: Vec<[f32; 4]> = Vec::new();
        let mut idx: Vec<u32> = Vec::new();
        for &pi in prims {
            let p = &model.primitives[pi];
            let base = pos.len() as u32;
            pos.extend_from_slice(&p.positions);
            nrm.extend(p.positions.iter().enumerate().map(|(i, _)| {
                let n = Vec3::from(p.normals.get(i).copied().unwrap_or([0.0, 1.0, 0.0]));
                n.normalize_or(Vec3::Y).to_array()
            }));
            uv.extend_from_slice(&p.uvs);
            col.extend(p.colors.iter().map(|c| c.map(|x| x.clamp(0.0, 1.0))));
            // Unused slots: joint 0 with weight 0, as the validator wants them.
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
                jnt.push(jj);
                wgt.push(if s > 0.0 {
                    ww.map(|x| x / s)
                } else {
                    [1.0, 0.0, 0.0, 0.0]
                });
            }
            idx.extend(p.indices.iter().map(|i| i + base));
        }
        if pos.is_empty() {
            continue;
        }
        let (lo, hi) = pos.iter().fold(
            (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
            |(lo, hi), p| (lo.min(Vec3::from(*p)), hi.max(Vec3::from(*p))),
        );
        let n = pos.len();
        let a_pos = c.accessor(
            &f32s(&pos),
            n,
            "VEC3",
            5126,
            Some(ARRAY),
            json!({ "min": lo.to_array(), "max": hi.to_array() }),
        );
        let a_nrm = c.accessor(&f32s(&nrm), n, "VEC3", 5126, Some(ARRAY), json!({}));
        // Texture coordinates only where a texture reads them.
        let textured = model
            .materials
            .get(*material)
            .is_some_and(|m| m.texture.is_some());
        let a_uv =
            textured.then(|| c.accessor(&f32s(&uv), n, "VEC2", 5126, Some(ARRAY), json!({})));
        let a_col = c.accessor(&f32s(&col), n, "VEC4", 5126, Some(ARRAY), json!({}));
        let jb: Vec<u8> = jnt.iter().flatten().flat_map(|x| x.to_le_bytes()).collect();
        let a_jnt = c.accessor(&jb, n, "VEC4", 5123, Some(ARRAY), json!({}));
        let a_wgt = c.accessor(&f32s(&wgt), n, "VEC4", 5126, Some(ARRAY), json!({}));
        let ib: Vec<u8> = idx.iter().flat_map(|x| x.to_le_bytes()).collect();
        let a_idx = c.accessor(&ib, idx.len(), "SCALAR", 5125, Some(ELEMENTS), json!({}));
        let mut attributes = json!({
            "POSITION": a_pos, "NORMAL": a_nrm, "COLOR_0": a_col,
            "JOINTS_0": a_jnt, "WEIGHTS_0": a_wgt
        });
        if let Some(a) = a_uv {
            attributes["TEXCOORD_0"] = json!(a);
        }
        primitives.push(json!({
            "attributes": attributes,
            "indices": a_idx,
            "material": material,
        }));
    }
    // Materials, their textures as embedded PNGs.
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
    // The skinned mesh's node, at the root (its own transform is not used by skinning).
    let mesh_node = nodes.len();
    nodes.push(json!({ "name": "mesh", "mesh": 0, "skin": 0 }));
    let mut scene_nodes = roots.clone();
    scene_nodes.push(mesh_node);
    let Chunk {
        mut bin,
        views,
        accessors,
    } = c;
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
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
        "buffers": [{ "byteLength": bin.len() }],
        "bufferViews": views,
        "accessors": accessors,
    });
    if !images.is_empty() {
        doc["images"] = json!(images);
        doc["textures"] = json!(textures);
        doc["samplers"] = json!([{ "magFilter": 9729, "minFilter": 9729 }]);
    }
    let mut js = serde_json::to_vec(&doc).map_err(|e| e.to_string())?;
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
