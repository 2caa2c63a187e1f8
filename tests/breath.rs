//! Issue 47: `body.breathe = { rate, depth }` — a body at rest rises and falls by `depth`,
//! `rate` times a second, out of step with its neighbours; one that does not breathe stays
//! still; bad values are errors naming the field.

#![allow(clippy::expect_used, clippy::unwrap_used)] // tests: a failure is a failed test

mod common;

use common::{run_trace, temp_mod, text};

fn watcher(name: &str, breathe: &str) -> String {
    format!(
        r#"
creature.define {{
  name = "{name}",
  body = {{ size = vec3(0.4, 0.3, 0.9), height = 0.5 {breathe} }},
  legs = {{
    {{ name = "FL", hip = vec3( 0.18, 0,  0.35), rest = vec3( 0.22, -0.5,  0.4), segments = {{ 0.32, 0.32 }}, knee = vec3(0, 0, -1) }},
    {{ name = "FR", hip = vec3(-0.18, 0,  0.35), rest = vec3(-0.22, -0.5,  0.4), segments = {{ 0.32, 0.32 }}, knee = vec3(0, 0, -1) }},
    {{ name = "BL", hip = vec3( 0.18, 0, -0.35), rest = vec3( 0.22, -0.5, -0.4), segments = {{ 0.32, 0.32 }}, knee = vec3(0, 0, 1) }},
    {{ name = "BR", hip = vec3(-0.18, 0, -0.35), rest = vec3(-0.22, -0.5, -0.4), segments = {{ 0.32, 0.32 }}, knee = vec3(0, 0, 1) }},
  }},
  gait = {{ groups = {{ {{ "FL", "BR" }}, {{ "FR", "BL" }} }} }},
}}
"#
    )
}

#[test]
fn a_body_at_rest_breathes_at_its_rate_and_depth() {
    let dir = tempfile::tempdir().expect("tmp");
    let main = format!(
        "world.ground {{ size = vec3(20, 0, 20) }}\n{}{}\
         world.spawn(\"breather\", {{ position = vec3(-2, 0, 0) }})\n\
         world.spawn(\"breather\", {{ position = vec3(0, 0, 0) }})\n\
         world.spawn(\"still\", {{ position = vec3(2, 0, 0) }})\n",
        watcher("breather", ", breathe = { rate = 0.5, depth = 0.03 }"),
        watcher("still", "")
    );
    let m = temp_mod(
        dir.path(),
        "breath",
        &[
            ("mod.toml", "name = \"breath\"\nversion = \"0.1.0\"\n"),
            ("main.lua", &main),
        ],
    );
    let (out, t) = run_trace(dir.path(), 540, &[m], &[]);
    assert!(out.status.success(), "{}", text(&out));
    // Heights from 1 s (settled on its legs) to 9 s: 4 breaths.
    let heights = |id: u64| -> Vec<f64> {
        t.recs
            .iter()
            .filter(|r| r.id == id && r.frame >= 60)
            .map(|r| r.pos.unwrap()[1])
            .collect()
    };
    let span = |h: &[f64]| {
        h.iter().cloned().fold(f64::MIN, f64::max) - h.iter().cloned().fold(f64::MAX, f64::min)
    };
    let (a, b, still) = (heights(1), heights(2), heights(3));
    for h in [&a, &b] {
        let s = span(h);
        assert!(
            (0.025..0.035).contains(&s),
            "breathing {s:.4} m deep (0.03 asked)"
        );
        // A breath every 2 s: 8 s of it cross its middle 8 times (±1).
        let mid = h.iter().sum::<f64>() / h.len() as f64;
        let crossings = h
            .windows(2)
            .filter(|w| (w[0] - mid) * (w[1] - mid) < 0.0)
            .count();
        assert!(
            (7..=9).contains(&crossings),
            "{crossings} crossings in 8 s at 0.5 a second"
        );
    }
    assert!(
        span(&still) < 1e-3,
        "a body that does not breathe moved {}",
        span(&still)
    );
    // Out of step with each other.
    let apart = a
        .iter()
        .zip(&b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max);
    assert!(apart > 0.005, "two breathers in step ({apart})");
    // A bad depth names the field.
    let bad = main.replace("depth = 0.03", "depth = 0.5");
    std::fs::write(dir.path().join("breath/main.lua"), bad).expect("write");
    let out = common::skitter(&["check", &dir.path().join("breath").display().to_string()]);
    let said = text(&out);
    assert!(
        said.contains("field 'body.breathe.depth' must be between 0 and half the body's height"),
        "{said}"
    );
}
