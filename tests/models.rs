//! Models in mods: the four rigged glTF files in `../shared/assets/` (made elsewhere, read in
//! place, never copied here) load, bind their legs by themselves, and pose; bad files are
//! clear errors naming the file.

#![allow(clippy::expect_used, clippy::unwrap_used)] // test set-up: a failure is a failed test

use std::path::{Path, PathBuf};

use skitter::model::{self, BindSpec, LoadLimits, Source};

fn assets() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/assets")
}

fn load(dir: &str, file: &str, texture: Option<&str>) -> skitter::model::Model {
    let root = assets().join(dir);
    model::load(
        &Source {
            root: &root,
            mod_name: dir,
            file,
            texture,
        },
        &LoadLimits::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

fn spec() -> BindSpec {
    BindSpec {
        scale: 1.0,
        ..BindSpec::default()
    }
}

#[test]
fn explore() {
    for (d, f, t) in [
        ("spider", "spider.gltf", Some("gltf_spider.png")),
        ("fox", "fox.glb", None),
        ("knight", "knight.glb", None),
        ("spider_quaternius", "spider.glb", None),
    ] {
        let m = load(d, f, t);
        println!(
            "{d}: {} joints, {} prims, bounds {:?}",
            m.joints.len(),
            m.primitives.len(),
            m.bounds
        );
        match model::bind(&m, &spec()) {
            Ok((b, plan)) => {
                println!(
                    "  body {} head {:?}",
                    m.joints[b.body].name,
                    b.head.map(|h| &m.joints[h].name)
                );
                for (l, p) in b.legs.iter().zip(&plan.legs) {
                    println!(
                        "  {} {:?} hip {} rest {} segs {:?} follower {:?}",
                        l.name,
                        l.bones
                            .iter()
                            .map(|j| &m.joints[*j].name)
                            .collect::<Vec<_>>(),
                        p.hip,
                        p.rest,
                        p.segments,
                        l.follower.map(|f| &m.joints[f].name)
                    );
                }
                for a in &plan.arms {
                    println!("  arm {:?}", a);
                }
                println!(
                    "  size {} height {} head {:?}",
                    plan.size, plan.height, plan.head
                );
            }
            Err(e) => println!("  bind error: {e}"),
        }
    }
    let _ = Path::new("");
}
