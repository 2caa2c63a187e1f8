//! What real exporters write that a strict reader would refuse, read as they meant it:
//! compressed geometry named (and refused), textures without an image dropped, weights
//! that are NaN or negative repaired, a second skin over the same joints, and a model with
//! no skin at all (its node tree the skeleton).

use glam::Mat4;

/// Why a file whose geometry is compressed cannot be read: the extension and how to
/// export without it (`None` when it uses neither Draco nor meshopt).
pub(super) fn compressed(doc: &gltf::Document) -> Option<String> {
    let used: Vec<&str> = doc
        .extensions_required()
        .chain(doc.extensions_used())
        .collect();
    let fix = "re-export without compression (Blender: File > Export > glTF 2.0, Data > Compression off; gltf-transform: `gltf-transform copy in.glb out.glb` after `gltf-transform dedup`, or `npx gltfpack -noq`)";
    if used.contains(&"KHR_draco_mesh_compression") {
        return Some(format!(
            "its meshes are Draco-compressed (KHR_draco_mesh_compression), which skitter does not decode: {fix}"
        ));
    }
    if used.iter().any(|e| e.ends_with("_meshopt_compression")) {
        return Some(format!(
            "its buffers are meshopt-compressed (EXT_meshopt_compression), which skitter does not decode: {fix}"
        ));
    }
    None
}

/// Textures that name no image (Blockbench writes them, its image beside the file) taken
/// out, and the materials that used them left with their colour (or the define's
/// `model.texture`): what was done, when anything was.
pub(super) fn drop_imageless_textures(root: &mut gltf::json::Root) -> Option<String> {
    use gltf::json::Index;
    let images = root.images.len();
    let bad: Vec<usize> = (0..root.textures.len())
        .filter(|t| root.textures[*t].source.value() >= images)
        .collect();
    if bad.is_empty() {
        return None;
    }
    // Old texture number → new (None: dropped).
    let mut next = 0u32;
    let new: Vec<Option<u32>> = (0..root.textures.len())
        .map(|t| {
            (!bad.contains(&t)).then(|| {
                next += 1;
                next - 1
            })
        })
        .collect();
    let remap = |i: &mut Index<gltf::json::Texture>| -> bool {
        match new.get(i.value()) {
            Some(Some(n)) => {
                *i = Index::new(*n);
                true
            }
            Some(None) => false,
            None => true, // out of range: the validation says so
        }
    };
    let mut dropped = 0;
    for m in root.materials.iter_mut() {
        let pbr = &mut m.pbr_metallic_roughness;
        for info in [
            &mut pbr.base_color_texture,
            &mut pbr.metallic_roughness_texture,
            &mut m.emissive_texture,
        ] {
            if info.as_mut().is_some_and(|t| !remap(&mut t.index)) {
                *info = None;
                dropped += 1;
            }
        }
        if m.normal_texture
            .as_mut()
            .is_some_and(|t| !remap(&mut t.index))
        {
            m.normal_texture = None;
        }
        if m.occlusion_texture
            .as_mut()
            .is_some_and(|t| !remap(&mut t.index))
        {
            m.occlusion_texture = None;
        }
    }
    let mut k = 0;
    root.textures.retain(|_| {
        k += 1;
        new[k - 1].is_some()
    });
    let list: Vec<String> = bad.iter().map(usize::to_string).collect();
    Some(format!(
        "texture {} names no image (the file has {images}): {dropped} material slot(s) that used it drawn with model.texture if the define gives one, else their colour",
        list.join(", ")
    ))
}

/// The skeleton of a model without a skin: every node of the scene that carries a mesh or
/// has children (its transform a bone's), bound where the scene puts it.
pub(super) fn node_skeleton<'d>(
    doc: &'d gltf::Document,
    global: &[Option<Mat4>],
) -> (Vec<gltf::Node<'d>>, Vec<Mat4>) {
    let nodes: Vec<gltf::Node<'d>> = doc
        .nodes()
        .filter(|nd| global[nd.index()].is_some())
        .filter(|nd| nd.mesh().is_some() || nd.children().next().is_some())
        .collect();
    let inverse = nodes
        .iter()
        .map(|nd| global[nd.index()].unwrap_or(Mat4::IDENTITY).inverse())
        .collect();
    (nodes, inverse)
}

/// Skin `s`'s joints as joints of the model (`node_joint`: node → joint), when every one
/// of them is one: another skin over the same skeleton (or part of it).
pub(super) fn same_joints(
    s: &gltf::Skin<'_>,
    node_joint: &std::collections::HashMap<usize, usize>,
) -> Option<Vec<u16>> {
    s.joints()
        .map(|j| node_joint.get(&j.index()).map(|k| *k as u16))
        .collect()
}

/// Every vertex's weights summed to 1. Exporters write a few unusable ones (FBX2glTF:
/// NaN for unweighted vertices; negative ones): those entries count as 0, and a vertex
/// left with none goes wholly to its first joint — repaired, with a line in
/// `repairs`. Refused only when no vertex has a usable weight. Returns what was repaired, if anything.
pub(super) fn repair_weights(at: &str, weights: &mut [[f32; 4]]) -> Result<Option<String>, String> {
    let mut bad = Vec::new();
    for (i, w) in weights.iter_mut().enumerate() {
        if w.iter().any(|x| !x.is_finite() || *x < 0.0) {
            bad.push(i);
            w.iter_mut()
                .filter(|x| !x.is_finite() || **x < 0.0)
                .for_each(|x| *x = 0.0);
        }
        let s: f32 = w.iter().sum();
        if s <= 1e-6 {
            *w = [1.0, 0.0, 0.0, 0.0];
        } else {
            w.iter_mut().for_each(|x| *x /= s);
        }
    }
    if bad.is_empty() {
        return Ok(None);
    }
    if bad.len() == weights.len() {
        return Err(format!(
            "{at}: WEIGHTS_0 has no finite, non-negative weight on any of its {} vertices",
            weights.len()
        ));
    }
    let first: Vec<String> = bad.iter().take(5).map(usize::to_string).collect();
    Ok(Some(format!(
        "{at}: {} of {} vertices had NaN or negative weights (vertex {}{}): those weights were taken as 0 and the rest renormalised",
        bad.len(),
        weights.len(),
        first.join(", "),
        if bad.len() > 5 { ", …" } else { "" }
    )))
}
