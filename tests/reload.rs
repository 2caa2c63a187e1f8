//! Hot reload through the host API (no watcher, no timing): a save swaps new code in with
//! ids, positions, feet, overrides and `state` kept; a broken save changes nothing; spawns
//! are reconciled by (type, call order); level edits re-ground the creatures; 500 random
//! saves in a row end in the world the final files describe.

#![allow(clippy::expect_used, clippy::unwrap_used)] // test set-up: a failure is a failed test

mod common;
use common::*;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use skitter::script::{BrainState, HostOptions, ScriptHost};
use skitter::sim::{Command, CreatureId};

fn save(dir: &Path, live: &Live) -> BTreeMap<String, Vec<PathBuf>> {
    std::fs::write(dir.join("main.lua"), live.source()).expect("write");
    BTreeMap::from([("live".to_string(), vec![PathBuf::from("main.lua")])])
}

fn host_with(dir: &Path) -> ScriptHost {
    let mut host = ScriptHost::new(HostOptions::default());
    host.load(&[dir.to_path_buf()]);
    let errors = host.take_errors();
    assert!(errors.is_empty(), "{errors:?}");
    host
}

fn ticks(host: &mut ScriptHost, n: usize) {
    for _ in 0..n {
        host.tick();
    }
}

fn bugs(host: &ScriptHost) -> Vec<(CreatureId, glam::Vec3, f32, f32)> {
    host.world()
        .creatures()
        .iter()
        .map(|c| {
            (
                c.id,
                c.loco.position,
                c.gait.step_height,
                c.gait.step_trigger,
            )
        })
        .collect()
}

fn logs(host: &mut ScriptHost) -> String {
    host.take_logs()
        .into_iter()
        .map(|l| l.text)
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_save_swaps_code_in_and_keeps_ids_positions_overrides_and_state() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut live = Live::default();
    let m = live_mod(dir.path(), &live);
    let mut host = host_with(&m);
    ticks(&mut host, 60);
    let before = bugs(&host);
    assert_eq!(before.len(), 2);
    // A per-instance override on the first bug (as `c.gait.step_trigger = 0.3` would).
    let mut g = host.world().creature(before[0].0).unwrap().gait.clone();
    g.step_trigger = 0.3;
    host.world_mut()
        .push(Command::SetGait(before[0].0, Box::new(g)));
    ticks(&mut host, 1);
    let before = bugs(&host);
    let feet: Vec<glam::Vec3> = host.world().creatures()[1]
        .loco
        .legs
        .iter()
        .map(|l| l.foot)
        .collect();

    // 1. New values: step height and speed.
    live.step = 0.2;
    live.speed = 1.4;
    let r = host.reload(&save(&m, &live));
    assert!(r.len() == 1 && r[0].ok, "{r:?}");
    let after = bugs(&host);
    assert_eq!(
        after.iter().map(|b| (b.0, b.1)).collect::<Vec<_>>(),
        before.iter().map(|b| (b.0, b.1)).collect::<Vec<_>>(),
        "same ids at the same places"
    );
    let feet_after: Vec<glam::Vec3> = host.world().creatures()[1]
        .loco
        .legs
        .iter()
        .map(|l| l.foot)
        .collect();
    assert_eq!(feet, feet_after, "feet kept");
    assert!(
        after.iter().all(|b| (b.2 - 0.2).abs() < 1e-6),
        "new step height: {after:?}"
    );
    assert_eq!(after[0].3, 0.3, "the override survived");
    assert_eq!(after[1].3, 0.15, "no override: the type's value");
    let log = logs(&mut host);
    for b in &before {
        assert!(
            log.contains(&format!(
                "reloaded {} n=61 tag=t{} speed=1.4",
                b.0 .0, b.0 .0
            )),
            "state kept, on_reload called, new params: {log}"
        );
    }
    ticks(&mut host, 30);
    let v = host.world().creatures()[1].loco.velocity.z;
    assert!(v > 1.0, "the new speed took effect: {v}");

    // 2. A broken save changes nothing.
    let snapshot = bugs(&host);
    live.broken = true;
    let r = host.reload(&save(&m, &live));
    assert!(r.len() == 1 && !r[0].ok);
    let e = r[0].error.clone().unwrap();
    assert!(
        e.location
            .as_deref()
            .unwrap_or("")
            .starts_with("live/main.lua:"),
        "{e}"
    );
    assert_eq!(bugs(&host), snapshot);
    assert!(host.broken_mods().contains_key("live"));
    ticks(&mut host, 30);
    assert!(
        host.world().creatures()[1].loco.velocity.z > 1.0,
        "the last good code runs on"
    );

    // 3. Fixed, with a third spawn: the first two are kept, one appears.
    live.broken = false;
    live.spawns = 3;
    let ids: Vec<CreatureId> = bugs(&host).iter().map(|b| b.0).collect();
    let r = host.reload(&save(&m, &live));
    assert!(r[0].ok, "{r:?}");
    assert!(host.broken_mods().is_empty());
    ticks(&mut host, 1);
    let now = bugs(&host);
    assert_eq!(now.len(), 3);
    assert_eq!(&now[..2].iter().map(|b| b.0).collect::<Vec<_>>(), &ids);

    // 4. One spawn removed: the surplus (the last by call order) goes.
    live.spawns = 2;
    host.reload(&save(&m, &live));
    ticks(&mut host, 1);
    assert_eq!(bugs(&host).iter().map(|b| b.0).collect::<Vec<_>>(), ids);

    // 5. The level changes: the creatures are stood on the new ground.
    live.ground_y = 0.5;
    let y0 = host.world().creatures()[0].loco.position.y;
    let r = host.reload(&save(&m, &live));
    assert!(r[0].ok);
    let y1 = host.world().creatures()[0].loco.position.y;
    assert!((y1 - y0 - 0.5).abs() < 0.02, "re-grounded: {y0} -> {y1}");
    let w = host.world();
    assert!(w.creatures()[0]
        .loco
        .legs
        .iter()
        .all(|l| (l.foot.y - 0.5).abs() < 1e-3));
}

/// What a broken save must leave as it was: the level (pieces and the ground's grid), and
/// every creature's id, type, place, heading, gait and feet.
#[derive(Debug, PartialEq)]
struct WorldFacts {
    level: skitter::sim::Level,
    creatures: Vec<CreatureFacts>,
}

/// Id, type, place, heading, gait and feet.
type CreatureFacts = (
    CreatureId,
    String,
    [f32; 3],
    f32,
    skitter::locomotion::GaitParams,
    Vec<[f32; 3]>,
);

fn world_facts(host: &ScriptHost) -> WorldFacts {
    let w = host.world();
    WorldFacts {
        level: w.level().clone(),
        creatures: w
            .creatures()
            .iter()
            .map(|c| {
                (
                    c.id,
                    w.creature_type(c.type_id)
                        .map(|t| t.name.clone())
                        .unwrap_or_default(),
                    c.loco.position.to_array(),
                    c.loco.yaw,
                    c.gait.clone(),
                    c.loco.legs.iter().map(|l| l.foot.to_array()).collect(),
                )
            })
            .collect(),
    }
}

#[test]
fn five_hundred_random_saves_end_in_the_world_the_files_describe() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut live = Live::default();
    let m = live_mod(dir.path(), &live);
    let mut host = host_with(&m);
    // A small deterministic generator: the test is the same on every run.
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let (mut ok, mut failed, mut late) = (0, 0, 0);
    let mut last_good = live.clone();
    for i in 0..500 {
        let r = next();
        // One save in five is broken: a syntax error, or an error at run time after the
        // new level and spawns already ran.
        live.broken = r % 10 == 0;
        live.fails_late = r % 10 == 5;
        live.spawns = 1 + (r >> 8) as usize % 4;
        live.step = [0.08, 0.12, 0.16][(r >> 16) as usize % 3];
        live.speed = [0.5, 0.8, 1.1][(r >> 20) as usize % 3];
        live.ground_y = [0.0, 0.2][(r >> 24) as usize % 2];
        let before = world_facts(&host);
        let reports = host.reload(&save(&m, &live));
        assert_eq!(reports.len(), 1, "save {i}");
        let bad = live.broken || live.fails_late;
        assert_eq!(reports[0].ok, !bad, "save {i}: {:?}", reports[0].error);
        if bad {
            late += live.fails_late as usize;
            // Rolled back at once: the level, its ground and every creature as before.
            assert!(
                world_facts(&host) == before,
                "save {i} (broken: {}, fails late: {}) changed the world",
                live.broken,
                live.fails_late
            );
            failed += 1;
        } else {
            ok += 1;
            last_good = live.clone();
        }
        ticks(&mut host, 1 + (r >> 28) as usize % 3);
        let n = host.world().creatures().len();
        assert_eq!(
            n, last_good.spawns,
            "save {i}: creatures {n}, files say {}",
            last_good.spawns
        );
        assert!(
            host.world()
                .creatures()
                .iter()
                .all(|c| c.loco.position.is_finite()
                    && c.loco.legs.iter().all(|l| l.foot.is_finite()))
        );
    }
    assert!(ok > 300 && failed > 60, "{ok} good, {failed} broken");
    assert!(late > 20, "only {late} saves failed late");
    // The final world matches a fresh load of the final (good) files.
    live = last_good;
    save(&m, &live);
    let fresh = host_with(&m);
    let (a, b) = (host.world(), fresh.world());
    assert_eq!(a.creatures().len(), b.creatures().len());
    assert_eq!(
        a.level().ground.as_ref().map(|g| g.origin),
        b.level().ground.as_ref().map(|g| g.origin)
    );
    for (x, y) in a.creatures().iter().zip(b.creatures()) {
        assert_eq!(x.gait, y.gait);
        assert_eq!(x.def.body, y.def.body);
    }
}

#[test]
fn a_clean_save_lifts_a_budget_suspension() {
    // The runaway runs in this process: if the budget never fires, the watchdog fails the
    // test instead of the suite hanging.
    within(BUDGET_WATCHDOG, BUDGET_NEVER_FIRED, || {
        let dir = tempfile::tempdir().expect("tmp");
        let src = |body: &str| {
            format!(
                "world.ground {{ size = vec3(20, 0, 20) }}\nbehaviour.define {{ name = 'b', on_update = function(self, dt)\n  {body}\nend }}\ncreature.define {{ name = 'bug', legs = {{}}, body = {{ hover = 0.5 }} }}\nworld.spawn('bug', {{ position = vec3(0, 0, 0), behaviour = 'b' }})\n"
            )
        };
        let m = temp_mod(
            dir.path(),
            "hang",
            &[
                ("main.lua", &src("while true do end")),
                ("mod.toml", "name = \"hang\"\nversion = \"0.1.0\"\n"),
            ],
        );
        let mut host = ScriptHost::new(HostOptions {
            cpu_per_tick: std::time::Duration::from_millis(5),
            ..HostOptions::default()
        });
        host.load(std::slice::from_ref(&m));
        ticks(&mut host, 3);
        assert_eq!(host.suspended_mods().len(), 1, "the runaway was suspended");
        let e = host.take_errors();
        assert!(
            e.iter().any(|e| e.message.contains("CPU budget exceeded")),
            "{e:?}"
        );
        std::fs::write(m.join("main.lua"), src("self:move(vec3(1, 0, 0), 1)")).expect("write");
        let r = host.reload(&BTreeMap::from([(
            "hang".to_string(),
            vec![PathBuf::from("main.lua")],
        )]));
        assert!(r[0].ok, "{r:?}");
        assert!(
            host.suspended_mods().is_empty(),
            "a clean save lifts the suspension"
        );
        ticks(&mut host, 60);
        let x = host.world().creatures()[0].loco.position.x;
        assert!(x > 0.3, "the fixed brain runs: x = {x}");
    });
}

#[test]
fn a_reload_gives_a_detached_brain_back() {
    use skitter::script::BrainState;
    let dir = tempfile::tempdir().expect("tmp");
    let src = |body: &str| {
        format!(
            "world.ground {{ size = vec3(20, 0, 20) }}\nbehaviour.define {{ name = 'b', on_update = function(self, dt)\n  {body}\nend }}\ncreature.define {{ name = 'fly', legs = {{}}, body = {{ hover = 0.5 }} }}\nworld.spawn('fly', {{ position = vec3(0, 0, 0), behaviour = 'b' }})\n"
        )
    };
    let m = temp_mod(
        dir.path(),
        "flaky",
        &[
            ("main.lua", &src("error('always')")),
            ("mod.toml", "name = \"flaky\"\nversion = \"0.1.0\"\n"),
        ],
    );
    let mut host = host_with(&m);
    let id = host.world().creatures()[0].id;
    ticks(&mut host, 2);
    assert_eq!(host.brain_state(id), Some(BrainState::Paused));
    ticks(&mut host, 200);
    assert_eq!(host.brain_state(id), Some(BrainState::Detached));
    std::fs::write(m.join("main.lua"), src("self:move(vec3(1, 0, 0), 1)")).expect("write");
    let r = host.reload(&BTreeMap::from([(
        "flaky".to_string(),
        vec![PathBuf::from("main.lua")],
    )]));
    assert!(r[0].ok, "{r:?}");
    assert_eq!(host.brain_state(id), Some(BrainState::Running));
    ticks(&mut host, 60);
    let x = host.world().creatures()[0].loco.position.x;
    assert!(x > 0.3, "the brain runs again: x = {x}");
}

#[test]
fn a_dependent_re_runs_only_when_it_runs_the_changed_mods_code() {
    let dir = tempfile::tempdir().expect("tmp");
    let spider = dir.path().join("spider");
    copy_dir(&bundled("spider"), &spider);
    std::fs::write(spider.join("util.lua"), "return { v = 1 }\n").expect("write");
    let dep = "version = \"0.1.0\"\ndepends = [\"spider\"]\n";
    let scene = temp_mod(
        dir.path(),
        "scene",
        &[
            ("mod.toml", &format!("name = \"scene\"\n{dep}")),
            (
                "main.lua",
                "world.ground { size = vec3(30, 0, 30) }\nfor i = 1, 3 do world.spawn('spider/spider', { position = vec3(i * 2, 0, 0) }) end\n",
            ),
        ],
    );
    let user = temp_mod(
        dir.path(),
        "user",
        &[
            ("mod.toml", &format!("name = \"user\"\n{dep}")),
            (
                "main.lua",
                "local util = require('@spider/util')\nlog.info('user sees ' .. util.v)\n",
            ),
        ],
    );
    let mut host = ScriptHost::new(HostOptions::default());
    host.load(&[spider.clone(), scene, user]);
    let errors = host.take_errors();
    assert!(errors.is_empty(), "{errors:?}");
    ticks(&mut host, 30);
    let ids: Vec<CreatureId> = host.world().creatures().iter().map(|c| c.id).collect();
    assert_eq!(ids.len(), 3);
    let body = std::fs::read_to_string(spider.join("body.lua")).expect("read");
    std::fs::write(
        spider.join("body.lua"),
        body.replace("step_height = 0.12", "step_height = 0.2"),
    )
    .expect("write");
    let reports = host.reload(&BTreeMap::from([(
        "spider".to_string(),
        vec![PathBuf::from("body.lua")],
    )]));
    let reloaded: Vec<&str> = reports.iter().map(|r| r.mod_name.as_str()).collect();
    assert!(reports.iter().all(|r| r.ok), "{reports:?}");
    // `user` runs spider's code (it required a module of it); `scene` only names its type.
    assert_eq!(reloaded, vec!["spider", "user"]);
    let w = host.world();
    let now: Vec<CreatureId> = w.creatures().iter().map(|c| c.id).collect();
    assert_eq!(now, ids, "the scene's creatures stay");
    assert!(
        w.creatures().iter().all(|c| c.gait.step_height == 0.2),
        "and take the new definition"
    );
}

/// The `herd` mod's behaviour `counter`, `version` written into it: counts its ticks in
/// `state.n`, notes the version that ran last in `state.v`, logs every `on_reload`.
fn counter_behaviour(version: u32) -> String {
    format!(
        "behaviour.define {{ name = 'counter',\n\
           on_update = function(self, dt) self.state.n = (self.state.n or 0) + 1; self.state.v = {version} end,\n\
           on_reload = function(self) log.info('moved ' .. self.id .. ' n=' .. self.state.n) end,\n\
         }}\n\
         creature.define {{ name = 'grazer', body = {{ size = vec3(0.3, 0.15, 0.45), height = 0.25 }},\n\
           legs = {{ {{ name = 'L', hip = vec3(0.1, 0, 0.12), rest = vec3(0.35, -0.25, 0.3), segments = {{ 0.25, 0.3 }} }},\n\
                    {{ name = 'R', hip = vec3(-0.1, 0, 0.12), rest = vec3(-0.35, -0.25, 0.3), segments = {{ 0.25, 0.3 }} }},\n\
                    {{ name = 'B', hip = vec3(0, 0, -0.12), rest = vec3(0, -0.25, -0.35), segments = {{ 0.25, 0.3 }} }} }},\n\
           behaviour = 'counter' }}\n"
    )
}

#[test]
fn a_save_with_many_creatures_alive_moves_their_brains_a_few_per_tick_with_state_kept() {
    let dir = tempfile::tempdir().expect("tmp");
    let herd = temp_mod(
        dir.path(),
        "herd",
        &[
            ("mod.toml", "name = \"herd\"\nversion = \"0.1.0\"\n"),
            ("main.lua", &counter_behaviour(1)),
        ],
    );
    let field = temp_mod(
        dir.path(),
        "field",
        &[
            (
                "mod.toml",
                "name = \"field\"\nversion = \"0.1.0\"\ndepends = [\"herd\"]\n",
            ),
            (
                "main.lua",
                "world.ground { size = vec3(40, 0, 40) }\nfor i = 0, 9 do world.spawn('herd/grazer', { position = vec3(i * 2 - 9, 0, 0) }) end\n",
            ),
        ],
    );
    let mut host = ScriptHost::new(HostOptions {
        migrate_per_tick: 4,
        ..HostOptions::default()
    });
    host.load(&[herd.clone(), field]);
    let errors = host.take_errors();
    assert!(errors.is_empty(), "{errors:?}");
    ticks(&mut host, 5);
    let ids: Vec<CreatureId> = host.world().creatures().iter().map(|c| c.id).collect();
    assert_eq!(ids.len(), 10);
    let _ = host.take_logs();
    // Each creature's state as the trace would see it: (ticks counted, version that ran).
    let states = |host: &ScriptHost| -> Vec<(i64, i64)> {
        ids.iter()
            .map(|id| {
                let n = host.state_number(*id, "n").unwrap_or(-1.0);
                let v = host.state_number(*id, "v").unwrap_or(-1.0);
                (n as i64, v as i64)
            })
            .collect()
    };
    assert!(
        states(&host).iter().all(|s| *s == (5, 1)),
        "{:?}",
        states(&host)
    );

    std::fs::write(herd.join("main.lua"), counter_behaviour(2)).expect("write");
    let changed = BTreeMap::from([("herd".to_string(), vec![PathBuf::from("main.lua")])]);
    let r = host.reload(&changed);
    assert!(r.len() == 1 && r[0].ok, "{r:?}");
    // The first 4 brains moved with the reload; 6 wait, in id order, their state untouched.
    assert_eq!(host.brains_migrating(), 6);
    let moved_now = logs(&mut host);
    for (k, id) in ids.iter().enumerate() {
        assert_eq!(
            moved_now.contains(&format!("moved {} n=5", id.0)),
            k < 4,
            "{moved_now}"
        );
        // A waiting brain still counts as running (the trace's `brain`).
        assert_eq!(host.brain_state(*id), Some(BrainState::Running));
    }
    // Each tick moves 4 more before any callback runs: the waiting ones skip their
    // `on_update` until then (their walk goes on), and none starts over.
    let mut seen = vec![(5, 1); 10];
    for (tick, waiting) in [(1, 2), (2, 0), (3, 0)] {
        host.tick();
        assert_eq!(host.brains_migrating(), waiting, "after tick {tick}");
        let now = states(&host);
        for (k, (before, after)) in seen.iter().zip(&now).enumerate() {
            let moved_by = if k < 4 {
                0
            } else if k < 8 {
                1
            } else {
                2
            };
            if tick >= moved_by {
                assert_eq!(
                    after.1, 2,
                    "creature {k} runs the new code from tick {moved_by}"
                );
                assert_eq!(
                    after.0,
                    before.0 + 1,
                    "creature {k} counts on from its old state"
                );
            } else {
                assert_eq!(after, before, "creature {k} waits its turn");
            }
        }
        seen = now;
    }
    let log = logs(&mut host);
    for id in &ids[4..] {
        assert_eq!(
            log.matches(&format!("moved {} n=", id.0)).count(),
            1,
            "on_reload once per creature: {log}"
        );
    }
    assert!(host.take_errors().is_empty());

    // A save while brains are still moving: the move in progress finishes first (no state
    // lost), then the new one starts; a creature despawned while it waits is left out.
    let r = host.reload(&changed);
    assert!(r[0].ok);
    assert_eq!(host.brains_migrating(), 6);
    let gone = ids[9];
    host.world_mut().push(Command::Despawn(gone));
    host.tick();
    let r = host.reload(&changed);
    assert!(r[0].ok, "{r:?}");
    for _ in 0..3 {
        host.tick();
    }
    assert_eq!(host.brains_migrating(), 0);
    let now = states(&host);
    assert!(host.world().creature(gone).is_none());
    assert!(
        now[..9].iter().all(|(n, v)| *v == 2 && *n > seen[0].0),
        "every brain kept counting: {now:?}"
    );
    assert!(host.take_errors().is_empty());
}

#[test]
fn a_save_that_leaves_the_level_as_it_was_keeps_its_navmesh_and_its_number() {
    let dir = tempfile::tempdir().expect("tmp");
    let spider = dir.path().join("spider");
    copy_dir(&bundled("spider"), &spider);
    // A scene: ground and a box (the level), four wandering spiders, and a line that a save
    // changes without touching the level.
    let source = |box_x: f32, note: u32| {
        format!(
            "world.ground {{ size = vec3(40, 0, 40) }}\nworld.box {{ position = vec3({box_x}, 0.5, 6), size = vec3(2, 1, 2) }}\nfor i = 0, 3 do world.spawn('spider/spider', {{ position = vec3(i * 3 - 4, 0, -4) }}) end\nlog.info('scene {note}')\n"
        )
    };
    let scene = temp_mod(
        dir.path(),
        "scene",
        &[
            (
                "mod.toml",
                "name = \"scene\"\nversion = \"0.1.0\"\ndepends = [\"spider\"]\n",
            ),
            ("main.lua", &source(0.0, 0)),
        ],
    );
    let mut host = ScriptHost::new(HostOptions::default());
    host.load(&[spider, scene.clone()]);
    assert!(host.take_errors().is_empty());
    ticks(&mut host, 120);
    let mesh = |host: &ScriptHost| {
        let meshes = host.world().nav_meshes();
        assert_eq!(meshes.len(), 1, "one navmesh: the spiders'");
        meshes[0].0.clone()
    };
    let (v0, m0) = (host.world().level_version(), mesh(&host));
    let save = |host: &mut ScriptHost, src: String| {
        std::fs::write(scene.join("main.lua"), src).expect("write");
        let changed = BTreeMap::from([("scene".to_string(), vec![PathBuf::from("main.lua")])]);
        let r = host.reload(&changed);
        assert!(r.iter().all(|r| r.ok), "{r:?}");
    };
    // The level as it was: its number and its navmesh stay (no re-bake, no re-pathing).
    save(&mut host, source(0.0, 1));
    ticks(&mut host, 30);
    assert!(logs(&mut host).contains("scene 1"), "the new version ran");
    assert_eq!(host.world().level_version(), v0);
    assert!(
        std::sync::Arc::ptr_eq(&mesh(&host), &m0),
        "the navmesh was baked again"
    );
    assert_eq!(host.world().creatures().len(), 4);
    // A save that fails after its level calls ran: put back, with the level's number.
    std::fs::write(
        scene.join("main.lua"),
        format!("{}error('late')\n", source(0.0, 9)),
    )
    .expect("write");
    let changed = BTreeMap::from([("scene".to_string(), vec![PathBuf::from("main.lua")])]);
    assert!(host.reload(&changed).iter().all(|r| !r.ok));
    ticks(&mut host, 30);
    assert_eq!(host.world().level_version(), v0);
    assert!(
        std::sync::Arc::ptr_eq(&mesh(&host), &m0),
        "a failed save re-baked the navmesh"
    );
    // The box moved: a new level, a new number (never one handed out before), a new navmesh.
    save(&mut host, source(3.0, 2));
    ticks(&mut host, 30);
    let v1 = host.world().level_version();
    assert!(
        v1 > v0 + 1,
        "{v0} -> {v1}: the reload's own steps had numbers too"
    );
    assert!(!std::sync::Arc::ptr_eq(&mesh(&host), &m0));
    // And back where it was: the level of `v0` again, but it comes back as a new one (it
    // differs from the level just before the save).
    save(&mut host, source(0.0, 3));
    ticks(&mut host, 30);
    let v2 = host.world().level_version();
    assert!(v2 > v1, "{v1} -> {v2}");
}
