//! The profiler (issue 48, item 3): per mod, per callback kind and behaviour, what scripts
//! cost, with the tick's phases; `skitter run --headless --profile FILE.json` writes it.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use common::*;
use serde_json::Value;

/// A crowd of wandering spiders, and beside it a mod whose `on_step` burns a hot loop.
fn mods(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let crowd = temp_mod(
        dir,
        "crowd",
        &[
            ("mod.toml", "name = \"crowd\"\nversion = \"0.1.0\"\ndepends = [\"spider\"]\n"),
            (
                "main.lua",
                "world.ground { size = vec3(60, 0, 60) }\n\
                 for i = 0, 39 do\n\
                   world.spawn('spider/spider', { position = vec3(i % 8 * 3 - 12, 0, math.floor(i / 8) * 3 - 6) })\n\
                 end\n",
            ),
        ],
    );
    let hot = temp_mod(
        dir,
        "hot",
        &[
            ("mod.toml", "name = \"hot\"\nversion = \"0.1.0\"\ndepends = [\"spider\"]\n"),
            (
                "main.lua",
                "behaviour.define { name = 'stomper',\n\
                   on_update = function(self, dt) self:move(vec3(0, 0, 1), 0.8) end,\n\
                   on_step = function(self, foot)\n\
                     local x = 0\n\
                     for i = 1, 30000 do x = x + math.sqrt(i) end\n\
                     self.state.x = x\n\
                   end }\n\
                 for i = 0, 3 do\n\
                   world.spawn('spider/spider', { position = vec3(i * 3 - 5, 0, -20), behaviour = 'stomper' })\n\
                 end\n",
            ),
        ],
    );
    vec![bundled("spider"), crowd, hot]
}

/// The run's own tick figures: the summary lines' mean tick (ms) of each second, times 60.
fn summary_total_ms(out: &str) -> f64 {
    out.lines()
        .filter_map(|l| l.split("tick ").nth(1))
        .filter_map(|r| r.split(" ms").next()?.trim().parse::<f64>().ok())
        .map(|ms| ms * 60.0)
        .sum()
}

#[test]
fn a_hot_loop_tops_the_profile_and_the_totals_match_the_run() {
    let dir = tempfile::tempdir().expect("tmp");
    let json = dir.path().join("profile.json");
    let j = json.display().to_string();
    let (out, trace) = run_trace(dir.path(), 240, &mods(dir.path()), &["--profile", &j]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(trace.errors().is_empty());
    let p: Value = serde_json::from_str(&std::fs::read_to_string(&json).expect("written"))
        .expect("the profile is JSON");
    assert_eq!(p["ticks"], 240);
    // The mod with the hot loop is the top entry, its callback and behaviour named.
    let top = &p["mods"][0];
    assert_eq!(top["name"], "hot", "{:#}", p["mods"]);
    let cb = &top["callbacks"][0];
    assert_eq!(
        (cb["callback"].as_str(), cb["behaviour"].as_str()),
        (Some("on_step"), Some("stomper"))
    );
    assert!(cb["calls"].as_u64().unwrap() > 50, "{cb}");
    // Work units: thousands a step, deterministic; a budget share and memory reported.
    assert!(cb["units"]["worst"].as_f64().unwrap() > 30000.0, "{cb}");
    assert!(top["budget_share"]["worst"].as_f64().unwrap() > 0.0);
    assert!(top["memory_bytes"].as_u64().unwrap() > 100_000);
    let spider_brains = p["mods"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "spider")
        .expect("the spider mod runs the crowd's brains");
    assert_eq!(spider_brains["callbacks"][0]["callback"], "on_update");
    assert_eq!(spider_brains["callbacks"][0]["behaviour"], "wander");
    assert_eq!(spider_brains["callbacks"][0]["calls"], 40 * 240);
    // The totals match the run's own tick figures within 10 %.
    let total = p["tick_ms"]["total"].as_f64().unwrap();
    let run = summary_total_ms(&text(&out));
    assert!(
        (total - run).abs() <= 0.1 * run,
        "profile {total:.1} ms against the run's {run:.1} ms"
    );
    // And the phases account for the tick.
    let phases: f64 = p["phases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|ph| ph["ms"]["total"].as_f64().unwrap())
        .sum();
    assert!(
        (phases - total).abs() <= 0.1 * total,
        "phases {phases:.1} ms of a {total:.1} ms tick"
    );
    let names: Vec<&str> = p["phases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|ph| ph["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["scripts", "navigation", "locomotion", "physics"]);
}

#[test]
fn profiling_changes_nothing_in_the_trace() {
    let dir = tempfile::tempdir().expect("tmp");
    let a = tempfile::tempdir().expect("tmp");
    let b = tempfile::tempdir().expect("tmp");
    let m = mods(dir.path());
    let json = dir.path().join("p.json").display().to_string();
    run_trace(a.path(), 120, &m, &[]);
    run_trace(b.path(), 120, &m, &["--profile", &json]);
    assert!(
        trace_text(a.path()) == trace_text(b.path()),
        "profiling changed the trace"
    );
}
