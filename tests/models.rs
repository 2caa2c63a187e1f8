//! Models in mods: the four rigged glTF files in `../shared/assets/` (made elsewhere, read in
//! place, never copied into the repository) load and bind their legs by themselves; a
//! model spider walks the quality scenes with every foot's drawn tip on its foot; a broken
//! model in a mod is an error naming the file, and the world goes on (bad input, file by
//! file: `model_input.rs`).

#![allow(clippy::expect_used, clippy::unwrap_used)] // test set-up: a failure is a failed test

mod common;

use std::path::{Path, PathBuf};

use common::*;
use serde_json::{json, Value};
use skitter::model::{BindSpec, BoundModel};

fn names(b: &BoundModel) -> Vec<(String, Vec<String>)> {
    b.binding
        .legs
        .iter()
        .map(|l| {
            (
                l.name.clone(),
                l.bones
                    .iter()
                    .map(|j| b.model.joints[*j].name.clone())
                    .collect(),
            )
        })
        .collect()
}

#[test]
fn the_four_models_load_and_find_their_legs_by_themselves() {
    // The spider: 8 legs of 5 bones each, front to back, `.L` on the left (+x).
    let s = bound_asset("spider", "spider.gltf", Some("gltf_spider.png"));
    assert_eq!(s.model.joints.len(), 57);
    let legs = names(&s);
    let want: Vec<String> = (1..=4)
        .flat_map(|i| [format!("L{i}"), format!("R{i}")])
        .collect();
    assert_eq!(legs.iter().map(|l| l.0.clone()).collect::<Vec<_>>(), want);
    for (name, bones) in &legs {
        let n = &name[1..];
        let side = if name.starts_with('L') { "L" } else { "R" };
        assert_eq!(
            bones,
            &["Base", "Upper", "Mid", "Lower", "Fore"]
                .iter()
                .map(|b| format!("Leg{n}{b}.{side}"))
                .collect::<Vec<_>>(),
            "{name}"
        );
    }
    for l in &s.plan.legs {
        assert_eq!(l.rest.x > 0.0, l.name.starts_with('L'), "{l:?}");
    }
    assert_eq!(s.model.joints[s.binding.body].name, "Body");
    assert_eq!(
        s.binding.head.map(|h| s.model.joints[h].name.as_str()),
        Some("Head")
    );
    // Its legs' thickness, for the ragdoll's capsules: their vertices' distance from the
    // leg bones (the legs are about 5.5 m long at the file's scale).
    let r = s.plan.limb_radius.expect("a limb radius");
    assert!((0.03..0.3).contains(&r), "limb radius {r}");
    // Bone by bone too: each leg's five bones have their own, not all the same.
    assert_eq!(s.plan.limb_radii.len(), 8);
    for (l, radii) in s.plan.legs.iter().zip(&s.plan.limb_radii) {
        assert_eq!(radii.len(), 5, "{}", l.name);
        assert!(
            radii.iter().all(|x| (0.005..0.5).contains(x)),
            "{}: {radii:?}",
            l.name
        );
    }
    let all: Vec<f32> = s.plan.limb_radii.iter().flatten().copied().collect();
    let (lo, hi) = all
        .iter()
        .fold((f32::MAX, 0f32), |(a, b), x| (a.min(*x), b.max(*x)));
    assert!(hi > lo * 1.2, "every leg bone equally thick ({lo}..{hi})");
    // The texture beside it, used since the file names none.
    let tex = s.model.materials[0].texture.as_ref().expect("texture");
    assert!(tex.width > 0 && tex.rgba.len() == (tex.width * tex.height * 4) as usize);
    // The fox: 4 legs (front legs of 3 bones, hind of 4), its embedded texture.
    let f = bound_asset("fox", "fox.glb", None);
    let legs = names(&f);
    assert_eq!(legs.len(), 4, "{legs:?}");
    assert_eq!(
        legs[0].1,
        ["b_LeftUpperArm_09", "b_LeftForeArm_010", "b_LeftHand_011"]
    );
    assert_eq!(legs[2].1.len(), 4, "{legs:?}");
    assert!(f.model.materials[0].texture.is_some());
    assert!(f.binding.arms.is_empty());
    // The knight: a biped with arms; its rigid helmet, cape and weapons are drawn but not
    // measured as its body.
    let k = bound_asset("knight", "knight.glb", None);
    let legs = names(&k);
    assert_eq!(legs.len(), 2, "{legs:?}");
    assert_eq!(legs[0].1[0], "upperleg.l");
    assert_eq!(k.binding.arms.len(), 2);
    assert_eq!(
        k.model.joints[k.binding.arms[0].bones[0]].name,
        "upperarm.l"
    );
    assert!(k.model.primitives.iter().any(|p| p.rigid));
    // The Quaternius spider faces -Z (turned round) and its tips hang on `…Foot` joints off
    // the root, one spelled `FrontFoot2.R`.
    let q = bound_asset("spider_quaternius", "spider.glb", None);
    let legs = names(&q);
    assert_eq!(legs.len(), 8);
    assert_eq!(legs[0].1[0], "FrontLeg.L");
    let followers: Vec<&str> = q
        .binding
        .legs
        .iter()
        .map(|l| {
            q.model.joints[l.follower.expect("foot joint")]
                .name
                .as_str()
        })
        .collect();
    assert!(followers.contains(&"FrontFoot2.R"), "{followers:?}");
    let head = q.plan.head.expect("head").0;
    assert!(head.z > 0.0, "the head must end up in front: {head}");
    // What `describe` (skitter check) says.
    let d = s.describe();
    assert!(
        d.contains("8 legs:") && d.contains("L1 = Leg1Base.L > Leg1Upper.L"),
        "{d}"
    );
}

/// A mod whose `mspider` type is the shared spider model (copied into the mod's `assets/`
/// at test time), with `level` as the rest of its main.lua.
fn model_mod(dir: &Path, level: &str, physics: &str) -> PathBuf {
    let m = dir.join("mspider");
    std::fs::create_dir_all(m.join("assets")).expect("mkdir");
    for f in ["spider.gltf", "gltf_spider.png"] {
        std::fs::copy(assets().join("spider").join(f), m.join("assets").join(f)).expect("copy");
    }
    let main = format!(
        r#"
creature.define {{
  name = "mspider",
  model = {{ file = "assets/spider.gltf", texture = "assets/gltf_spider.png", scale = 0.25 }},
  {physics}
}}
{level}
"#
    );
    temp_mod(
        dir,
        "mspider",
        &[
            (
                "mod.toml",
                "name = \"mspider\"\nversion = \"0.1.0\"\ndepends = [\"walkers\"]\n",
            ),
            ("main.lua", &main),
        ],
    )
}

fn run_model_scene(
    level: &str,
    physics: &str,
    frames: u32,
    extra: &[&str],
) -> (Trace, String, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("tmp");
    let m = model_mod(dir.path(), level, physics);
    let (out, t) = run_trace(dir.path(), frames, &[fixture("walkers"), m], extra);
    assert!(out.status.success(), "{}", text(&out));
    assert!(t.errors().is_empty(), "{:?}", t.errors());
    let trace = trace_text(dir.path());
    (t, trace, dir)
}

#[test]
fn a_model_spider_climbs_stairs_and_turns_in_place_within_the_bars() {
    let level = r#"
world.ground { size = vec3(30, 0, 30) }
world.stairs { position = vec3(0, 0, -2), steps = 8, step_height = 0.2, step_depth = 0.5, width = 4 }
world.box { position = vec3(0, 0.8, 4), size = vec3(4, 1.6, 4) }
world.spawn("mspider", { position = vec3(0, 0, -5), behaviour = "walkers/line", params = { speed = 0.6 } })
world.spawn("mspider", { position = vec3(8, 0, 8), behaviour = "walkers/spin", params = { rate = 90 } })
"#;
    let (t, text, _d) = run_model_scene(level, "", 600, &[]);
    let q = assert_walks_well("model stairs", &t, &[("mspider/mspider", 4)]);
    let end = t.of(1).last().and_then(|r| r.pos).expect("pos");
    assert!(end[2] > 0.5 && end[1] > 1.4, "it did not climb: {end:?}");
    assert!(
        q.displacement[&2] < 0.01,
        "the turner drifted {:.3} m",
        q.displacement[&2]
    );
    assert_tips_on_feet(&t, &text);
}

#[test]
fn a_model_spider_walks_rough_ground_the_same_at_any_thread_count() {
    let level = r#"
world.ground { size = vec3(40, 0, 40), noise = { amplitude = 0.3, scale = 6, seed = 11 } }
world.spawn("mspider", { position = vec3(0, 0, -8), behaviour = "walkers/line", params = { speed = 0.7 } })
world.spawn("mspider", { position = vec3(4, 0, 0), yaw = -90, behaviour = "walkers/line", params = { dir = vec3(-1, 0, 0.2), speed = 0.9 } })
world.spawn("mspider", { position = vec3(-5, 0, 5), behaviour = "walkers/spin", params = { rate = -150 } })
"#;
    let (t, text, _d) = run_model_scene(level, "", 600, &["--threads", "1"]);
    let q = assert_walks_well("model rough", &t, &[("mspider/mspider", 4)]);
    assert!(
        q.displacement[&1] > 5.0 && q.displacement[&2] > 6.0,
        "{:?}",
        q.displacement
    );
    assert_tips_on_feet(&t, &text);
    let (_, again, _d2) = run_model_scene(level, "", 600, &["--threads", "2"]);
    assert!(text == again, "traces differ between 1 and 2 threads");
}

#[test]
fn a_mod_with_a_broken_model_says_where_and_the_world_goes_on() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut mods = vec![fixture("walkers")];
    mods.push(model_mod(
        dir.path(),
        r#"world.ground { size = vec3(20, 0, 20) }
world.spawn("mspider", { position = vec3(0, 0, 0), behaviour = "walkers/line", params = { speed = 0.5 } })"#,
        "",
    ));
    let cases = [
        ("{ file = \"assets/empty.glb\" }", "bad1/main.lua:1: creature.define: bad1/assets/empty.glb: is empty"),
        ("{ file = \"../../etc/passwd\" }", "bad2/main.lua:1: creature.define: bad2/../../etc/passwd: \"../../etc/passwd\" leaves the mod folder"),
        ("{ scale = 2 }", "bad3/main.lua:1: creature.define: field 'model.file' is required"),
        ("{ file = \"assets/empty.glb\", scale = -1 }", "bad4/main.lua:1: creature.define: field 'model.scale' must be > 0, got -1"),
    ];
    for (k, (model, _)) in cases.iter().enumerate() {
        let name = format!("bad{}", k + 1);
        mods.push(temp_mod(
            dir.path(),
            &name,
            &[
                (
                    "mod.toml",
                    &format!("name = \"{name}\"\nversion = \"0.1.0\"\n"),
                ),
                ("assets/empty.glb", ""),
                (
                    "main.lua",
                    &format!("creature.define {{ name = \"a\", model = {model} }}\n"),
                ),
            ],
        ));
    }
    let (out, t) = run_trace(dir.path(), 120, &mods, &[]);
    assert_ran_despite_bad_mods(&out);
    let log = text(&out);
    for (_, want) in cases {
        assert!(log.contains(want), "no error {want:?} in\n{log}");
    }
    assert_eq!(t.errors().len(), cases.len(), "{:?}", t.errors());
    // The good mod's model spider walked on.
    let end = t.of(1).last().and_then(|r| r.pos).expect("pos");
    assert!(end[2] > 0.5, "{end:?}");
}

#[test]
fn a_script_only_save_reloads_without_parsing_the_model_again() {
    use skitter::model::models_parsed;
    use skitter::script::{HostOptions, ScriptHost};
    let dir = tempfile::tempdir().expect("tmp");
    let m = model_mod(
        dir.path(),
        r#"world.ground { size = vec3(20, 0, 20) }
world.spawn("mspider", { position = vec3(0, 0, 0) })"#,
        "",
    );
    let mut host = ScriptHost::new(HostOptions {
        threads: 1,
        ..HostOptions::default()
    });
    let before = models_parsed();
    host.load(&[fixture("walkers"), m.clone()]);
    assert!(host.take_errors().is_empty());
    assert_eq!(models_parsed(), before + 1, "the model is parsed at load");
    let model = |host: &ScriptHost| {
        let w = host.world();
        w.types()
            .iter()
            .find_map(|t| t.model.clone())
            .expect("a model type")
    };
    let first = model(&host);
    let reload = |host: &mut ScriptHost, file: &str| {
        let changed =
            std::collections::BTreeMap::from([("mspider".to_string(), vec![PathBuf::from(file)])]);
        let r = host.reload(&changed);
        assert!(r.len() == 1 && r[0].ok, "{r:?}");
    };
    // A script-only save: the same model, not read or parsed again.
    let main = m.join("main.lua");
    let src = std::fs::read_to_string(&main).expect("main");
    std::fs::write(&main, format!("{src}\nlog.info('saved')\n")).expect("write");
    reload(&mut host, "main.lua");
    assert_eq!(
        models_parsed(),
        before + 1,
        "a script-only save parsed the model again"
    );
    assert!(std::sync::Arc::ptr_eq(&model(&host).model, &first.model));
    // Its file saved (the same JSON, one more byte): parsed again. So is the texture.
    let file = m.join("assets/spider.gltf");
    let mut bytes = std::fs::read(&file).expect("read");
    bytes.push(b'\n');
    std::fs::write(&file, &bytes).expect("write");
    reload(&mut host, "assets/spider.gltf");
    assert_eq!(
        models_parsed(),
        before + 2,
        "a saved model file is parsed again"
    );
    let png = m.join("assets/gltf_spider.png");
    let mut img = std::fs::read(&png).expect("png");
    img.extend_from_slice(b"trailing");
    std::fs::write(&png, &img).expect("write");
    reload(&mut host, "assets/gltf_spider.png");
    assert_eq!(models_parsed(), before + 3, "a saved texture is read again");
}

#[test]
fn saving_a_model_reloads_it_in_place_and_a_bad_save_keeps_the_last_good_one() {
    use skitter::script::{HostOptions, ScriptHost};
    let dir = tempfile::tempdir().expect("tmp");
    let m = model_mod(
        dir.path(),
        r#"world.ground { size = vec3(20, 0, 20) }
world.spawn("mspider", { position = vec3(0, 0, 0), behaviour = "walkers/line", params = { speed = 0.5 } })"#,
        "",
    );
    let mut host = ScriptHost::new(HostOptions::default());
    host.load(&[fixture("walkers"), m.clone()]);
    assert!(host.take_errors().is_empty());
    for _ in 0..30 {
        host.tick();
    }
    let model_of = |host: &ScriptHost| {
        let w = host.world();
        let c = &w.creatures()[0];
        (
            c.id,
            c.loco.position,
            w.creature_type(c.type_id)
                .and_then(|t| t.model.clone())
                .expect("model"),
        )
    };
    let (id, at, good) = model_of(&host);
    let changed = std::collections::BTreeMap::from([(
        "mspider".to_string(),
        vec![PathBuf::from("assets/spider.gltf")],
    )]);
    // A broken save: the reload fails naming the file; the last good model stays.
    let file = m.join("assets/spider.gltf");
    let bytes = std::fs::read(&file).expect("read");
    std::fs::write(&file, b"{ not gltf").expect("write");
    let r = host.reload(&changed);
    let err = r[0]
        .error
        .as_ref()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        !r[0].ok && err.contains("mspider/assets/spider.gltf: is not a valid glTF 2.0 file"),
        "{r:?}"
    );
    let (id2, _, kept) = model_of(&host);
    assert!(
        id2 == id && std::sync::Arc::ptr_eq(&kept, &good),
        "the last good model must stay"
    );
    // A good save (the model scaled in the file's scene: a node scale): reloaded in place,
    // the creature kept where it was.
    let mut json: Value = serde_json::from_slice(&bytes).expect("json");
    let armature = json["scenes"][0]["nodes"][0].as_u64().expect("root") as usize;
    json["nodes"][armature]["scale"] = json!([1.2, 1.2, 1.2]);
    std::fs::write(&file, json.to_string()).expect("write");
    let r = host.reload(&changed);
    assert!(r[0].ok, "{r:?}");
    let (id3, at3, new) = model_of(&host);
    assert_eq!(id3, id);
    assert!(
        at3.distance(at) < 0.05,
        "the creature moved on reload: {at} -> {at3}"
    );
    assert!(!std::sync::Arc::ptr_eq(&new, &good));
    assert!(
        new.plan.height > good.plan.height * 1.1,
        "{} vs {}",
        new.plan.height,
        good.plan.height
    );
}

#[test]
fn a_ragdolled_model_spider_gets_up_and_its_drawn_feet_follow() {
    let level = r#"
world.ground { size = vec3(30, 0, 30) }
behaviour.define {
  name = "thrown",
  on_update = function(self, dt)
    self.state.t = (self.state.t or 0) + 1
    if self.state.t == 2 then self:ragdoll({ turn = vec3(0, 0, 180), duration = 1 }) end
  end,
  on_recover = function(self) self:move(vec3(0, 0, 1), 0.5) end,
}
world.spawn("mspider", { position = vec3(0, 0, 0), behaviour = "thrown" })
"#;
    let (t, text, _d) = run_model_scene(level, "", 720, &[]);
    let recs = t.of(1);
    let mut phases: Vec<&str> = recs.iter().map(|r| r.ragdoll_state.as_str()).collect();
    phases.dedup();
    assert!(
        phases.first() == Some(&"animated")
            && phases.contains(&"limp")
            && phases.last() == Some(&"animated"),
        "{phases:?}"
    );
    // Its drawn tips stay on its feet throughout: animated, and in physics (its bones
    // follow the rig's parts).
    assert_tips_on_feet(&t, &text);
    let end = recs.last().and_then(|r| r.pos).expect("pos");
    assert!(end[2] > 0.5, "it did not walk after getting up: {end:?}");
}

/// Runs the Khronos glTF Validator (npm `gltf-validator`, installed by `.ci/run` under
/// `.tools/`) on `file`: (errors, warnings, messages). `None` (said loudly) where it is not
/// installed outside CI; under CI its absence fails.
fn validate(file: &Path) -> Option<(u64, u64, String)> {
    let modules = root().join(".tools/node_modules");
    let ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
    if !modules.join("gltf-validator").is_dir() {
        assert!(
            !ci,
            "CI=true but the glTF validator is not installed (.ci/run installs it into .tools/)"
        );
        eprintln!("\n!!!!! SKIPPED the glTF validator: not installed (npm install --prefix .tools gltf-validator) !!!!!\n");
        return None;
    }
    let script = "const v = require('gltf-validator'); const fs = require('fs');\
        v.validateBytes(new Uint8Array(fs.readFileSync(process.argv[1]))).then(r => console.log(JSON.stringify({e: r.issues.numErrors, w: r.issues.numWarnings, m: r.issues.messages})))\
        .catch(e => { console.error(String(e)); process.exit(2); });";
    let out = std::process::Command::new("node")
        .args(["-e", script, &file.display().to_string()])
        .env("NODE_PATH", &modules)
        .output()
        .expect("node runs");
    assert!(out.status.success(), "validator: {}", text(&out));
    let v: Value = serde_json::from_slice(&out.stdout).expect("validator json");
    Some((
        v["e"].as_u64().unwrap(),
        v["w"].as_u64().unwrap(),
        v["m"].to_string(),
    ))
}

/// `skitter export spider GLB scripts/spider`: the bundled spider's generated model, written
/// (the export's output, after checking it succeeded).
fn export_bundled_spider(glb: &Path) -> std::process::Output {
    let out = skitter(&[
        "export",
        "spider",
        &glb.display().to_string(),
        &bundled("spider").display().to_string(),
    ]);
    assert!(out.status.success(), "{}", text(&out));
    out
}

#[test]
fn an_exported_type_passes_the_validator_and_loads_back_to_the_same_legs_and_trace() {
    let dir = tempfile::tempdir().expect("tmp");
    let rt = dir.path().join("rt");
    std::fs::create_dir_all(rt.join("assets")).expect("mkdir");
    let glb = rt.join("assets/spider.glb");
    // The bundled spider (its model made from its definition) and the shared spider model.
    let out = export_bundled_spider(&glb);
    assert!(text(&out).contains("26 joints, 8 legs"), "{}", text(&out));
    let ms = model_mod(dir.path(), "", "");
    let loaded = dir.path().join("loaded.glb");
    let out = skitter(&[
        "export",
        "mspider",
        &loaded.display().to_string(),
        &fixture("walkers").display().to_string(),
        &ms.display().to_string(),
    ]);
    assert!(out.status.success(), "{}", text(&out));
    for f in [&glb, &loaded] {
        if let Some((errors, _, messages)) = validate(f) {
            assert_eq!(errors, 0, "{}: {messages}", f.display());
        }
    }
    // Loaded back: the same legs (hips, rest spots, segment lengths), found by themselves.
    let back = load_in(&rt, "assets/spider.glb", None).expect("loads back");
    let b = BoundModel::new(
        std::sync::Arc::new(back),
        &BindSpec {
            scale: 1.0,
            ..BindSpec::default()
        },
        None,
    )
    .expect("binds");
    let body = std::fs::read_to_string(bundled("spider").join("body.lua")).expect("body.lua");
    assert_eq!(b.plan.legs.len(), 8);
    for l in &b.plan.legs {
        let sum: f32 = l.segments.iter().sum();
        assert!((sum - 1.0).abs() < 1e-3 && l.segments.len() == 2, "{l:?}");
    }
    // The bundled spider's own definition, and the same with the exported model in place
    // of its legs (found again from the file): byte for byte the same trace for 300 ticks
    // but for the model's drawn `tip`s.
    let def = body
        .replace("name = \"spider\"", "name = \"rt\"MODEL")
        .replace("return creature.define", "creature.define");
    std::fs::write(
        rt.join("mod.toml"),
        "name = \"rt\"\nversion = \"0.1.0\"\ndepends = [\"walkers\"]\n",
    )
    .expect("write");
    bundled_sounds("spider", &rt);
    let run = |def: &str| {
        let main = format!(
            "{def}\nworld.ground {{ size = vec3(30, 0, 30), noise = {{ amplitude = 0.2, scale = 5, seed = 4 }} }}\n\
             world.spawn(\"rt\", {{ position = vec3(0, 0, -4), behaviour = \"walkers/line\", params = {{ speed = 0.8 }} }})\n\
             world.spawn(\"rt\", {{ position = vec3(3, 0, 0), behaviour = \"walkers/spin\", params = {{ rate = 90 }} }})\n"
        );
        std::fs::write(rt.join("main.lua"), main).expect("write");
        let (out, t) = run_trace(dir.path(), 300, &[fixture("walkers"), rt.clone()], &[]);
        assert!(out.status.success(), "{}", text(&out));
        assert!(t.errors().is_empty(), "{:?}", t.errors());
        trace_text(dir.path())
    };
    let bundled_trace = run(&def.replace("MODEL", ""));
    let exported = run(&def
        .replace("MODEL", ", model = { file = \"assets/spider.glb\" }")
        .replace("legs = legs,", ""));
    assert!(exported.contains("\"tip\":"), "the model's feet have tips");
    assert!(
        without_tips(&exported) == bundled_trace,
        "the exported model's spider strays from the bundled one"
    );
    // Re-modelled (the record no longer agrees with the bones: a leg lengthened in the
    // file), the legs are found from the bones again.
    let mut rec = b
        .model
        .plan_record
        .clone()
        .expect("the export records its plan");
    assert_eq!(rec.legs.len(), 8);
    rec.legs[0].segments[0] += 0.01;
    let mut edited = (*b.model).clone();
    edited.plan_record = Some(rec);
    let (_, plan) = skitter::model::bind(
        &edited,
        &BindSpec {
            scale: 1.0,
            ..BindSpec::default()
        },
    )
    .expect("binds");
    assert!(
        b.plan.recorded && !plan.recorded,
        "a record the bones disagree with is not used"
    );
    assert!(plan.legs.iter().all(|l| l.knee.is_some()));
}

/// `trace` with every foot's `,"tip":[x,y,z]` taken out.
fn without_tips(trace: &str) -> String {
    let mut stripped = String::with_capacity(trace.len());
    let mut rest = trace;
    while let Some(i) = rest.find(",\"tip\":[") {
        stripped.push_str(&rest[..i]);
        let after = &rest[i..];
        let close = after.find(']').expect("tip's end");
        rest = &after[close + 1..];
    }
    stripped.push_str(rest);
    stripped
}

#[test]
fn an_idle_clip_plays_on_the_bones_the_creature_does_not_drive() {
    use skitter::script::{HostOptions, ScriptHost};
    use skitter::sim::Snapshot;
    let dir = tempfile::tempdir().expect("tmp");
    let m = dir.path().join("q");
    std::fs::create_dir_all(m.join("assets")).expect("mkdir");
    std::fs::copy(
        assets().join("spider_quaternius/spider.glb"),
        m.join("assets/spider.glb"),
    )
    .expect("copy");
    std::fs::write(m.join("mod.toml"), "name = \"q\"\nversion = \"0.1.0\"\n").expect("write");
    std::fs::write(
        m.join("main.lua"),
        "creature.define { name = \"q\", model = { file = \"assets/spider.glb\", scale = 0.3, idle = \"SpiderArmature|Spider_Idle\" } }\n\
         world.ground { size = vec3(20, 0, 20) }\nworld.spawn(\"q\", {})\n",
    )
    .expect("write");
    let mut host = ScriptHost::new(HostOptions::default());
    host.load(&[m]);
    assert!(host.take_errors().is_empty());
    let (head, legs) = {
        let w = host.world();
        let t = w.creature_type(w.creatures()[0].type_id).expect("type");
        let bm = t.model.as_ref().expect("model");
        let legs: Vec<usize> = bm
            .binding
            .legs
            .iter()
            .flat_map(|l| l.bones.clone())
            .collect();
        (bm.model.joint("Head").expect("Head"), legs)
    };
    let mut snaps = Vec::new();
    for _ in 0..3 {
        for _ in 0..20 {
            host.tick();
        }
        let mut s = Snapshot::default();
        s.capture(&host.world());
        snaps.push(s);
    }
    let skin = |s: &Snapshot, j: usize| s.skins[s.creatures[0].first_skin as usize + j];
    let moved = |j: usize| {
        (0..2)
            .map(|k| {
                (skin(&snaps[k], j) - skin(&snaps[k + 1], j)).abs_diff_eq(glam::Mat4::ZERO, 1e-4)
            })
            .filter(|same| !same)
            .count()
    };
    // The creature stands still: its body and legs stay; the idle clip (a slow look about)
    // turns its head.
    let body = snaps[0].creatures[0]
        .position
        .distance(snaps[2].creatures[0].position);
    assert!(body < 1e-3, "the standing spider moved {body} m");
    assert!(moved(head) >= 1, "the idle clip does not turn the head");
    for j in legs {
        assert_eq!(moved(j), 0, "the idle clip moved a leg bone the IK drives");
    }
}

#[test]
fn a_type_with_its_own_legs_gives_the_same_trace_with_a_model_as_without() {
    // The bundled spider's definition, once as it is and once drawn with a model (its legs
    // kept: the model's chains are matched to them by name): byte for byte the same trace
    // but for the model's drawn `tip`s. Models are drawing; they never move the sim.
    let dir = tempfile::tempdir().expect("tmp");
    let m = dir.path().join("same");
    std::fs::create_dir_all(m.join("assets")).expect("mkdir");
    let glb = m.join("assets/spider.glb");
    export_bundled_spider(&glb);
    let body = std::fs::read_to_string(bundled("spider").join("body.lua"))
        .expect("body.lua")
        .replace("return creature.define", "creature.define")
        .replace("name = \"spider\"", "name = \"same\"MODEL");
    std::fs::write(
        m.join("mod.toml"),
        "name = \"same\"\nversion = \"0.1.0\"\ndepends = [\"walkers\"]\n",
    )
    .expect("write");
    bundled_sounds("spider", &m);
    let run = |model: &str| {
        let main = format!(
            "{}\nworld.ground {{ size = vec3(30, 0, 30), noise = {{ amplitude = 0.2, scale = 5, seed = 4 }} }}\n\
             world.spawn(\"same\", {{ position = vec3(0, 0, -4), behaviour = \"walkers/line\", params = {{ speed = 0.8 }} }})\n\
             world.spawn(\"same\", {{ position = vec3(3, 0, 0), behaviour = \"walkers/spin\", params = {{ rate = 90 }} }})\n",
            body.replace("MODEL", model)
        );
        std::fs::write(m.join("main.lua"), main).expect("write");
        let (out, t) = run_trace(
            dir.path(),
            300,
            &[fixture("walkers"), m.clone()],
            &["--seed", "9"],
        );
        assert!(out.status.success(), "{}", text(&out));
        assert!(t.errors().is_empty(), "{:?}", t.errors());
        trace_text(dir.path())
    };
    let without = run("");
    let with = run(", model = { file = \"assets/spider.glb\" }");
    assert!(with.contains("\"tip\":"), "the model's feet have tips");
    assert!(without_tips(&with) == without, "traces differ with a model");
}

/// A mod with the four shared models as types defined with no `bind` (only the fox's
/// centimetres scaled, and the spider's size), each spawned walking a line on `ground`.
fn four_models_mod(dir: &Path, ground: &str) -> PathBuf {
    let m = dir.join("four");
    std::fs::create_dir_all(m.join("assets")).expect("mkdir");
    for (from, to) in [
        ("spider/spider.gltf", "spider.gltf"),
        ("spider/gltf_spider.png", "gltf_spider.png"),
        ("fox/fox.glb", "fox.glb"),
        ("knight/knight.glb", "knight.glb"),
        ("spider_quaternius/spider.glb", "qspider.glb"),
    ] {
        std::fs::copy(assets().join(from), m.join("assets").join(to)).expect("copy");
    }
    let main = format!(
        r#"
creature.define {{ name = "spider", model = {{ file = "assets/spider.gltf", texture = "assets/gltf_spider.png", scale = 0.25 }} }}
creature.define {{ name = "fox", model = {{ file = "assets/fox.glb", scale = 0.01 }} }}
creature.define {{ name = "knight", model = {{ file = "assets/knight.glb" }} }}
creature.define {{ name = "qspider", model = {{ file = "assets/qspider.glb" }} }}
{ground}
for i, t in ipairs({{ "spider", "fox", "knight", "qspider" }}) do
  world.spawn(t, {{ position = vec3(-7.5 + 3 * i, 0, -6), behaviour = "walkers/line", params = {{ speed = 0.7 }} }})
end
"#
    );
    temp_mod(
        dir,
        "four",
        &[
            (
                "mod.toml",
                "name = \"four\"\nversion = \"0.1.0\"\ndepends = [\"walkers\"]\n",
            ),
            ("main.lua", &main),
        ],
    )
}

/// Issue 44: all four shared models define a creature type with no `bind` — the knight as
/// a biped with two four-bone arms (refused before: `arms[1].segments needs 1 to 3
/// lengths, got 4`), the fox as a quadruped, both spiders — and walk 10 s on flat and on
/// rough ground within the locomotion bars, their drawn tips on their feet.
#[test]
fn the_four_models_define_types_by_themselves_and_walk_flat_and_rough_ground() {
    for (what, ground) in [
        ("flat", "world.ground { size = vec3(40, 0, 40) }"),
        (
            "rough",
            "world.ground { size = vec3(40, 0, 40), noise = { amplitude = 0.2, scale = 6, seed = 5 } }",
        ),
    ] {
        let dir = tempfile::tempdir().expect("tmp");
        let m = four_models_mod(dir.path(), ground);
        let (out, t) = run_trace(dir.path(), 600, &[fixture("walkers"), m], &[]);
        assert!(out.status.success(), "{what}: {}", text(&out));
        assert!(t.errors().is_empty(), "{what}: {:?}", t.errors());
        let q = assert_walks_well(
            what,
            &t,
            &[
                ("four/spider", 4),
                ("four/fox", 2),
                ("four/knight", 1),
                ("four/qspider", 4),
            ],
        );
        for id in 1..=4u64 {
            assert!(
                q.displacement[&id] > 5.0,
                "{what}: creature {id} went {:.2} m",
                q.displacement[&id]
            );
        }
        let knight = &t.of(3)[0];
        assert_eq!(
            (knight.ty.as_str(), knight.feet.len()),
            ("four/knight", 2),
            "{what}: the knight is a biped"
        );
        assert_tips_on_feet(&t, &trace_text(dir.path()));
    }
}

/// Issue 44: `skitter check --picture FILE.png` draws each model type's bind pose from the
/// front, the side and the top: in each of the three panels the first left leg in its warm
/// colour and the first right leg in its cool one, the knight's arms green, the fox's tail
/// and the Quaternius spider's abdomen brown (free chains), IK targets magenta (helpers); a
/// check with no model type to draw says so and fails.
#[test]
fn check_draws_each_model_types_bind_pose_coloured_by_what_was_found() {
    let dir = tempfile::tempdir().expect("tmp");
    let m = four_models_mod(dir.path(), "world.ground { size = vec3(40, 0, 40) }");
    let png_path = dir.path().join("bound.png");
    let out = skitter(&[
        "check",
        "--picture",
        png_path.to_str().expect("path"),
        fixture("walkers").to_str().expect("path"),
        m.to_str().expect("path"),
    ]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("(4 model type(s))"), "{said}");
    let dec = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(&png_path).expect("png"),
    ));
    let mut r = dec.read_info().expect("png header");
    let mut buf = vec![0; r.output_buffer_size().expect("size")];
    let info = r.next_frame(&mut buf).expect("png data");
    let (w, h) = (info.width as usize, info.height as usize);
    assert!(w >= 900 && h >= 4 * 300, "{w}x{h}");
    // Pixels of exactly `rgb` in each third of the picture (front, side, top).
    let count = |rgb: [u8; 3]| {
        let mut n = [0usize; 3];
        for y in 0..h {
            for x in 0..w {
                let i = 4 * (y * w + x);
                if buf[i..i + 3] == rgb {
                    n[(3 * x / w).min(2)] += 1;
                }
            }
        }
        n
    };
    for (what, rgb) in [
        ("a left leg", [235, 64, 52]),
        ("a right leg", [50, 120, 240]),
        ("an arm", [80, 200, 80]),
        ("a free chain", [170, 120, 70]),
        ("a helper", [230, 60, 230]),
    ] {
        let n = count(rgb);
        assert!(
            n.iter().all(|k| *k >= 10),
            "{what} {rgb:?}: {n:?} pixels by panel"
        );
    }
    // Nothing to draw: one error.
    let out = skitter(&[
        "check",
        "--picture",
        png_path.to_str().expect("path"),
        fixture("walkers").to_str().expect("path"),
    ]);
    let said = text(&out);
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains("--picture: no type with a model file to draw"),
        "{said}"
    );
}
