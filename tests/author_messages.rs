//! What an author meets (issue 45, item 6): each message a mod's author gets for a common
//! slip says what and where, in the program's words, and the trace shows what changed.

#![allow(clippy::expect_used, clippy::unwrap_used)] // test set-up: a failure is a failed test

mod common;
use common::*;

/// Runs `main` (with `extra` files) as mod `m` next to the bundled spider for `frames`
/// ticks with a trace; the console text and the trace.
fn run_mod(main: &str, toml: &str, frames: u32) -> (String, Trace) {
    let dir = tempfile::tempdir().expect("tmp");
    let m = temp_mod(dir.path(), "m", &[("mod.toml", toml), ("main.lua", main)]);
    let (out, t) = run_trace(dir.path(), frames, &[bundled("spider"), m], &[]);
    (text(&out), t)
}

const DEPENDS: &str = "name = \"m\"\nversion = \"0.1.0\"\ndepends = [\"spider\"]\n";

#[test]
fn a_method_typo_says_did_you_mean_and_calls_the_handle_a_creature() {
    let (log, _) = run_mod(
        "world.ground { size = vec3(20, 0, 20) }\n\
         local c = world.spawn(\"spider\", { position = vec3(0, 0, 0) })\n\
         local ok, e = pcall(function() c:set_destnation(vec3(1, 0, 1)) end)\n\
         print(e)\n\
         -- A field of the script's own that it has not set reads nil, as on any table.\n\
         print(c.mood == nil, c.pos == nil)\n",
        DEPENDS,
        2,
    );
    assert!(
        log.contains(
            "m/main.lua:3: a creature has no method 'set_destnation' (did you mean 'set_destination'?)"
        ),
        "{log}"
    );
    assert!(log.contains("true\ttrue"), "{log}");
}

#[test]
fn spawning_a_type_of_a_mod_not_in_depends_says_to_add_it() {
    let (log, t) = run_mod(
        "world.ground { size = vec3(20, 0, 20) }\n\
         world.spawn(\"spider/spider\", { position = vec3(0, 0, 0) })\n",
        "name = \"m\"\nversion = \"0.1.0\"\n",
        2,
    );
    assert!(
        log.contains("m/main.lua:2: world.spawn: creature type \"spider/spider\" is from mod \"spider\", which mod \"m\" does not depend on (add \"spider\" to depends in m/mod.toml)"),
        "{log}"
    );
    assert_eq!(t.errors().len(), 1, "{:?}", t.errors());
    // With the dependency, a name the mod does not define says what it does define.
    let (log, _) = run_mod(
        "world.spawn(\"spider/spidr\", { position = vec3(0, 0, 0) })\n",
        DEPENDS,
        2,
    );
    assert!(
        log.contains("unknown creature type \"spider/spidr\": mod \"spider\" defines spider"),
        "{log}"
    );
}

#[test]
fn check_reports_every_bad_field_at_its_line_and_a_failed_defines_spawn_says_so() {
    let dir = tempfile::tempdir().expect("tmp");
    let m = temp_mod(
        dir.path(),
        "m",
        &[
            ("mod.toml", "name = \"m\"\nversion = \"0.1.0\"\n"),
            (
                "main.lua",
                "creature.define {\n\
                 \x20 name = \"bad\",\n\
                 \x20 body = { size = vec3(0.4, 0.2, 0.6), height = -1 },\n\
                 \x20 legs = { { name = \"L\", hip = vec3(0.1, 0, 0), rest = vec3(0.4, -0.3, 0), segments = { 0.3, 0.3 } } },\n\
                 \x20 gait = {\n\
                 \x20   step_height = -2,\n\
                 \x20 },\n\
                 \x20 nav = { sped = 3 },\n\
                 }\n\
                 world.spawn(\"bad\", { position = vec3(0, 0, 0) })\n",
            ),
        ],
    );
    let out = skitter(&["check", &m.display().to_string()]);
    let log = text(&out);
    assert_eq!(out.status.code(), Some(1), "{log}");
    for needle in [
        "m/main.lua:3: creature.define: field 'body.height' must be > 0, got -1",
        "m/main.lua:6: creature.define: field 'gait.step_height' must be > 0, got -2",
        "m/main.lua:8: creature.define: field 'nav.sped' is not a known field (did you mean 'nav.speed'?)",
        "m/main.lua:10: world.spawn: creature type \"bad\" was not defined: its creature.define failed (at m/main.lua:1)",
        "4 error(s)",
    ] {
        assert!(log.contains(needle), "missing {needle:?} in\n{log}");
    }
    // A run stops at the first, at its field's line.
    let (out, t) = run_trace(dir.path(), 2, &[m], &[]);
    let log = text(&out);
    assert!(
        log.contains("m/main.lua:8: creature.define: field 'nav.sped'"),
        "{log}"
    );
    assert_eq!(t.errors().len(), 1);
}

#[test]
fn vec3_wants_three_numbers_and_says_so() {
    let (log, _) = run_mod(
        "print(pcall(vec3, 1, 2))\nprint(pcall(function() return vec3(1, \"a\", 2) end))\nprint(vec3(1, 2, 3))\n",
        DEPENDS,
        1,
    );
    assert!(
        log.contains("vec3(x, y, z) takes three numbers, got (number, number, nil)"),
        "{log}"
    );
    assert!(
        log.contains(
            "m/main.lua:2: vec3(x, y, z) takes three numbers, got (number, string, number)"
        ),
        "{log}"
    );
    assert!(log.contains("1, 2, 3"), "{log}");
}

#[test]
fn a_mistyped_mod_toml_key_and_a_missing_folder_read_plainly() {
    let (log, _) = run_mod(
        "",
        "name = \"m\"\nversion = \"0.1.0\"\nentri = \"main.lua\"\n",
        1,
    );
    assert!(
        log.contains("unknown key \"entri\" (did you mean \"entry\"?"),
        "{log}"
    );
    let out = skitter(&["run", "--headless", "--frames", "1", "/nonexistent/mod"]);
    let log = text(&out);
    assert!(
        log.contains("error: /nonexistent/mod: no such mod folder"),
        "{log}"
    );
    assert!(!log.contains("-:"), "a stray prefix: {log}");
}

#[test]
fn a_suspended_mods_creatures_say_so_in_the_trace_and_a_memory_error_has_its_place() {
    let (log, t) = run_mod(
        "world.ground { size = vec3(20, 0, 20) }\n\
         behaviour.define { name = \"bomb\", on_update = function(self)\n\
         \x20 local s = string.rep(\"x\", 2 ^ 30)\n\
         end }\n\
         world.spawn(\"spider\", { position = vec3(0, 0, 0), behaviour = \"bomb\" })\n",
        DEPENDS,
        5,
    );
    assert!(
        log.contains("m/main.lua:2: memory limit exceeded: more than 64 MiB (in the callback that starts here)"),
        "{log}"
    );
    let last = t.recs.iter().rev().find(|r| r.id == 1).expect("a record");
    assert_eq!(last.brain.as_deref(), Some("suspended"), "{log}");
}

#[test]
fn the_trace_shows_live_gait_and_lean_changes_and_the_camera() {
    let (log, t) = run_mod(
        "world.ground { size = vec3(20, 0, 20) }\n\
         local c = world.spawn(\"spider\", { position = vec3(0, 0, 0) })\n\
         camera.look(vec3(3, 2, 3), vec3(0, 0.3, 0))\n\
         behaviour.define { name = \"tune\", on_update = function(self)\n\
         \x20 if world.time() > 0.5 and not self.state.done then\n\
         \x20   self.state.done = true\n\
         \x20   self.gait = { step_height = 0.2 }\n\
         \x20   self.lean = { response = 0.3 }\n\
         \x20   camera.follow(self)\n\
         \x20 end\n\
         end }\n\
         world.spawn(\"spider\", { position = vec3(3, 0, 0), behaviour = \"tune\" })\n",
        DEPENDS,
        60,
    );
    let tuning: Vec<&serde_json::Value> =
        t.events.iter().filter(|e| e["event"] == "tuning").collect();
    assert_eq!(
        tuning.len(),
        1,
        "one change, of the tuned one: {tuning:?} {log}"
    );
    let e = tuning[0];
    assert_eq!(e["id"], 2);
    assert!(e["frame"].as_u64().unwrap() > 29);
    assert!(
        (e["gait"]["step_height"].as_f64().unwrap() - 0.2).abs() < 1e-6,
        "{e}"
    );
    assert!(
        (e["lean"]["response"].as_f64().unwrap() - 0.3).abs() < 1e-6,
        "{e}"
    );
    let camera: Vec<&serde_json::Value> =
        t.events.iter().filter(|e| e["event"] == "camera").collect();
    assert_eq!(camera.len(), 2, "{camera:?}");
    assert_eq!(camera[0]["look"]["from"][0], 3.0);
    assert_eq!(camera[0]["look"]["at"][1], 0.3);
    assert_eq!(camera[1]["follow"], 2);
}

#[test]
fn an_unknown_hand_names_its_field() {
    let (log, t) = run_mod(
        "creature.define { name = \"c\", legs = {\n\
         \x20 { name = \"L\", hip = vec3(0.1, 0, 0), rest = vec3(0.4, -0.3, 0), segments = { 0.3, 0.3 } },\n\
         \x20 { name = \"R\", hip = vec3(-0.1, 0, 0), rest = vec3(-0.4, -0.3, 0), segments = { 0.3, 0.3 } } },\n\
         \x20 arms = { { name = \"A\", shoulder = vec3(0, 0, 0.1), segments = { 0.2, 0.2 }, hand = \"hoof\" } },\n\
         }\n",
        DEPENDS,
        1,
    );
    assert!(
        log.contains("m/main.lua:4: creature.define: field 'arms[1].hand' must be \"claw\", \"fist\" or \"none\", got \"hoof\""),
        "{log}"
    );
    assert_eq!(t.errors().len(), 1);
}
