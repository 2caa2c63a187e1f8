//! The layering of ARCHITECTURE.md, enforced: a module may import (`use crate::...`) only
//! from its own layer or below, and nothing below the render layer names wgpu, winit or egui.

#![allow(clippy::expect_used, clippy::unwrap_used)] // test set-up: a failure is a failed test

use std::path::{Path, PathBuf};

/// Layer of a top-level module under src/.
fn layer(module: &str) -> Option<u8> {
    Some(match module {
        "math" => 0,
        "locomotion" | "nav" | "path" | "model" => 1,
        "sim" => 2,
        "script" | "headless" | "scaffold" | "editor" | "net" | "audio" => 3,
        "render" | "app" => 4,
        _ => return None,
    })
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("read src").flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn lower_layers_never_import_higher_ones() {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut checked = 0;
    let mut violations = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(&src).expect("under src");
        let top = rel
            .components()
            .next()
            .and_then(|c| c.as_os_str().to_str())
            .unwrap_or("")
            .trim_end_matches(".rs")
            .to_string();
        let Some(own) = layer(&top) else { continue };
        let text = std::fs::read_to_string(f).expect("read");
        for (n, line) in text.lines().enumerate() {
            let l = line.trim();
            for token in ["crate::", "super::super::"] {
                if let Some(i) = l.find(token) {
                    if !(l.starts_with("use ")
                        || l.starts_with("pub use ")
                        || l.contains("crate::"))
                    {
                        continue;
                    }
                    let rest = &l[i + token.len()..];
                    let target: String = rest
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    if let Some(t) = layer(&target) {
                        checked += 1;
                        if t > own {
                            violations.push(format!(
                                "{}:{}: layer {own} ({top}) imports layer {t} ({target})",
                                rel.display(),
                                n + 1
                            ));
                        }
                    }
                }
            }
            if own < 4 {
                for gpu in ["wgpu", "winit", "egui"] {
                    if l.starts_with("use ")
                        && (l.contains(&format!("use {gpu}")) || l.contains(&format!("{gpu}::")))
                    {
                        violations.push(format!(
                            "{}:{}: layer {own} names {gpu}",
                            rel.display(),
                            n + 1
                        ));
                    }
                }
            }
        }
    }
    assert!(
        checked > 20,
        "the check found only {checked} crate imports: is it reading the files?"
    );
    assert!(
        violations.is_empty(),
        "layering violations:\n{}",
        violations.join("\n")
    );
}

#[test]
fn locomotion_knows_nothing_of_bones_and_the_renderer_nothing_of_ik() {
    // Models sit beside locomotion (layer 1) and neither names the other; the renderer
    // skins with the matrices the model layer returns and never solves a leg.
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let rules: [(&str, &[&str]); 3] = [
        ("locomotion", &["crate::model", "gltf::"]),
        (
            "model",
            &["crate::locomotion", "crate::sim", "crate::render", "wgpu"],
        ),
        ("render", &["crate::locomotion", "math::ik", "gltf::"]),
    ];
    let mut checked = 0;
    for (dir, banned) in rules {
        let mut files = Vec::new();
        rust_files(&src.join(dir), &mut files);
        assert!(!files.is_empty(), "src/{dir} has no files");
        for f in files {
            let text = std::fs::read_to_string(&f).expect("read");
            for (n, line) in text.lines().enumerate() {
                for b in banned {
                    assert!(
                        !line.contains(b),
                        "{}:{}: src/{dir} names {b}",
                        f.display(),
                        n + 1
                    );
                }
            }
            checked += 1;
        }
    }
    assert!(checked > 10);
}
