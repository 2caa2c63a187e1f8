//! Bad model input: bone names in `bind` that are not there, `model.hide` names, and broken
//! or hostile glTF files — each a clear error that names the file (and the nearest name),
//! nothing read outside the mod's folder.

#![allow(clippy::expect_used, clippy::unwrap_used)] // test set-up: a failure is a failed test

mod common;

use base64::Engine as _;
use common::*;
use serde_json::{json, Value};
use skitter::model::{self, BindSpec, BoundModel, LoadLimits, Source};

#[test]
fn bones_named_in_bind_must_exist_and_say_which_one_was_meant() {
    let m = load_in(&assets().join("fox"), "fox.glb", None).expect("fox");
    let spec = BindSpec {
        scale: 0.01,
        legs: vec![(
            "front".into(),
            vec!["b_LeftUperArm_09".into(), "b_LeftForeArm_010".into()],
        )],
        ..BindSpec::default()
    };
    let e = BoundModel::new(std::sync::Arc::new(m.clone()), &spec, None).expect_err("typo");
    assert!(
        e.contains("model.bind.legs.front: no bone \"b_LeftUperArm_09\"")
            && e.contains("did you mean \"b_LeftUpperArm_09\""),
        "{e}"
    );
    let e = BoundModel::new(
        std::sync::Arc::new(m),
        &BindSpec {
            scale: 1.0,
            ..BindSpec::default()
        },
        Some("Dance".into()),
    )
    .expect_err("clip");
    assert!(
        e.contains("no clip \"Dance\"") && e.contains("Survey, Walk, Run"),
        "{e}"
    );
}

/// A minimal rigged glTF (one triangle skinned to a two-joint chain), its buffer embedded,
/// after `edit` changed its JSON or its bytes.
fn tiny(edit: impl FnOnce(&mut Value, &mut Vec<u8>)) -> String {
    let mut b: Vec<u8> = Vec::new();
    for p in [[0.0f32, 0.0, 0.0], [0.1, 1.0, 0.0], [-0.1, 1.0, 0.0]] {
        p.iter().for_each(|x| b.extend(x.to_le_bytes()));
    }
    for i in [0u16, 1, 2, 0] {
        b.extend(i.to_le_bytes());
    }
    for _ in 0..3 {
        b.extend([0u8, 1, 0, 0]);
    }
    for _ in 0..3 {
        [0.5f32, 0.5, 0.0, 0.0]
            .iter()
            .for_each(|x| b.extend(x.to_le_bytes()));
    }
    for t in [0.0f32, -1.0] {
        let m = [
            1.0f32, 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0., 0., t, 0., 1.,
        ];
        m.iter().for_each(|x| b.extend(x.to_le_bytes()));
    }
    assert_eq!(b.len(), 232);
    let mut j = json!({
        "asset": { "version": "2.0" },
        "scene": 0,
        "scenes": [{ "nodes": [0, 2] }],
        "nodes": [
            { "name": "Hip", "children": [1] },
            { "name": "Foot", "translation": [0.0, 1.0, 0.0] },
            { "name": "mesh", "mesh": 0, "skin": 0 }
        ],
        "skins": [{ "joints": [0, 1], "inverseBindMatrices": 4 }],
        "meshes": [{ "primitives": [{ "attributes": { "POSITION": 0, "JOINTS_0": 2, "WEIGHTS_0": 3 }, "indices": 1 }] }],
        "buffers": [{ "byteLength": 232 }],
        "bufferViews": [
            { "buffer": 0, "byteOffset": 0, "byteLength": 36 },
            { "buffer": 0, "byteOffset": 36, "byteLength": 6 },
            { "buffer": 0, "byteOffset": 44, "byteLength": 12 },
            { "buffer": 0, "byteOffset": 56, "byteLength": 48 },
            { "buffer": 0, "byteOffset": 104, "byteLength": 128 }
        ],
        "accessors": [
            { "bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3", "min": [-0.1, 0.0, 0.0], "max": [0.1, 1.0, 0.0] },
            { "bufferView": 1, "componentType": 5123, "count": 3, "type": "SCALAR" },
            { "bufferView": 2, "componentType": 5121, "count": 3, "type": "VEC4" },
            { "bufferView": 3, "componentType": 5126, "count": 3, "type": "VEC4" },
            { "bufferView": 4, "componentType": 5126, "count": 2, "type": "MAT4" }
        ]
    });
    edit(&mut j, &mut b);
    if j["buffers"][0].get("uri").is_none() {
        j["buffers"][0]["uri"] = Value::String(format!(
            "data:application/octet-stream;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(&b)
        ));
    }
    j.to_string()
}

#[test]
fn model_hide_leaves_out_the_knights_spare_weapons_and_names_a_mesh_it_cannot_find() {
    let root = assets().join("knight");
    let load = |hide: &[String]| {
        model::load(
            &Source {
                root: &root,
                mod_name: "knight",
                file: "knight.glb",
                texture: None,
                hide,
            },
            &LoadLimits::default(),
        )
    };
    let all = load(&[]).expect("loads");
    // Six spare weapons and shields, by node name (or a mesh name: "Cube.12993" is the
    // two-handed sword's mesh).
    let spare: Vec<String> = [
        "1H_Sword_Offhand",
        "Badge_Shield",
        "Rectangle_Shield",
        "Spike_Shield",
        "Cube.12993",
    ]
    .map(String::from)
    .to_vec();
    let armed = load(&spare).expect("loads");
    let rigid = |m: &model::Model| m.primitives.iter().filter(|p| p.rigid).count();
    let tris = |m: &model::Model| m.primitives.iter().map(|p| p.indices.len()).sum::<usize>();
    // One sword, one shield, the helmet and the cape left: fewer rigid pieces and fewer
    // triangles, the skinned body untouched.
    assert!(
        rigid(&armed) < rigid(&all),
        "{} vs {}",
        rigid(&armed),
        rigid(&all)
    );
    assert!(tris(&armed) < tris(&all));
    let skinned = |m: &model::Model| m.primitives.iter().filter(|p| !p.rigid).count();
    assert_eq!(skinned(&armed), skinned(&all));
    assert_eq!(armed.joints.len(), all.joints.len());
    // A name that is not there: the file and the nearest name.
    let e = load(&["Round_Sheild".to_string()])
        .expect_err("no such mesh")
        .to_string();
    assert!(
        e.starts_with("knight/knight.glb: ")
            && e.contains("model.hide: no mesh node named \"Round_Sheild\"")
            && e.contains("did you mean \"Round_Shield\""),
        "{e}"
    );
}

#[test]
fn bad_model_files_are_clear_errors_that_name_the_file() {
    let (_dir, root) = scratch_mod();
    let try_load = |json: &str| load_json(&root, json);
    let ok = try_load(&tiny(|_, _| {})).expect("the tiny model loads");
    assert_eq!((ok.joints.len(), ok.primitives[0].indices.len()), (2, 3));
    let cases: Vec<(&str, String, &str)> = vec![
        ("empty", String::new(), "m/assets/x.gltf: is empty"),
        (
            "not JSON",
            "{ nope".into(),
            "m/assets/x.gltf: is not a valid glTF 2.0 file",
        ),
        (
            "view past its buffer",
            tiny(|j, _| j["bufferViews"][4]["byteLength"] = json!(200)),
            "buffer view 4",
        ),
        (
            "NaN",
            tiny(|_, b| b[12..16].copy_from_slice(&f32::NAN.to_le_bytes())),
            "POSITION 1 is not a finite number",
        ),
        (
            "index out of range",
            tiny(|_, b| b[40..42].copy_from_slice(&7u16.to_le_bytes())),
            "index 2 is 7, but there are 3 vertices",
        ),
        (
            "too many joints",
            tiny(|j, _| {
                let nodes = j["nodes"].as_array_mut().unwrap();
                let first = nodes.len();
                for i in 0..300 {
                    nodes.push(json!({ "name": format!("extra{i}") }));
                }
                let joints: Vec<usize> = (0..2).chain(first..first + 300).collect();
                j["skins"][0] = json!({ "joints": joints });
                let roots: Vec<usize> = (0..first + 300).filter(|i| *i != 1).collect();
                j["scenes"][0]["nodes"] = json!(roots);
            }),
            "302 joints, more than the 256",
        ),
        (
            "a uri out of the mod",
            tiny(|j, _| j["buffers"][0]["uri"] = json!("../../x.bin")),
            "leaves the mod folder",
        ),
        (
            "an absolute uri",
            tiny(|j, _| j["buffers"][0]["uri"] = json!("/etc/passwd")),
            "is an absolute path",
        ),
        (
            "a URL",
            tiny(|j, _| j["buffers"][0]["uri"] = json!("http://example.com/x.bin")),
            "is not a file in the mod folder",
        ),
        (
            "a folder",
            tiny(|j, _| j["buffers"][0]["uri"] = json!(".")),
            "is not a file",
        ),
    ];
    for (what, json, want) in cases {
        let e = try_load(&json).expect_err(what);
        assert!(e.contains(want), "{what}: {e}");
        assert!(e.starts_with("m/assets/x.gltf: "), "{what}: {e}");
    }
    // Over the size limit.
    std::fs::write(root.join("assets/x.gltf"), tiny(|_, _| {})).expect("write");
    let e = model::load(
        &Source {
            root: &root,
            mod_name: "m",
            file: "assets/x.gltf",
            texture: None,
            hide: &[],
        },
        &LoadLimits { max_bytes: 200 },
    )
    .expect_err("limit")
    .to_string();
    assert!(
        e.contains("over the 0.00 MiB limit (--max-asset-mb)"),
        "{e}"
    );
    // The model file itself must be in the mod.
    let e = load_in(&root, "../m/../../x.gltf", None).expect_err("out");
    assert!(e.contains("leaves the mod folder"), "{e}");
}

/// Issue 44: what real exporters write and other tools open, survived with a warning that
/// says what was repaired: vertices with NaN or negative weights (FBX2glTF writes NaN for
/// unweighted ones), a texture with no image (Blockbench); compressed geometry refused with
/// the extension's name and how to re-export, not a wall of validation noise.
#[test]
fn exporters_habits_load_repaired_or_are_refused_with_the_reason_first() {
    let (_dir, root) = scratch_mod();
    let try_load = |json: &str| load_json(&root, json);
    // The weights of the first two vertices are bytes 56..72 and 72..88.
    let nan = f32::NAN.to_le_bytes();
    let m = try_load(&tiny(|_, b| b[72..76].copy_from_slice(&nan))).expect("NaN weights load");
    assert!(
        m.repairs.len() == 1
            && m.repairs[0].contains("1 of 3 vertices had NaN or negative weights (vertex 1)"),
        "{:?}",
        m.repairs
    );
    let w = m.primitives[0].weights[1];
    assert!(
        w.iter().all(|x| x.is_finite()) && (w.iter().sum::<f32>() - 1.0).abs() < 1e-5,
        "{w:?}"
    );
    let m = try_load(&tiny(|_, b| {
        b[56..60].copy_from_slice(&(-0.5f32).to_le_bytes())
    }))
    .expect("a negative weight loads");
    assert!(m.repairs[0].contains("(vertex 0)"), "{:?}", m.repairs);
    // Every vertex's weights unusable: the attribute is garbage.
    let e = try_load(&tiny(|_, b| {
        for k in (56..104).step_by(4) {
            b[k..k + 4].copy_from_slice(&nan);
        }
    }))
    .expect_err("all NaN");
    assert!(
        e.contains("WEIGHTS_0 has no finite, non-negative weight on any of its 3 vertices"),
        "{e}"
    );
    // A material whose texture names no image: loaded, drawn in its colour.
    let m = try_load(&tiny(|j, _| {
        j["materials"] = json!([{ "name": "skin", "pbrMetallicRoughness": {
            "baseColorFactor": [0.5, 0.25, 0.1, 1.0], "baseColorTexture": { "index": 0 } } }]);
        j["textures"] = json!([{ "sampler": 0 }]);
        j["samplers"] = json!([{}]);
        j["meshes"][0]["primitives"][0]["material"] = json!(0);
    }))
    .expect("a texture without its image loads");
    assert!(
        m.repairs
            .iter()
            .any(|r| r.contains("texture 0 names no image")),
        "{:?}",
        m.repairs
    );
    assert!(m.materials[0].texture.is_none() && m.materials[0].base_color[0] == 0.5);
    // Compressed geometry: the extension and the way out, and nothing else.
    for (ext, name) in [
        ("KHR_draco_mesh_compression", "Draco"),
        ("EXT_meshopt_compression", "meshopt"),
    ] {
        let e = try_load(&tiny(|j, _| {
            j["extensionsUsed"] = json!([ext]);
            j["extensionsRequired"] = json!([ext]);
            j["accessors"][0]
                .as_object_mut()
                .unwrap()
                .remove("bufferView");
        }))
        .expect_err(ext);
        assert!(
            e.starts_with("m/assets/x.gltf: ")
                && e.contains(name)
                && e.contains(ext)
                && e.contains("re-export")
                && !e.contains("Missing data"),
            "{ext}: {e}"
        );
    }
}

/// Issue 44: a model far from a creature's size (the shared spider at `scale = 25`, 139 m
/// across) loads with a warning that says how big it is and the `model.scale` that fits;
/// `model.height` fits a model to a height (never with `scale`).
#[test]
fn a_model_of_the_wrong_size_is_named_with_the_scale_that_fits() {
    let dir = tempfile::tempdir().expect("tmp");
    let m = dir.path().join("big");
    std::fs::create_dir_all(m.join("assets")).expect("mkdir");
    std::fs::copy(
        assets().join("spider/spider.gltf"),
        m.join("assets/spider.gltf"),
    )
    .expect("copy");
    std::fs::write(m.join("mod.toml"), "name = \"big\"\nversion = \"0.1.0\"\n").expect("toml");
    std::fs::write(
        m.join("main.lua"),
        "creature.define { name = \"big\", model = { file = \"assets/spider.gltf\", scale = 25 } }\n",
    )
    .expect("lua");
    let ride = |height: &str| -> f64 {
        std::fs::write(
            m.join("main.lua"),
            format!("creature.define {{ name = \"big\", model = {{ file = \"assets/spider.gltf\", {height} }} }}\n"),
        )
        .expect("lua");
        let out = skitter(&["check", m.to_str().expect("path")]);
        let said = text(&out);
        assert!(
            out.status.success() && !said.contains("warning"),
            "{height}: {said}"
        );
        said.split("ride height ")
            .nth(1)
            .and_then(|r| r.split(' ').next())
            .and_then(|r| r.parse().ok())
            .unwrap_or_else(|| panic!("{said}"))
    };
    // `model.height` fits it: half the height, half the ride height; and no warning.
    let (one, half) = (ride("height = 1"), ride("height = 0.5"));
    assert!(one < 1.0 && (half / one - 0.5).abs() < 0.01, "{one} {half}");
    for (bad, want) in [
        (
            "height = 1, scale = 2",
            "model.height' fits the model to a height: give it or model.scale, not both",
        ),
        ("height = -1", "model.height' must be > 0 (metres), got -1"),
    ] {
        std::fs::write(
            m.join("main.lua"),
            format!("creature.define {{ name = \"big\", model = {{ file = \"assets/spider.gltf\", {bad} }} }}\n"),
        )
        .expect("lua");
        let said = text(&skitter(&["check", m.to_str().expect("path")]));
        assert!(said.contains(want), "{bad}: {said}");
    }
    std::fs::write(
        m.join("main.lua"),
        "creature.define { name = \"big\", model = { file = \"assets/spider.gltf\", scale = 25 } }\n",
    )
    .expect("lua");
    let out = skitter(&["check", m.to_str().expect("path")]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("big/main.lua:1: creature.define: big/assets/spider.gltf: the model is 138.")
            && said.contains("m across at model.scale 25 (a creature is 0.05–20 m): model.scale = 0.25 makes it 1.39 m"),
        "{said}"
    );
}

/// A body on four legs, `legs(x, z)` giving each leg's joints below its hip at
/// `(±0.2, 0.5, z)` and its foot's vertex: a small synthetic creature.
fn quad(leg: impl Fn(f32, f32) -> (Vec<[f32; 3]>, [f32; 3])) -> String {
    let names = [
        ["hip.L", "knee.L", "ankle.L"],
        ["hip.R", "knee.R", "ankle.R"],
        ["hipB.L", "kneeB.L", "ankleB.L"],
        ["hipB.R", "kneeB.R", "ankleB.R"],
    ];
    quad_named(names, 0.45, leg)
}

/// [`quad`] with its legs' bones named `names` and its body's lowest vertex at `belly`.
fn quad_named(
    names: [[&str; 3]; 4],
    belly: f32,
    leg: impl Fn(f32, f32) -> (Vec<[f32; 3]>, [f32; 3]),
) -> String {
    quad_with(names, belly, leg, &[], &[])
}

/// [`quad_named`] with `extra` joints (after the body's 1 and the legs' 12: their parents
/// count from there) and `extra_verts`.
fn quad_with(
    names: [[&str; 3]; 4],
    belly: f32,
    leg: impl Fn(f32, f32) -> (Vec<[f32; 3]>, [f32; 3]),
    extra: &[(&str, Option<usize>, [f32; 3])],
    extra_verts: &[(usize, [f32; 3])],
) -> String {
    let mut joints: Vec<(&str, Option<usize>, [f32; 3])> = vec![("Body", None, [0.0, 0.5, 0.0])];
    let mut verts: Vec<(usize, [f32; 3])> = vec![(0, [0.0, belly, 0.3]), (0, [0.0, 0.55, -0.3])];
    for (k, (x, z)) in [(0.2f32, 0.3f32), (-0.2, 0.3), (0.2, -0.3), (-0.2, -0.3)]
        .into_iter()
        .enumerate()
    {
        let (bones, foot) = leg(x, z);
        let mut parent = 0;
        for (i, b) in bones.iter().enumerate() {
            joints.push((names[k][i], Some(parent), *b));
            parent = joints.len() - 1;
            verts.push((parent, *b));
        }
        verts.push((parent, foot));
    }
    joints.extend_from_slice(extra);
    verts.extend_from_slice(extra_verts);
    rig_gltf(&joints, &verts)
}

/// Issue 44: a bind pose with straight legs (hanging plumb from the hips: a foot standing
/// there would be the whole leg's length from its hip) makes a type that validates — its
/// feet brought in and its body lowered until every leg stands at 0.85 of its length,
/// knees bent — instead of `field 'legs[1].rest' is out of reach`.
#[test]
fn straight_legs_in_the_bind_pose_make_a_type_that_stands_with_bent_knees() {
    let dir = tempfile::tempdir().expect("tmp");
    let m = model_only_mod(
        dir.path(),
        "plumb",
        &quad(|x, z| (vec![[x, 0.5, z], [x, 0.25, z]], [x, 0.0, z])),
    );
    let out = skitter(&["check", m.to_str().expect("path")]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("4 legs:"), "{said}");
    // Every leg 0.5 m long: standing at 0.85 of it, straight down, the body at 0.425 m.
    assert!(said.contains("ride height 0.425 m"), "{said}");
    // And it walks within the bars.
    walks_a_line(dir.path(), &m, "plumb legs", "plumb/m");
}

/// Issue 44: legs that lie flat in the bind pose (spread level with the body, nothing on
/// the ground below the belly), their side words glued on in CamelCase, are found as the
/// chains that mirror each other across the body — not the antennae on the head — and
/// stand with bent knees: the type defines and walks (was `no legs found`).
#[test]
fn flat_camel_case_legs_are_found_by_their_mirror_and_stand() {
    let dir = tempfile::tempdir().expect("tmp");
    let names = [
        ["leg0FrontLeft", "leg0FrontLeftKnee", "Foot IKFrontLeft"],
        ["leg1FrontRight", "leg1FrontRightKnee", "Foot IKFrontRight"],
        ["leg2BackLeft", "leg2BackLeftKnee", "Foot IKBackLeft"],
        ["leg3BackRight", "leg3BackRightKnee", "Foot IKBackRight"],
    ];
    // Legs out level with the hips, the knees a little raised; the belly below them; two
    // antennae on a head, mirrored too, reaching as far out as the legs.
    let head = 13;
    let gltf = quad_with(
        names,
        0.3,
        |x, z| {
            (
                vec![[x, 0.5, z], [x * 2.0, 0.55, z], [x * 3.0, 0.52, z]],
                [x * 3.5, 0.5, z],
            )
        },
        &[
            ("Head", Some(0), [0.0, 0.55, 0.45]),
            ("feeler.L", Some(head), [0.1, 0.6, 0.5]),
            ("feelerTip.L", Some(head + 1), [0.4, 0.6, 0.6]),
            ("feeler.R", Some(head), [-0.1, 0.6, 0.5]),
            ("feelerTip.R", Some(head + 3), [-0.4, 0.6, 0.6]),
        ],
        &[
            (head, [0.0, 0.6, 0.5]),
            (head + 2, [0.7, 0.6, 0.65]),
            (head + 4, [-0.7, 0.6, 0.65]),
        ],
    );
    let m = model_only_mod(dir.path(), "flat", &gltf);
    let out = skitter(&["check", m.to_str().expect("path")]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    // The feelers are no legs or arms: they swing on springs, on the head (issue 47).
    assert!(
        said.contains("4 legs:")
            && !said.contains("arms:")
            && said.contains("feeler.L > feelerTip.L (2 bones, on the head)"),
        "{said}"
    );
    for (leg, bone) in [
        ("L1", "leg0FrontLeft"),
        ("R1", "leg1FrontRight"),
        ("L2", "leg2BackLeft"),
        ("R2", "leg3BackRight"),
    ] {
        assert!(said.contains(&format!("{leg} = {bone} >")), "{leg}: {said}");
    }
    walks_a_line(dir.path(), &m, "flat legs", "flat/m");
}

/// Issue 44: a second skin over the same joints (an exporter writes one skin a mesh) skins
/// its meshes to the same skeleton — drawn with the rest, not dropped — and a skinned mesh
/// node's own transform is ignored, as glTF says.
#[test]
fn a_second_skin_over_the_same_joints_draws_its_meshes_in_place() {
    let (_dir, root) = scratch_mod();
    let json = tiny(|j, _| {
        j["nodes"]
            .as_array_mut()
            .unwrap()
            .push(json!({ "name": "mesh2", "mesh": 0, "skin": 1, "translation": [5.0, 0.0, 0.0] }));
        j["skins"]
            .as_array_mut()
            .unwrap()
            .push(json!({ "joints": [0, 1], "inverseBindMatrices": 4 }));
        j["scenes"][0]["nodes"] = json!([0, 2, 3]);
    });
    let m = load_json(&root, &json).expect("loads");
    assert_eq!(m.primitives.len(), 2, "the second skin's mesh is drawn");
    assert_eq!(
        m.primitives[0].positions, m.primitives[1].positions,
        "in the same place (its node's translation ignored)"
    );
    assert_eq!(m.primitives[0].joints, m.primitives[1].joints);
    assert!(
        m.repairs
            .iter()
            .any(|r| r.contains("skin 1 skins meshes over the joints of skin 0")),
        "{:?}",
        m.repairs
    );
}

/// Issue 44: a model with no skin (Blockbench's and Luanti's way: each limb a node of
/// rigid blocks) gets its node tree for a skeleton: a blocky four-legged creature's legs
/// (one block each, from hip to foot) are found and driven like any other's, its drawn
/// feet on its feet (was `has no skin`).
#[test]
fn a_blocky_model_without_a_skin_finds_its_legs_and_walks() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut nodes: Vec<MeshNode<'_>> = vec![
        ("root", None, [0.0, 0.0, 0.0], Vec::new()),
        (
            "body",
            Some(0),
            [0.0, 0.45, 0.0],
            block([-0.2, -0.1, -0.35], [0.2, 0.1, 0.35]),
        ),
        (
            "head",
            Some(1),
            [0.0, 0.1, 0.35],
            block([-0.12, -0.1, 0.0], [0.12, 0.12, 0.22]),
        ),
    ];
    for (name, x, z) in [
        ("leg0", 0.15f32, 0.25f32),
        ("leg1", -0.15, 0.25),
        ("leg2", 0.15, -0.25),
        ("leg3", -0.15, -0.25),
    ] {
        nodes.push((
            name,
            Some(1),
            [x, -0.1, z],
            block([-0.05, -0.35, -0.05], [0.05, 0.0, 0.05]),
        ));
    }
    let m = model_only_mod(dir.path(), "blocky", &nodes_gltf(&nodes));
    let out = skitter(&["check", m.to_str().expect("path")]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("4 legs:") && said.contains("body \"body\", head \"head\""),
        "{said}"
    );
    walks_a_line(dir.path(), &m, "blocky", "blocky/m");
    // The blocks' ends (the drawn tips) stay on the feet.
    let trace = trace_text(dir.path());
    let mut worst = 0.0f64;
    for line in trace.lines() {
        let v: Value = serde_json::from_str(line).expect("json");
        for f in v["feet"].as_array().into_iter().flatten() {
            let (p, tip) = (v3(&f["pos"]), v3(&f["tip"]));
            worst = worst.max((0..3).map(|k| (p[k] - tip[k]).powi(2)).sum::<f64>().sqrt());
        }
    }
    assert!(worst <= 0.01, "a drawn foot {worst:.3} m off its foot");
}

/// Issue 44: a foot that forks into claws (two short leaf joints under the last leg bone)
/// ends its leg at the fork, its tip between the claws' ends (was `no legs found`: each claw
/// was a chain of its own); and four-bone ear chains on a head, mirrored and off the
/// ground, are neither legs nor arms.
#[test]
fn forked_feet_end_their_legs_and_ears_are_no_arms() {
    let dir = tempfile::tempdir().expect("tmp");
    let names = [
        ["hip.L", "knee.L", "ankle.L"],
        ["hip.R", "knee.R", "ankle.R"],
        ["hipB.L", "kneeB.L", "ankleB.L"],
        ["hipB.R", "kneeB.R", "ankleB.R"],
    ];
    // Joints: Body 0, then each leg's hip, knee, ankle (the ankle of leg k is 3 + 3k); the
    // claws and the head's ears after them (13 on).
    let mut extra: Vec<(&str, Option<usize>, [f32; 3])> = Vec::new();
    let mut verts: Vec<(usize, [f32; 3])> = Vec::new();
    let claws = [
        ["clawA.L", "clawB.L"],
        ["clawA.R", "clawB.R"],
        ["clawBA.L", "clawBB.L"],
        ["clawBA.R", "clawBB.R"],
    ];
    for (k, (x, z)) in [(0.2f32, 0.3f32), (-0.2, 0.3), (0.2, -0.3), (-0.2, -0.3)]
        .into_iter()
        .enumerate()
    {
        let ankle = 3 + 3 * k;
        for (c, dz) in [(0usize, 0.03f32), (1, -0.03)] {
            let at = 13 + extra.len();
            extra.push((claws[k][c], Some(ankle), [x * 1.4, 0.06, z + dz]));
            verts.push((at, [x * 1.45, 0.0, z + dz * 1.5]));
        }
    }
    let head = 13 + extra.len();
    extra.push(("Head", Some(0), [0.0, 0.6, 0.4]));
    verts.push((head, [0.0, 0.65, 0.5]));
    for (side, sx) in [("L", 1.0f32), ("R", -1.0)] {
        let mut parent = head;
        for b in 0..4 {
            let at = 13 + extra.len();
            let name: &'static str = Box::leak(format!("ear{b}.{side}").into_boxed_str());
            extra.push((
                name,
                Some(parent),
                [sx * (0.08 + 0.06 * b as f32), 0.7 + 0.05 * b as f32, 0.45],
            ));
            verts.push((
                at,
                [sx * (0.1 + 0.06 * b as f32), 0.72 + 0.05 * b as f32, 0.45],
            ));
            parent = at;
        }
    }
    let gltf = quad_with(
        names,
        0.45,
        |x, z| {
            (
                vec![[x, 0.5, z], [x * 1.3, 0.3, z + 0.05], [x * 1.4, 0.1, z]],
                [x * 1.4, 0.08, z],
            )
        },
        &extra,
        &verts,
    );
    let m = model_only_mod(dir.path(), "clawed", &gltf);
    let out = skitter(&["check", m.to_str().expect("path")]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("4 legs:") && said.contains("L1 = hip.L > knee.L > ankle.L (3 bones"),
        "{said}"
    );
    // The ears are no arms: they swing on springs, on the head (issue 47).
    assert!(!said.contains("arms:"), "{said}");
    assert!(
        said.contains("ear0.L > ear1.L > ear2.L > ear3.L (4 bones, on the head)"),
        "{said}"
    );
    walks_a_line(dir.path(), &m, "clawed", "clawed/m");
}

/// Issue 44: a wasp in flight (six three-bone legs hanging under its thorax, none reaching
/// the ground: its stinger is lowest; wings) makes a hovering type: `body.hover` from the
/// model (its lowest point a quarter of its depth clear of the ground), its legs hanging
/// as arms do, named as legs, trailing back as it flies forward and hanging again when it
/// stops (was a type crawling on its belly on six mirrored "flat" legs, and a stinger
/// taken for a leg).
#[test]
fn a_wasp_with_dangling_legs_hovers_and_its_legs_trail_its_flight() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut joints: Vec<(&str, Option<usize>, [f32; 3])> = vec![
        ("Thorax", None, [0.0, 0.5, 0.0]),
        ("Head", Some(0), [0.0, 0.52, 0.2]),
        ("Abdomen", Some(0), [0.0, 0.45, -0.12]),
        ("Stinger", Some(2), [0.0, 0.2, -0.35]),
        ("Wing.L", Some(0), [0.05, 0.6, 0.0]),
        ("Wing.R", Some(0), [-0.05, 0.6, 0.0]),
    ];
    let mut verts: Vec<(usize, [f32; 3])> = vec![
        (0, [0.0, 0.55, 0.05]),
        (1, [0.0, 0.55, 0.3]),
        (2, [0.0, 0.4, -0.2]),
        (3, [0.0, 0.0, -0.42]),
        (4, [0.45, 0.65, -0.1]),
        (5, [-0.45, 0.65, -0.1]),
    ];
    for (n, z) in [(1, 0.1f32), (2, 0.0), (3, -0.1)] {
        for (side, x) in [("L", 1.0f32), ("R", -1.0)] {
            let mut parent = 0;
            for (b, p) in [
                ("Coxa", [0.06, 0.45]),
                ("Femur", [0.14, 0.38]),
                ("Tibia", [0.15, 0.25]),
            ] {
                let name: &'static str = Box::leak(format!("Leg{n}{b}.{side}").into_boxed_str());
                joints.push((name, Some(parent), [x * p[0], p[1], z]));
                parent = joints.len() - 1;
                verts.push((parent, [x * p[0], p[1], z]));
            }
            verts.push((parent, [x * 0.15, 0.15, z + 0.02]));
        }
    }
    let m = model_only_mod(dir.path(), "wasp", &rig_gltf(&joints, &verts));
    let out = skitter(&["check", m.to_str().expect("path")]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("a flyer: it hovers 0.56")
            && said.contains("6 arms:")
            && said.contains("L1 = Leg1Coxa.L > Leg1Femur.L > Leg1Tibia.L (3 bones")
            && said.contains("R3 = Leg3Coxa.R >")
            && !said.contains("legs:")
            && !said.contains("Stinger >"),
        "{said}"
    );
    // Flying forward 3 s, then hovering in place 3 s.
    let main = m.join("main.lua");
    let mut lua = std::fs::read_to_string(&main).expect("main");
    lua.push_str(
        "world.ground { size = vec3(20, 0, 20) }\n\
         behaviour.define { name = \"fly\", on_update = function(self)\n\
           if world.time() < 3 then self:move(vec3(0, 0, 1), 1.5) else self:move(vec3(0, 0, 1), 0) end\n\
         end }\n\
         world.spawn(\"m\", { position = vec3(0, 0, -4), behaviour = \"fly\" })\n",
    );
    std::fs::write(&main, lua).expect("write");
    let (out, t) = run_trace(dir.path(), 360, &[m.to_path_buf()], &[]);
    assert!(out.status.success(), "{}", text(&out));
    let recs = t.of(1);
    assert!(recs.len() >= 360, "{} records", recs.len());
    // How far the hands (legs' ends) hang behind the body (m, along its flight), and how
    // far below it, on average over a stretch of frames.
    let behind = |from: usize, to: usize| {
        let rs = &recs[from..to];
        let mut back = 0.0;
        for r in rs {
            let (p, hands) = (r.pos.expect("pos"), &r.hands);
            assert_eq!(hands.len(), 6, "frame {}", r.frame);
            for h in hands {
                assert!(
                    h[1] < p[1] - 0.1 && h[1] > 0.05,
                    "frame {}: a leg's end at y {:.3} (body {:.3}): not hanging clear of the ground",
                    r.frame,
                    h[1],
                    p[1]
                );
                back += p[2] - h[2];
            }
        }
        back / (6 * rs.len()) as f64
    };
    let (cruising, hovering) = (behind(120, 180), behind(300, 360));
    eprintln!(
        "wasp: legs' ends {cruising:.3} m behind the body in flight, {hovering:.3} m hovering"
    );
    assert!(
        cruising > hovering + 0.05,
        "legs trail {cruising:.3} m behind in flight, {hovering:.3} m hovering"
    );
    for r in &recs[30..] {
        let y = r.pos.expect("pos")[1];
        assert!(
            (y - 0.5625).abs() < 0.03,
            "frame {}: body at {y:.3}, hover 0.56",
            r.frame
        );
        assert!(r.feet.is_empty());
    }
    let flown = recs[359].pos.expect("pos")[2] - recs[0].pos.expect("pos")[2];
    assert!(flown > 3.0, "flew {flown:.2} m");
}

/// `gltf` (of [`rig_gltf`]) with each of `roots` scaled by `s` (non-uniform), the model
/// unchanged: their descendants' translations divided by `s`, and the inverse bind
/// matrices of the roots and everything below them `S⁻¹·T(−head)`.
fn scale_subtrees(gltf: &str, roots: &[usize], s: [f32; 3]) -> String {
    let mut j: Value = serde_json::from_str(gltf).expect("json");
    let uri = j["buffers"][0]["uri"].as_str().expect("uri").to_string();
    let b64 = uri.split(',').nth(1).expect("data");
    let mut buf = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .expect("base64");
    let ibm_at = j["bufferViews"][4]["byteOffset"].as_u64().expect("offset") as usize;
    let joints: Vec<usize> = serde_json::from_value(j["skins"][0]["joints"].clone()).expect("j");
    let mut under = Vec::new();
    let mut todo: Vec<(usize, bool)> = roots.iter().map(|r| (*r, true)).collect();
    while let Some((n, root)) = todo.pop() {
        under.push(n);
        if !root {
            let t = j["nodes"][n]["translation"].clone();
            let t: [f32; 3] = serde_json::from_value(t).expect("t");
            j["nodes"][n]["translation"] = json!([t[0] / s[0], t[1] / s[1], t[2] / s[2]]);
        }
        for c in j["nodes"][n]["children"]
            .as_array()
            .cloned()
            .unwrap_or_default()
        {
            todo.push((c.as_u64().expect("child") as usize, false));
        }
    }
    for r in roots {
        j["nodes"][*r]["scale"] = json!(s);
    }
    for n in under {
        let k = joints.iter().position(|x| *x == n).expect("a joint");
        let at = ibm_at + 64 * k;
        let f = |i: usize, b: &[u8]| {
            f32::from_le_bytes(b[at + 4 * i..at + 4 * i + 4].try_into().unwrap())
        };
        let t = [f(12, &buf), f(13, &buf), f(14, &buf)];
        let m = [
            1.0 / s[0],
            0.,
            0.,
            0.,
            0.,
            1.0 / s[1],
            0.,
            0.,
            0.,
            0.,
            1.0 / s[2],
            0.,
            t[0] / s[0],
            t[1] / s[1],
            t[2] / s[2],
            1.0,
        ];
        for (i, x) in m.iter().enumerate() {
            buf[at + 4 * i..at + 4 * i + 4].copy_from_slice(&x.to_le_bytes());
        }
    }
    j["buffers"][0]["uri"] = json!(format!(
        "data:application/octet-stream;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&buf)
    ));
    j.to_string()
}

/// Issue 44: joints with a non-uniform scale (an exporter's habit: a leg stretched in
/// Blender's object mode, its scale never applied) — each leg's hip scaled (1.6, 0.7, 1.3),
/// the legs below in that space, inverse binds to match: the same creature as unscaled,
/// binds the same four legs and walks with every drawn tip within 1 cm of its foot.
#[test]
fn joints_with_a_non_uniform_scale_bind_and_draw_as_the_same_creature() {
    let dir = tempfile::tempdir().expect("tmp");
    let leg = |x: f32, z: f32| {
        (
            vec![[x, 0.5, z], [x * 1.5, 0.3, z], [x * 1.6, 0.1, z]],
            [x * 1.6, 0.0, z],
        )
    };
    let plain = model_only_mod(dir.path(), "plain", &quad(leg));
    let scaled = scale_subtrees(&quad(leg), &[1, 4, 7, 10], [1.6, 0.7, 1.3]);
    let m = model_only_mod(dir.path(), "scaled", &scaled);
    let check = |m: &std::path::Path| {
        let out = skitter(&["check", m.to_str().expect("path")]);
        let said = text(&out);
        assert!(out.status.success(), "{said}");
        said.lines()
            .filter(|l| l.contains(" = ") || l.contains("ride height"))
            .map(|l| l.replace("plain/", "").replace("scaled/", ""))
            .collect::<Vec<_>>()
    };
    let said = check(&m);
    assert!(
        said.iter()
            .any(|l| l.contains("L1 = hip.L > knee.L > ankle.L")),
        "{said:?}"
    );
    assert_eq!(said, check(&plain), "scaled and plain bind alike");
    let t = walks_a_line(dir.path(), &m, "non-uniform scale", "scaled/m");
    assert_tips_on_feet(&t, &trace_text(dir.path()));
}

/// Issue 44: a humanoid whose arms are four bones (clavicle, upper arm, forearm, hand: the
/// commonest rig there is) defines a biped with two arms and walks (was `field
/// 'arms[1].segments' needs 1 to 3 lengths, got 4`).
#[test]
fn a_biped_with_four_bone_arms_defines_and_walks() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut joints: Vec<(&str, Option<usize>, [f32; 3])> = vec![
        ("Hips", None, [0.0, 1.0, 0.0]),
        ("Chest", Some(0), [0.0, 1.4, 0.0]),
        ("Head", Some(1), [0.0, 1.7, 0.0]),
    ];
    let mut verts: Vec<(usize, [f32; 3])> = vec![
        (0, [0.0, 1.0, 0.1]),
        (1, [0.0, 1.45, 0.1]),
        (2, [0.0, 1.85, 0.05]),
    ];
    for (side, x) in [("L", 1.0f32), ("R", -1.0)] {
        let limb = |joints: &mut Vec<(&str, Option<usize>, [f32; 3])>,
                    verts: &mut Vec<(usize, [f32; 3])>,
                    from: usize,
                    bones: &[(&str, [f32; 3])],
                    tip: [f32; 3]| {
            let mut parent = from;
            for (b, p) in bones {
                let name: &'static str = Box::leak(format!("{b}.{side}").into_boxed_str());
                let at = [x * p[0], p[1], p[2]];
                joints.push((name, Some(parent), at));
                parent = joints.len() - 1;
                verts.push((parent, at));
            }
            verts.push((parent, [x * tip[0], tip[1], tip[2]]));
        };
        limb(
            &mut joints,
            &mut verts,
            0,
            &[
                ("thigh", [0.1, 1.0, 0.0]),
                ("shin", [0.1, 0.55, 0.05]),
                ("foot", [0.1, 0.1, 0.0]),
            ],
            [0.1, 0.0, 0.1],
        );
        limb(
            &mut joints,
            &mut verts,
            1,
            &[
                ("clavicle", [0.05, 1.5, 0.0]),
                ("upperarm", [0.2, 1.5, 0.0]),
                ("forearm", [0.25, 1.2, 0.0]),
                ("hand", [0.27, 0.95, 0.05]),
            ],
            [0.28, 0.85, 0.05],
        );
    }
    let m = model_only_mod(dir.path(), "human", &rig_gltf(&joints, &verts));
    let out = skitter(&["check", m.to_str().expect("path")]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("2 legs:")
            && said.contains("2 arms:")
            && said.contains("arm_l1 = clavicle.L > upperarm.L > forearm.L > hand.L (4 bones"),
        "{said}"
    );
    let main = m.join("main.lua");
    let mut lua = std::fs::read_to_string(&main).expect("main");
    lua.push_str(
        "world.ground { size = vec3(20, 0, 20) }\n\
         behaviour.define { name = \"go\", on_update = function(self) self:move(vec3(0, 0, 1), 0.6) end }\n\
         world.spawn(\"m\", { position = vec3(0, 0, -4), behaviour = \"go\" })\n",
    );
    std::fs::write(&main, lua).expect("write");
    let (out, t) = run_trace(dir.path(), 600, &[m.to_path_buf()], &[]);
    assert!(out.status.success(), "{}", text(&out));
    let q = assert_walks_well("four-bone arms", &t, &[("human/m", 1)]);
    assert!(q.displacement[&1] > 3.0, "{:?}", q.displacement);
    assert!(t.recs.iter().all(|r| r.hands.len() == 2));
    assert_tips_on_feet(&t, &trace_text(dir.path()));
}

/// Issue 44: feet exported as joints of their own at the armature's root (IK rigs: each
/// foot's vertices on a parentless `IK_Foot` joint beside the leg chain's end, the chain's
/// last bone carrying none down there) follow their legs' ends: four legs found, each with
/// its foot joint, and the drawn feet on the feet as it walks.
#[test]
fn feet_exported_as_joints_at_the_root_follow_their_legs() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut joints: Vec<(&str, Option<usize>, [f32; 3])> = vec![("Body", None, [0.0, 0.5, 0.0])];
    let mut verts: Vec<(usize, [f32; 3])> = vec![(0, [0.0, 0.45, 0.3]), (0, [0.0, 0.55, -0.3])];
    let mut feet = Vec::new();
    for (k, (x, z)) in [(0.2f32, 0.3f32), (-0.2, 0.3), (0.2, -0.3), (-0.2, -0.3)]
        .into_iter()
        .enumerate()
    {
        let side = if x > 0.0 { "L" } else { "R" };
        let mut parent = 0;
        for (b, p) in [
            ("hip", [x, 0.5, z]),
            ("knee", [x * 1.3, 0.3, z]),
            ("ankle", [x * 1.4, 0.14, z]),
        ] {
            let name: &'static str = Box::leak(format!("{b}{k}.{side}").into_boxed_str());
            joints.push((name, Some(parent), p));
            parent = joints.len() - 1;
            verts.push((parent, p));
        }
        feet.push((
            &*Box::leak(format!("IK_Foot{k}.{side}").into_boxed_str()),
            [x * 1.45, 0.06, z],
            [x * 1.5, 0.0, z + 0.05],
        ));
    }
    for (name, at, v) in feet {
        joints.push((name, None, at));
        verts.push((joints.len() - 1, v));
    }
    let m = model_only_mod(dir.path(), "iked", &rig_gltf(&joints, &verts));
    let out = skitter(&["check", m.to_str().expect("path")]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("4 legs:")
            && said.contains("L1 = hip0.L > knee0.L > ankle0.L (3 bones")
            && said.contains("tip on \"IK_Foot0.L\"")
            && said.contains("tip on \"IK_Foot3.R\""),
        "{said}"
    );
    let t = walks_a_line(dir.path(), &m, "feet at the root", "iked/m");
    assert_tips_on_feet(&t, &trace_text(dir.path()));
}

/// Mod `m` (of [`model_only_mod`], in `dir`) given flat ground and its type `ty` spawned
/// walking a line for 10 s: it goes more than 3 m within the locomotion bars (two feet
/// planted at least); returns the trace.
fn walks_a_line(dir: &std::path::Path, m: &std::path::Path, what: &str, ty: &str) -> Trace {
    let main = m.join("main.lua");
    let mut lua = std::fs::read_to_string(&main).expect("main");
    lua.push_str(
        "world.ground { size = vec3(20, 0, 20) }\n\
         behaviour.define { name = \"go\", on_update = function(self) self:move(vec3(0, 0, 1), 0.5) end }\n\
         world.spawn(\"m\", { position = vec3(0, 0, -4), behaviour = \"go\" })\n",
    );
    std::fs::write(&main, lua).expect("write");
    let (out, t) = run_trace(dir, 600, &[m.to_path_buf()], &[]);
    assert!(out.status.success(), "{what}: {}", text(&out));
    let q = assert_walks_well(what, &t, &[(ty, 2)]);
    assert!(q.displacement[&1] > 3.0, "{what}: {:?}", q.displacement);
    t
}

/// A mod folder `m` (with `assets/`) in a new temporary folder (kept while the first value
/// lives).
fn scratch_mod() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("tmp");
    let root = dir.path().join("m");
    std::fs::create_dir_all(root.join("assets")).expect("mkdir");
    (dir, root)
}

/// `json` written as the mod's `assets/x.gltf` and loaded.
fn load_json(root: &std::path::Path, json: &str) -> Result<model::Model, String> {
    std::fs::write(root.join("assets/x.gltf"), json).expect("write");
    load_in(root, "assets/x.gltf", None)
}

/// Issue 44: an armature exported Z-up in centimetres (FBX's habit: its root node turned
/// −90° about X and scaled 0.01, every joint and vertex in its Z-up centimetre space) is
/// read through its nodes' transforms: a Y-up creature of the right size that finds its
/// four legs and walks.
#[test]
fn a_z_up_armature_in_centimetres_stands_up_at_its_size() {
    let dir = tempfile::tempdir().expect("tmp");
    // The plumb-legged quad of `straight_legs_…`, its points taken into the armature's
    // space: scene (x, y, z) metres is armature (x, −z, y) centimetres.
    let y_up = quad(|x, z| (vec![[x, 0.5, z], [x, 0.25, z]], [x, 0.0, z]));
    let mut v: Value = serde_json::from_str(&y_up).expect("json");
    let to_arm = |p: [f64; 3]| [p[0] * 100.0, -p[2] * 100.0, p[1] * 100.0];
    // Joint translations (parents' frames are all unrotated): into the armature's space.
    let roots: Vec<usize> = serde_json::from_value(v["scenes"][0]["nodes"].clone()).expect("roots");
    let nodes = v["nodes"].as_array_mut().expect("nodes");
    for n in nodes.iter_mut() {
        if let Some(t) = n.get("translation").cloned() {
            let t: Vec<f64> = serde_json::from_value(t).expect("t");
            n["translation"] = json!(to_arm([t[0], t[1], t[2]]));
        }
    }
    let mesh_node = nodes.len() - 1;
    let joint_roots: Vec<usize> = roots.into_iter().filter(|r| *r != mesh_node).collect();
    nodes.push(json!({ "name": "Armature", "rotation": [-std::f64::consts::FRAC_1_SQRT_2, 0.0, 0.0, std::f64::consts::FRAC_1_SQRT_2], "scale": [0.01, 0.01, 0.01], "children": joint_roots }));
    let armature = nodes.len() - 1;
    v["scenes"][0]["nodes"] = json!([armature, mesh_node]);
    // The buffer: positions (view 0) and inverse bind matrices (view 4, translations) into
    // the armature's centimetres too.
    let uri = v["buffers"][0]["uri"].as_str().expect("uri").to_string();
    let mut b = base64::engine::general_purpose::STANDARD
        .decode(uri.split(',').nth(1).expect("data"))
        .expect("base64");
    let f = |b: &[u8], at: usize| f32::from_le_bytes(b[at..at + 4].try_into().expect("4")) as f64;
    let put =
        |b: &mut [u8], at: usize, x: f64| b[at..at + 4].copy_from_slice(&(x as f32).to_le_bytes());
    let view = |k: usize| {
        (
            v["bufferViews"][k]["byteOffset"].as_u64().expect("o") as usize,
            v["bufferViews"][k]["byteLength"].as_u64().expect("l") as usize,
        )
    };
    let (pos, pos_len) = view(0);
    let (lo, hi) = ([f64::MAX; 3], [f64::MIN; 3]);
    let (mut lo, mut hi) = (lo, hi);
    for at in (pos..pos + pos_len).step_by(12) {
        let p = to_arm([f(&b, at), f(&b, at + 4), f(&b, at + 8)]);
        for k in 0..3 {
            put(&mut b, at + 4 * k, p[k]);
            lo[k] = lo[k].min(p[k]);
            hi[k] = hi[k].max(p[k]);
        }
    }
    let (ibm, ibm_len) = view(4);
    for at in (ibm..ibm + ibm_len).step_by(64) {
        let t = to_arm([f(&b, at + 48), f(&b, at + 52), f(&b, at + 56)]);
        for (k, x) in t.iter().enumerate() {
            put(&mut b, at + 48 + 4 * k, *x);
        }
    }
    v["accessors"][0]["min"] = json!(lo);
    v["accessors"][0]["max"] = json!(hi);
    v["buffers"][0]["uri"] = json!(format!(
        "data:application/octet-stream;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&b)
    ));
    let m = model_only_mod(dir.path(), "zup", &v.to_string());
    let out = skitter(&["check", m.to_str().expect("path")]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    // The same creature as the Y-up metres one: four legs, standing at 0.425 m, no size
    // warning.
    assert!(
        said.contains("4 legs:")
            && said.contains("ride height 0.425 m")
            && !said.contains("warning"),
        "{said}"
    );
    walks_a_line(dir.path(), &m, "Z-up armature", "zup/m");
}

/// Issue 44: what the binder writes passes the define's checks — legs whose long upper bone
/// cannot fold their foot as near as 0.85 of their length stand a little further out than
/// they fold — and where no standing pose fits every leg (two such legs beside two
/// ordinary ones), one error says what was found and what to add, naming no field the
/// modder did not write.
#[test]
fn a_body_plan_that_cannot_stand_is_one_error_that_says_what_to_add() {
    let dir = tempfile::tempdir().expect("tmp");
    // A thigh of 0.48 m and a foot of 0.02 m: it folds no nearer than 0.46 m of its 0.5.
    let stiff = |x: f32, z: f32| (vec![[x, 0.5, z], [x, 0.02, z]], [x, 0.0, z]);
    let m = model_only_mod(dir.path(), "stiff", &quad(stiff));
    let said = text(&skitter(&["check", m.to_str().expect("path")]));
    assert!(
        said.contains("4 legs:") && said.contains("ride height 0.47"),
        "{said}"
    );
    let mixed = |x: f32, z: f32| {
        if z > 0.0 {
            (vec![[x, 0.5, z], [x, 0.25, z]], [x, 0.0, z])
        } else {
            stiff(x, z)
        }
    };
    let m = model_only_mod(dir.path(), "mixed", &quad(mixed));
    let out = skitter(&["check", m.to_str().expect("path")]);
    let said = text(&out);
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains("mixed/main.lua:1: creature.define: model mixed/assets/m.gltf: the body plan found in its bones makes no creature that can walk (legs[")
            && said.contains("found 4 leg(s): L1 = hip.L > knee.L;")
            && said.contains("Name the legs' bones in model.bind.legs = { L1 = { \"hip.L\", … }, … }")
            && !said.contains("field 'legs"),
        "{said}"
    );
}
