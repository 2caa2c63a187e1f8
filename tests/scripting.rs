//! Scripting: bad input gives one clear `mod/file.lua:LINE` error naming the field, `check`
//! exits 1, `run` keeps the other mods walking; runaway callbacks are stopped by the CPU and
//! memory budgets; the sandbox has no io/os.execute/debug/bytecode; runs are deterministic.

#![allow(clippy::expect_used, clippy::unwrap_used)] // test set-up: a failure is a failed test

mod common;
use common::*;
use std::path::PathBuf;

/// A mod named `name` in `dir` whose main.lua is `src` (depends on spider and walkers).
fn lua_mod(dir: &std::path::Path, name: &str, src: &str) -> PathBuf {
    temp_mod(dir, name, &[("main.lua", src)])
}

fn base() -> Vec<PathBuf> {
    vec![bundled("spider"), fixture("walkers")]
}

/// `skitter check` over the base mods plus `m`: exit code and output.
fn check(m: &std::path::Path) -> (i32, String) {
    let mut args = vec!["check".to_string()];
    args.extend(base().iter().map(|p| p.display().to_string()));
    args.push(m.display().to_string());
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = skitter(&argv);
    (out.status.code().unwrap_or(-1), text(&out))
}

/// Runs the base mods, the flat scene and `bad` for `frames`; asserts the flat scene's
/// spiders still walked. Returns the trace.
fn run_beside_flat(
    dir: &std::path::Path,
    bad: &std::path::Path,
    frames: u32,
    extra: &[&str],
) -> Trace {
    let mut mods = base();
    mods.push(fixture("flat"));
    mods.push(bad.to_path_buf());
    // The bad mods here are stopped by their budgets (or their errors): a run that does
    // not end means a budget never fired.
    let (out, t) = run_trace_within(
        dir,
        frames,
        &mods,
        extra,
        BUDGET_WATCHDOG,
        BUDGET_NEVER_FIRED,
    );
    assert_ran_despite_bad_mods(&out);
    // The flat scene's spiders start at x in {-3, 0, 3}; the test mods spawn theirs further out.
    let q = quality(&t);
    let flat: Vec<u64> = t
        .ids()
        .into_iter()
        .filter(|id| t.of(*id)[0].pos.is_some_and(|p| p[0].abs() < 4.0))
        .collect();
    assert_eq!(flat.len(), 3, "the flat scene did not load");
    for id in flat {
        let d = q.displacement.get(&id).copied().unwrap_or(0.0);
        assert!(
            d > 0.4 * frames as f64 / 60.0,
            "flat spider {id} stopped walking: {d:.2} m\n{}",
            text(&out)
        );
    }
    t
}

#[test]
fn syntax_error_names_file_and_line() {
    let dir = tempfile::tempdir().expect("tmp");
    let m = lua_mod(dir.path(), "broken", "local a = 1\nlocal b = = 2\n");
    let (code, out) = check(&m);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("broken/main.lua:2: "), "{out}");
    assert_eq!(
        out.matches("broken/main.lua").count(),
        1,
        "one error, once: {out}"
    );
    let t = run_beside_flat(dir.path(), &m, 120, &[]);
    let e = t.errors();
    assert_eq!(e.len(), 1, "{e:?}");
    assert_eq!(e[0]["mod"], "broken");
    assert_eq!(e[0]["where"], "broken/main.lua:2");
}

#[test]
fn runtime_error_in_on_update_is_reported_once_and_the_world_goes_on() {
    let dir = tempfile::tempdir().expect("tmp");
    let src = "behaviour.define {\n  name = 'oops',\n  on_update = function(self, dt)\n    local t = nil\n    t.x = 1\n  end,\n}\nworld.spawn('spider/spider', { position = vec3(10, 0, 10), behaviour = 'oops' })\n";
    let m = lua_mod(dir.path(), "oops", src);
    let (code, out) = check(&m);
    assert_eq!(
        code, 0,
        "loading is fine; the error comes when it runs: {out}"
    );
    let t = run_beside_flat(dir.path(), &m, 180, &[]);
    let e = t.errors();
    assert_eq!(e.len(), 1, "reported once, not every tick: {e:?}");
    assert_eq!(e[0]["where"], "oops/main.lua:5");
    assert!(
        e[0]["message"]
            .as_str()
            .unwrap_or("")
            .contains("attempt to index nil"),
        "{e:?}"
    );
    assert!(
        !e[0]["message"].as_str().unwrap_or("").contains("traceback"),
        "no traceback noise: {e:?}"
    );
    // The broken creature is still there, standing.
    assert_eq!(t.ids().len(), 4);
}

#[test]
fn bad_definitions_name_the_field() {
    let cases: &[(&str, &str, &str)] = &[
        ("neg", "{ name = 'A', hip = vec3(0.1, 0, 0), rest = vec3(0.5, -0.3, 0), segments = { -0.4, 0.5 } }", "legs[1].segments[1]"),
        ("far", "{ name = 'A', hip = vec3(0.1, 0, 0), rest = vec3(3, -0.3, 0), segments = { 0.4, 0.5 } }", "legs[1].rest"),
        ("unknown_key", "{ name = 'A', hip = vec3(0.1, 0, 0), rest = vec3(0.5, -0.3, 0), segments = { 0.4, 0.5 }, elbow = 1 }", "legs[1].elbow"),
    ];
    for (name, leg, field) in cases {
        let dir = tempfile::tempdir().expect("tmp");
        let src = format!("local x = 1\n\ncreature.define {{\n  name = 'c',\n  legs = {{ {leg}, {{ name = 'B', hip = vec3(-0.1, 0, 0), rest = vec3(-0.5, -0.3, 0), segments = {{ 0.4, 0.5 }} }} }},\n}}\n");
        let m = lua_mod(dir.path(), name, &src);
        let (code, out) = check(&m);
        assert_eq!(code, 1, "{name}: {out}");
        // At the line of the field (the `legs` list: an element is found by its list).
        assert!(
            out.contains(&format!(
                "{name}/main.lua:5: creature.define: field '{field}'"
            )),
            "{name}: {out}"
        );
    }
    let gait_cases: &[(&str, &str, &str)] = &[
        ("group", "groups = { { 'A', 'Z' } }", "gait.groups[1][2]"),
        ("nan", "step_height = 0/0", "gait.step_height"),
        ("typo", "step_heigth = 0.1", "gait.step_heigth"),
        ("negheight", "step_height = -0.1", "gait.step_height"),
        ("wrongtype", "step_trigger = 'far'", "gait.step_trigger"),
    ];
    for (name, gait, field) in gait_cases {
        let dir = tempfile::tempdir().expect("tmp");
        let src = format!("creature.define {{\n  name = 'c',\n  legs = {{\n    {{ name = 'A', hip = vec3(0.1, 0, 0), rest = vec3(0.5, -0.3, 0), segments = {{ 0.4, 0.5 }} }},\n    {{ name = 'B', hip = vec3(-0.1, 0, 0), rest = vec3(-0.5, -0.3, 0), segments = {{ 0.4, 0.5 }} }},\n  }},\n  gait = {{ {gait} }},\n}}\n");
        let m = lua_mod(dir.path(), name, &src);
        let (code, out) = check(&m);
        assert_eq!(code, 1, "{name}: {out}");
        // At the field's own line, in the define that starts on line 1.
        assert!(
            out.contains(&format!(
                "{name}/main.lua:7: creature.define: field '{field}'"
            )),
            "{name}: {out}"
        );
        // And running it keeps the other mods' creatures walking.
        run_beside_flat(dir.path(), &m, 60, &[]);
    }
}

#[test]
fn runaway_loops_are_stopped_even_inside_pcall() {
    for (name, body) in [
        ("spin", "while true do end"),
        (
            "sneaky",
            "for i = 1, 1000 do pcall(function() while true do end end) end",
        ),
    ] {
        let dir = tempfile::tempdir().expect("tmp");
        let src = format!(
            "behaviour.define {{ name = 'b', on_update = function(self, dt)\n  {body}\nend }}\nworld.spawn('spider/spider', {{ position = vec3(8, 0, 8), behaviour = 'b' }})\n"
        );
        let m = lua_mod(dir.path(), name, &src);
        // The default budget: counted in work units, so it fires at the same place on any
        // machine.
        let t = run_beside_flat(dir.path(), &m, 90, &[]);
        let e = t.errors();
        assert_eq!(e.len(), 1, "{name}: {e:?}");
        assert_eq!(e[0]["mod"], name);
        assert!(
            e[0]["message"]
                .as_str()
                .unwrap_or("")
                .contains("CPU budget exceeded"),
            "{name}: {e:?}"
        );
        assert!(
            e[0]["where"]
                .as_str()
                .unwrap_or("")
                .starts_with(&format!("{name}/main.lua:")),
            "{name}: {e:?}"
        );
    }
}

#[test]
fn memory_bombs_are_stopped_even_inside_pcall() {
    for (name, body) in [
        ("bomb", "local t = {} while true do t[#t + 1] = string.rep('x', 4096) end"),
        ("pbomb", "local keep = {} for i = 1, 100000 do pcall(function() while true do keep[#keep + 1] = {1, 2, 3, 4, 5, 6, 7, 8} end end) end"),
    ] {
        let dir = tempfile::tempdir().expect("tmp");
        let src = format!(
            "behaviour.define {{ name = 'b', on_update = function(self, dt)\n  {body}\nend }}\nworld.spawn('spider/spider', {{ position = vec3(8, 0, 8), behaviour = 'b' }})\n"
        );
        let m = lua_mod(dir.path(), name, &src);
        let t = run_beside_flat(dir.path(), &m, 60, &["--memory-mb", "16", "--cpu-budget", "1000000000", "--cpu-budget-ms", "60000"]);
        let e = t.errors();
        assert_eq!(e.len(), 1, "{name}: {e:?}");
        assert!(e[0]["message"].as_str().unwrap_or("").contains("memory limit exceeded"), "{name}: {e:?}");
    }
}

#[test]
fn load_time_runaway_is_stopped_too() {
    let dir = tempfile::tempdir().expect("tmp");
    let m = lua_mod(
        dir.path(),
        "hang",
        "world.spawn('spider/spider', {})\nwhile true do end\n",
    );
    let out = skitter_within(
        &[
            "check",
            "--cpu-budget",
            "1000",
            &bundled("spider").display().to_string(),
            &fixture("walkers").display().to_string(),
            &m.display().to_string(),
        ],
        BUDGET_WATCHDOG,
        BUDGET_NEVER_FIRED,
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("hang/main.lua:2: CPU budget exceeded"),
        "{}",
        text(&out)
    );
}

#[test]
fn the_sandbox_has_no_way_out() {
    let dir = tempfile::tempdir().expect("tmp");
    let src = r#"
local function absent(name, v) log.info(name .. "=" .. tostring(v == nil)) end
-- io, and os beyond its clock and date: every field an error that says the sandbox has none.
local function refused(name, get)
  local ok, v = pcall(get)
  log.info(name .. "=" .. tostring(not ok and string.find(tostring(v), "the sandbox", 1, true) ~= nil))
end
refused("io", function() return io.open end)
refused("os.execute", function() return os.execute end)
refused("os.remove", function() return os.remove end)
refused("os.getenv", function() return os.getenv end)
absent("debug", debug)
absent("string.dump", string.dump)
absent("loadstring", loadstring)
absent("load", load)
absent("dofile", dofile)
absent("package", package)
local ok = pcall(function() math.floor = nil end)
log.info("math writable=" .. tostring(ok))
local ok2 = pcall(function() world.spawn = nil end)
log.info("world writable=" .. tostring(ok2))
local ok3, err = pcall(require, "../spider/body")
log.info("escape=" .. tostring(ok3) .. " " .. tostring(err))
local ok4, err4 = pcall(require, "/etc/passwd")
log.info("absolute=" .. tostring(ok4))
local ok5, err5 = pcall(require, "@arena/main")
log.info("undeclared=" .. tostring(ok5) .. " " .. tostring(err5))
"#;
    let m = lua_mod(dir.path(), "probe", src);
    let (code, out) = check(&m);
    assert_eq!(code, 0, "{out}");
    let out = one_tick_beside_walkers(&m);
    let log = text(&out);
    for name in [
        "io",
        "os.execute",
        "os.remove",
        "os.getenv",
        "debug",
        "string.dump",
        "loadstring",
        "load",
        "dofile",
        "package",
    ] {
        assert!(
            log.contains(&format!("[probe] {name}=true")),
            "{name} is reachable:\n{log}"
        );
    }
    assert!(log.contains("[probe] math writable=false"), "{log}");
    assert!(log.contains("[probe] world writable=false"), "{log}");
    assert!(
        log.contains("[probe] escape=false") && log.contains("leaves the mod folder"),
        "{log}"
    );
    assert!(log.contains("[probe] absolute=false"), "{log}");
    assert!(
        log.contains("[probe] undeclared=false") && log.contains("is not a dependency"),
        "{log}"
    );
}

#[test]
fn handles_and_world_queries_work_from_lua() {
    let dir = tempfile::tempdir().expect("tmp");
    let src = r#"
world.ground { size = vec3(20, 0, 20) }
local hit = world.raycast(vec3(1, 5, 1), vec3(0, -1, 0), 10)
log.info("ray", hit.position.y, hit.normal.y, hit.distance)
log.info("miss", tostring(world.raycast(vec3(0, 5, 0), vec3(0, 1, 0), 10)))
behaviour.define {
  name = "probe",
  params = { speed = 1 },
  on_spawn = function(self) self.state.steps = 0; self.state.t0 = world.time() end,
  on_step = function(self, leg) self.state.steps += 1; self.state.last = leg.name end,
  on_update = function(self, dt)
    self:move(vec3(1, 0, 0), self.params.speed)
    if world.time() > 1.95 and not self.state.done then
      self.state.done = true
      local p, v, f = self:position(), self:velocity(), self:forward()
      log.info("id", self.id, "type", self.type, "speed", self.params.speed)
      log.info("moved", p.x > 1, "vel", v.x > 0.5, "fwd", f.x > 0.9, "yaw", math.floor(self:yaw() + 0.5))
      log.info("steps", self.state.steps > 8, self.state.last ~= nil)
      local feet = self:feet()
      log.info("feet", #feet, feet[1].name, typeof(feet[1].position), typeof(feet[1].grounded))
      log.info("creatures", #world.creatures(), #world.creatures("spider"), #world.creatures("walkers/hexapod"))
      log.info("gait", self.gait.step_height)
      self.gait.step_height = 0.2
      log.info("gait2", self.gait.step_height)
      local ok, err = pcall(function() self.gait.step_height = -1 end)
      log.info("gaitbad", ok, err)
      self:set_behaviour("walkers/spin", { rate = 45 })
    end
  end,
}
world.spawn("spider/spider", { position = vec3(0, 0, 0), behaviour = "probe", params = { speed = 1.5 } })
"#;
    let m = lua_mod(dir.path(), "api", src);
    let tdir = tempfile::tempdir().expect("tmp");
    let (out, t) = run_trace(
        tdir.path(),
        240,
        &[bundled("spider"), fixture("walkers"), m.clone()],
        &[],
    );
    let log = text(&out);
    assert!(
        out.status.success() && t.errors().is_empty(),
        "{log} {:?}",
        t.errors()
    );
    for want in [
        "[api] ray\t0\t1\t5",
        "[api] miss\tnil",
        "[api] id\t1\ttype\tspider/spider\tspeed\t1.5",
        "[api] moved\ttrue\tvel\ttrue\tfwd\ttrue\tyaw\t90",
        "[api] steps\ttrue\ttrue",
        "[api] feet\t8\tL1\tvector\tboolean",
        "[api] creatures\t1\t1\t0",
        "[api] gait\t0.12",
        "[api] gait2\t0.2",
        "api/main.lua:25: field 'gait.step_height' must be > 0, got -1",
    ] {
        assert!(log.contains(want), "missing {want:?} in\n{log}");
    }
    // After set_behaviour("walkers/spin") the spider stops going +x and turns in place.
    let s = t.of(1);
    let at = |f: u64| {
        s.iter()
            .find(|r| r.frame == f)
            .and_then(|r| r.pos)
            .expect("pos")
    };
    assert!(
        (at(239)[0] - at(200)[0]).abs() < 0.3,
        "kept walking after set_behaviour"
    );
}

#[test]
fn same_seed_same_bytes() {
    let dir = tempfile::tempdir().expect("tmp");
    let run = |seed: &str, name: &str| {
        let p = dir.path().join(name);
        let out = skitter(&[
            "run",
            "--headless",
            "--frames",
            "300",
            "--seed",
            seed,
            "--trace",
            &p.display().to_string(),
            "scripts",
        ]);
        assert!(out.status.success(), "{}", text(&out));
        std::fs::read(p).expect("trace")
    };
    let a = run("7", "a.jsonl");
    let b = run("7", "b.jsonl");
    let c = run("8", "c.jsonl");
    assert!(a.len() > 100_000);
    assert!(a == b, "same seed and mods gave different traces");
    assert!(a != c, "a different seed should change the wander goals");
}

#[test]
fn manifests_and_dependencies_are_checked() {
    let dir = tempfile::tempdir().expect("tmp");
    let m = temp_mod(dir.path(), "needy", &[("mod.toml", "name = \"needy\"\nversion = \"1.0.0\"\ndepends = [\"ghost >= 1\", \"spider >= 9\"]\n"), ("main.lua", "")]);
    let (code, out) = check(&m);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("\"ghost\""), "{out}");
    let m2 = temp_mod(
        dir.path(),
        "nomanifest",
        &[("mod.toml", "version = 1\n"), ("main.lua", "")],
    );
    let (code, out) = check(&m2);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("mod.toml"), "{out}");
    // A module in a subfolder, required relatively, and a declared dependency's module.
    temp_mod(
        dir.path(),
        "helpers",
        &[
            ("mod.toml", "name = \"helpers\"\nversion = \"1.2.0\"\n"),
            ("main.lua", ""),
            (
                "text.lua",
                "return { shout = function(s) return string.upper(s) end }\n",
            ),
        ],
    );
    let m3 = temp_mod(
        dir.path(),
        "modular",
        &[
            ("mod.toml", "name = \"modular\"\nversion = \"0.1.0\"\ndepends = [\"helpers >= 1.1\", \"spider\"]\n"),
            ("main.lua", "local util = require('./lib/util')\nlocal text = require('@helpers/text')\nlog.info('util', util.twice(21), text.shout('ok'))\n"),
            ("lib/util.lua", "local helper = require('./helper')\nreturn { twice = function(x) return helper(x) * 2 end }\n"),
            ("lib/helper.luau", "return function(x: number): number return x end\n"),
        ],
    );
    let out = skitter(&[
        "run",
        "--headless",
        "--frames",
        "1",
        &bundled("spider").display().to_string(),
        &dir.path().join("helpers").display().to_string(),
        &m3.display().to_string(),
    ]);
    assert!(
        text(&out).contains("[modular] util\t42\tOK"),
        "{}",
        text(&out)
    );
    // Two mods defining the same bare type name is a load error.
    let twin = temp_mod(
        dir.path(),
        "twin",
        &[(
            "main.lua",
            "creature.define { name = 'spider', legs = {}, body = { hover = 1 } }\n",
        )],
    );
    let (code, out) = check(&twin);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("twin/main.lua:1: creature.define: creature type \"spider\" is also defined by mod \"spider\""), "{out}");
}

#[test]
fn bytecode_is_refused() {
    let dir = tempfile::tempdir().expect("tmp");
    let bytecode = mlua::chunk::Compiler::new()
        .compile("log.info('bytecode ran')")
        .expect("compiles");
    let m = dir.path().join("binary");
    std::fs::create_dir_all(&m).expect("mkdir");
    std::fs::write(
        m.join("mod.toml"),
        "name = \"binary\"\nversion = \"0.1.0\"\n",
    )
    .expect("write");
    std::fs::write(m.join("main.lua"), &bytecode).expect("write");
    std::fs::write(m.join("lib.lua"), &bytecode).expect("write");
    let (code, out) = check(&m);
    assert_eq!(code, 1, "{out}");
    assert!(!out.contains("bytecode ran"), "{out}");
    assert!(out.contains("binary/main.lua"), "{out}");
    // Through require, too.
    std::fs::write(m.join("main.lua"), "require('./lib')\n").expect("write");
    let out = run_headless(1, &[&m], &[]);
    assert!(!text(&out).contains("bytecode ran"), "{}", text(&out));
    assert!(text(&out).contains("error: binary/"), "{}", text(&out));
}

/// `world.creatures_near` hands one mod handles of creatures another mod spawned — made in
/// the asking mod's state on first sight, with their type's full name, and the same handle
/// when asked again.
#[test]
fn creatures_near_hands_out_handles_of_another_mods_creatures_with_their_type() {
    let dir = tempfile::tempdir().expect("tmp");
    let a = temp_mod(
        dir.path(),
        "maker",
        &[
            (
                "mod.toml",
                "name = \"maker\"\nversion = \"0.1.0\"\ndepends = [\"spider\"]\n",
            ),
            (
                "main.lua",
                "world.spawn('spider/spider', { position = vec3(1, 0, 0) })\n\
                 world.spawn('spider/spider', { position = vec3(3, 0, 0) })\n",
            ),
        ],
    );
    let b = temp_mod(
        dir.path(),
        "asker",
        &[
            (
                "mod.toml",
                "name = \"asker\"\nversion = \"0.1.0\"\ndepends = [\"spider\", \"maker\"]\n",
            ),
            (
                "main.lua",
                "local near = world.creatures_near(vec3(0, 0, 0), 10)\n\
                 local again = world.creatures_near(vec3(0, 0, 0), 10, { limit = 1 })\n\
                 log.info(#near .. ' ' .. near[1].type .. ' ' .. near[2].type .. ' ' .. near[1].id .. ' ' .. near[2].id .. ' ' .. tostring(again[1] == near[1]))\n",
            ),
        ],
    );
    let out = run_headless(1, &[&bundled("spider"), &a, &b], &[]);
    let log = text(&out);
    assert!(out.status.success(), "{log}");
    assert!(
        log.contains("[asker] 2 spider/spider spider/spider 1 2 true"),
        "{log}"
    );
}
