//! The Lua API, in process and data-driven: each case is a mod's `main.lua`, run beside a
//! small `base` mod (flat ground, a four-legged `bug`, a counting behaviour) for a few
//! ticks; the case names the log lines, the errors (each `t/main.lua:LINE: ...`) and the
//! creatures alive it expects. No CLI process: a case costs milliseconds, so every function
//! of the API can have its own.

#![allow(clippy::expect_used, clippy::unwrap_used)] // test set-up: a failure is a failed test

use std::path::{Path, PathBuf};

use skitter::script::{HostOptions, HostOutput, ScriptHost};

const BASE: &str = r#"
world.ground { size = vec3(40, 0, 40) }
creature.define {
  name = "bug",
  body = { size = vec3(0.4, 0.3, 0.9), height = 0.5 },
  legs = {
    { name = "FL", hip = vec3( 0.18, 0,  0.35), rest = vec3( 0.22, -0.5,  0.4), segments = { 0.32, 0.32 } },
    { name = "FR", hip = vec3(-0.18, 0,  0.35), rest = vec3(-0.22, -0.5,  0.4), segments = { 0.32, 0.32 } },
    { name = "BL", hip = vec3( 0.18, 0, -0.35), rest = vec3( 0.22, -0.5, -0.4), segments = { 0.32, 0.32 } },
    { name = "BR", hip = vec3(-0.18, 0, -0.35), rest = vec3(-0.22, -0.5, -0.4), segments = { 0.32, 0.32 } },
  },
}
behaviour.define {
  name = "count",
  params = { k = 1 },
  on_update = function(self, dt)
    self.state.n = (self.state.n or 0) + 1
    if self.state.n == 3 then print("third", self.params.k) end
  end,
}
"#;

/// What a case produced.
struct Outcome {
    /// Console lines of log output (`[t] text`, `[t] warn: text`), the base mod's too.
    logs: Vec<String>,
    /// Errors, as `t/main.lua:LINE: message`.
    errors: Vec<String>,
    /// Creatures alive at the end.
    creatures: usize,
}

/// Loads `src` as mod `t`'s `main.lua` beside the base mod, runs `ticks` ticks.
/// A mod folder `name` under `dir`: a `mod.toml` (version 1.0.0, depending on `depends`)
/// and `files` (relative path, contents).
fn write_mod(dir: &Path, name: &str, depends: &[&str], files: &[(&str, &[u8])]) -> PathBuf {
    let d = dir.join(name);
    std::fs::create_dir_all(&d).expect("mkdir");
    let deps: Vec<String> = depends.iter().map(|m| format!("\"{m}\"")).collect();
    std::fs::write(
        d.join("mod.toml"),
        format!(
            "name = \"{name}\"\nversion = \"1.0.0\"\ndepends = [{}]\n",
            deps.join(", ")
        ),
    )
    .expect("write");
    for (f, bytes) in files {
        std::fs::write(d.join(f), bytes).expect("write");
    }
    d
}

fn check_lua(src: &str, ticks: usize) -> Outcome {
    let dir = tempfile::tempdir().expect("tempdir");
    let base = write_mod(dir.path(), "base", &[], &[("main.lua", BASE.as_bytes())]);
    let t = write_mod(dir.path(), "t", &["base"], &[("main.lua", src.as_bytes())]);
    let mut host = ScriptHost::new(HostOptions::default());
    host.load(&[base, t]);
    let mut out = host.drain_output();
    for _ in 0..ticks {
        host.tick();
        out.extend(host.drain_output());
    }
    let mut o = Outcome {
        logs: Vec::new(),
        errors: Vec::new(),
        creatures: host.world().creatures().len(),
    };
    for line in out {
        match line {
            HostOutput::Log(_) => o.logs.push(line.to_string()),
            HostOutput::Error(e) => o.errors.push(e.to_string()),
            HostOutput::Reload(_) => {}
        }
    }
    o
}

/// One case: a script, how long it runs, and what must come out.
struct Case {
    name: &'static str,
    src: &'static str,
    ticks: usize,
    /// Every log line, in order.
    logs: &'static [&'static str],
    /// Every error, in order (each must contain the text given).
    errors: &'static [&'static str],
    /// Creatures alive at the end, when it matters.
    creatures: Option<usize>,
}

const fn case(name: &'static str, src: &'static str) -> Case {
    Case {
        name,
        src,
        ticks: 0,
        logs: &[],
        errors: &[],
        creatures: None,
    }
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            logs: &["[t] 1\tbase/bug\t1\t2"],
            creatures: Some(1),
            ..case(
                "spawn, handles and world.creatures",
                "local c = world.spawn(\"bug\", { position = vec3(1, 0, 2) })\n\
                 print(#world.creatures(), c.type, c:position().x, c:position().z)\n",
            )
        },
        Case {
            errors: &["t/main.lua:1: world.spawn: unknown creature type \"nope\""],
            creatures: Some(0),
            ..case("unknown type", "world.spawn(\"nope\")\n")
        },
        Case {
            errors: &["t/main.lua:2: world.spawn: field 'postion' is not a known field (did you mean 'position'?)"],
            ..case(
                "spawn options are checked by name",
                "-- a typo\nworld.spawn(\"bug\", { postion = vec3(0, 0, 0) })\n",
            )
        },
        Case {
            errors: &["t/main.lua:1: creature.define: field 'body.height' must be > 0, got 0"],
            ..case(
                "definitions name the field",
                "creature.define { name = \"flat\", body = { height = 0 } }\n",
            )
        },
        Case {
            errors: &["t/main.lua:2: creature.define: creature type \"twice\" is already defined in this mod (at t/main.lua:1)"],
            ..case(
                "a type defined twice",
                "creature.define { name = \"twice\", legs = {}, body = { hover = 1 } }\ncreature.define { name = \"twice\", legs = {}, body = { hover = 1 } }\n",
            )
        },
        Case {
            errors: &["t/main.lua:2: boom"],
            creatures: Some(0),
            ..case(
                "a failed load takes its spawns back",
                "world.spawn(\"bug\")\nerror(\"boom\")\n",
            )
        },
        Case {
            logs: &["[t] 0.2"],
            errors: &["t/main.lua:4: field 'gait.step_height' must be > 0, got -1"],
            ..case(
                "c.gait reads back what was written and refuses bad values",
                "local c = world.spawn(\"bug\")\n\
                 c.gait.step_height = 0.2\n\
                 print(c.gait.step_height)\n\
                 c.gait.step_height = -1\n",
            )
        },
        Case {
            errors: &["t/main.lua:2: c.gait has no field 'bogus' (fields: step_trigger, step_duration, step_height, step_arc, speed_scale, min_grounded, lead; groups are fixed by the type)"],
            ..case(
                "c.gait lists its fields",
                "local c = world.spawn(\"bug\")\nc.gait.bogus = 1\n",
            )
        },
        Case {
            errors: &["t/main.lua:2: field 'gait.min_grounded' must be a whole number >= 0, got 1.5"],
            ..case(
                "c.gait counts are whole",
                "local c = world.spawn(\"bug\")\nc.gait.min_grounded = 1.5\n",
            )
        },
        Case {
            logs: &["[t] 0.3\t20"],
            ..case(
                "c.lean parts take tables and keep the other fields",
                "local c = world.spawn(\"bug\")\n\
                 c.lean.turn = { gain = 0.3 }\n\
                 print(c.lean.turn.gain, c.lean.turn.max)\n",
            )
        },
        Case {
            errors: &["t/main.lua:2: c.lean.turn has no field 'gian' (fields: gain, max, speed)"],
            ..case(
                "c.lean parts list their fields",
                "local c = world.spawn(\"bug\")\nc.lean.turn.gian = 1\n",
            )
        },
        Case {
            errors: &["t/main.lua:3: creature 999 no longer exists"],
            ..case(
                "c:move checks its creature is alive",
                "local c = world.spawn(\"bug\")\n\
                 local move = c.move\n\
                 move({ id = 999 }, vec3(1, 0, 0), 1)\n",
            )
        },
        Case {
            errors: &["t/main.lua:2: creature 999 no longer exists"],
            ..case(
                "c:face checks its creature is alive",
                "local c = world.spawn(\"bug\")\nc.face({ id = 999 }, vec3(1, 0, 0))\n",
            )
        },
        Case {
            errors: &["t/main.lua:2: creature 999 no longer exists"],
            ..case(
                "c:clear_destination checks its creature is alive",
                "local c = world.spawn(\"bug\")\nc.clear_destination({ id = 999 })\n",
            )
        },
        Case {
            errors: &["t/main.lua:1: c:hit: strength must be a number >= 0, got string"],
            ..case(
                "c:hit checks its strength",
                "world.spawn(\"bug\"):hit(vec3(1, 0, 0), \"x\")\n",
            )
        },
        Case {
            errors: &["t/main.lua:1: c:ragdoll: muscle must be between 0 and 1, got 2"],
            ..case(
                "c:ragdoll checks its muscle strength",
                "world.spawn(\"bug\"):ragdoll({ muscle = 2 })\n",
            )
        },
        Case {
            logs: &["[base] third\t7"],
            ticks: 5,
            ..case(
                "behaviours get params over their defaults and keep state",
                "world.spawn(\"bug\", { behaviour = \"count\", params = { k = 7 } })\n",
            )
        },
        Case {
            errors: &["t/main.lua:3: boom"],
            ticks: 5,
            creatures: Some(1),
            ..case(
                "a runtime error is reported once and the creature stays",
                "behaviour.define {\n  name = \"bad\",\n  on_update = function(self) error(\"boom\") end,\n}\n\
                 world.spawn(\"bug\", { behaviour = \"bad\" })\n",
            )
        },
        Case {
            // Brains of two mods alternate by id (base, t, base, t): on_update goes into
            // each mod's state once per run of its creatures, so this checks the order
            // across mods, and that a brain raising mid-run stops only itself.
            ticks: 3,
            logs: &[
                "[t] say\t1\t2",
                "[t] say\t1\t4",
                "[t] say\t2\t4",
                "[base] third\t1",
                "[base] third\t3",
                "[t] say\t3\t4",
            ],
            errors: &["t/main.lua:4: boom"],
            creatures: Some(4),
            ..case(
                "on_update runs in id order across mods; one that raises stops only itself",
                "behaviour.define { name = \"say\", on_update = function(self)\n\
                 self.state.n = (self.state.n or 0) + 1\n\
                 if self.params.bad and self.state.n == 2 then\n\
                 error(\"boom\") end\n\
                 print(\"say\", self.state.n, self.id) end }\n\
                 world.spawn(\"bug\", { behaviour = \"base/count\", params = { k = 1 } })\n\
                 world.spawn(\"bug\", { position = vec3(3, 0, 0), behaviour = \"say\", params = { bad = true } })\n\
                 world.spawn(\"bug\", { position = vec3(6, 0, 0), behaviour = \"base/count\", params = { k = 3 } })\n\
                 world.spawn(\"bug\", { position = vec3(9, 0, 0), behaviour = \"say\" })\n",
            )
        },
        Case {
            logs: &["[t] warn: w", "[t] error: e", "[t] a\tnil\ttrue\t1.5"],
            ..case(
                "log levels and print",
                "log.warn(\"w\")\nlog.error(\"e\")\nprint(\"a\", nil, true, 1.5)\n",
            )
        },
        Case {
            logs: &["[t] 0.00 5.00"],
            ..case(
                "world.raycast hits the ground",
                "local h = world.raycast(vec3(0, 5, 0), vec3(0, -1, 0))\n\
                 print(string.format(\"%.2f %.2f\", h.position.y, h.distance))\n",
            )
        },
        Case {
            logs: &["[t] 5.000\ttrue"],
            ..case(
                "path.bezier and its methods",
                "local p = path.bezier { points = { { position = vec3(0, 0, 0) }, { position = vec3(3, 0, 4) } } }\n\
                 print(string.format(\"%.3f\", p:length()), p:point(0).x == 0)\n",
            )
        },
        Case {
            errors: &["t/main.lua:1: path.bezier: field 'points[1].position' must be a vector"],
            ..case(
                "path.bezier names the bad point",
                "path.bezier { points = { { position = 1 }, { position = vec3(1, 0, 0) } } }\n",
            )
        },
        Case {
            errors: &["t/main.lua:1: curve.smoothstep:"],
            ..case("curves check their edges", "curve.smoothstep(1, 1)\n")
        },
        Case {
            errors: &["t/main.lua:1: camera.look: from and at must differ"],
            ..case(
                "camera.look needs two points",
                "camera.look(vec3(1, 1, 1), vec3(1, 1, 1))\n",
            )
        },
        Case {
            errors: &["t/main.lua:1: require(\"../x\"): the path leaves the mod folder"],
            ..case("require stays in the mod", "require(\"../x\")\n")
        },
        // Argument errors are located and plain, like every other.
        Case {
            errors: &["t/main.lua:2: c:position: expected a creature handle (call methods with ':', e.g. c:position(...))"],
            ..case(
                "a method called with a dot",
                "local c = world.spawn(\"bug\")\nprint(c.position())\n",
            )
        },
        Case {
            errors: &["t/main.lua:1: world.ground: argument #1 must be a table, got nil"],
            ..case("world.ground()", "world.ground()\n")
        },
        Case {
            errors: &["t/main.lua:1: world.ground: argument #1 must be a table, got"],
            ..case("world.ground(5)", "world.ground(5)\n")
        },
        Case {
            errors: &["t/main.lua:1: curve.smoothstep: argument #1 must be a number, got string"],
            ..case("curve.smoothstep(\"a\", 1)", "curve.smoothstep(\"a\", 1)\n")
        },
        Case {
            errors: &["t/main.lua:2: c:set_behaviour: argument #1 must be a string, got table"],
            ..case(
                "c:set_behaviour(table)",
                "local c = world.spawn(\"bug\")\nc:set_behaviour({})\n",
            )
        },
        Case {
            errors: &["t/main.lua:2: p:point: s must be a number, got string"],
            ..case(
                "p:point(\"x\")",
                "local p = path.bezier { points = { { position = vec3(0, 0, 0) }, { position = vec3(1, 0, 0) } } }\np:point(\"x\")\n",
            )
        },
        // Despawn: a mod removes its own creatures; on_despawn runs; others' are refused.
        Case {
            logs: &["[t] gone\tfalse"],
            ticks: 2,
            creatures: Some(1),
            ..case(
                "c:despawn and on_despawn",
                "behaviour.define { name = \"mortal\", on_despawn = function(self) print(\"gone\", self.state.seen == nil) end,\n  on_update = function(self) self.state.seen = true end }\n\
                 local a = world.spawn(\"bug\", { behaviour = \"mortal\" })\n\
                 world.spawn(\"bug\", { position = vec3(3, 0, 0) })\n\
                 a:despawn()\n",
            )
        },
        Case {
            creatures: Some(0),
            ticks: 1,
            ..case(
                "world.despawn",
                "local a = world.spawn(\"bug\")\nworld.despawn(a)\n",
            )
        },
        Case {
            logs: &["[t] false\t2\tFL,BR"],
            ..case(
                "c:is_ragdoll and c.gait.groups",
                "local c = world.spawn(\"bug\")\n\
                 local g = c.gait.groups\n\
                 print(c:is_ragdoll(), #g, table.concat(g[1], \",\"))\n",
            )
        },
        Case {
            errors: &["t/main.lua:4: not the handle of creature 2"],
            ..case(
                "a handle cannot be retargeted",
                "local a = world.spawn(\"bug\")\nlocal b = world.spawn(\"bug\", { position = vec3(3, 0, 0) })\n\
                 a.id = b.id\n\
                 a:move(vec3(1, 0, 0), 1)\n",
            )
        },
        Case {
            logs: &["[t] 0.2\t0.5", "[t] 0.3\t0.2"],
            errors: &["t/main.lua:6: field 'gait.step_height' must be > 0, got -1"],
            ..case(
                "c.gait = { ... } overrides the fields given and keeps the live view",
                "local c = world.spawn(\"bug\")\n\
                 c.gait = { step_height = 0.2 }\n\
                 print(c.gait.step_height, c.gait.lead)\n\
                 c.gait.step_trigger = 0.3\n\
                 print(c.gait.step_trigger, c.gait.step_height)\n\
                 c.gait = { step_height = -1 }\n",
            )
        },
        Case {
            logs: &["[t] start\tnil", "[t] end\t1"],
            // 2 m from a standstill to a stop at the default 6 m/s²: 1.15 s.
            ticks: 120,
            ..case(
                "the end of a path followed once fires on_arrive; c:path_progress",
                "creature.define { name = \"drone\", legs = {}, body = { hover = 1 } }\n\
                 behaviour.define { name = \"fly\",\n\
                   on_spawn = function(self)\n\
                     self:follow_path(path.bezier { points = { { position = vec3(0, 1, 0) }, { position = vec3(2, 1, 0) } } }, { speed = 4 })\n\
                     print(\"start\", self:path_progress())\n\
                   end,\n\
                   on_arrive = function(self) print(\"end\", self:path_progress()) end,\n\
                 }\n\
                 world.spawn(\"drone\", { position = vec3(0, 1, 0), behaviour = \"fly\" })\n",
            )
        },
        Case {
            logs: &["[t] back\ttrue"],
            errors: &["t/main.lua:2: once"],
            ticks: 120,
            ..case(
                "one bad frame pauses a brain for a second, it does not lose it",
                "behaviour.define { name = \"flaky\", on_update = function(self)\n\
                   if not self.state.failed then self.state.failed = true error(\"once\") end\n\
                   self.state.n = (self.state.n or 0) + 1\n\
                   if self.state.n == 30 then print(\"back\", world.time() > 1) end\n\
                 end }\n\
                 world.spawn(\"bug\", { behaviour = \"flaky\" })\n",
            )
        },
        Case {
            logs: &["[t] warn: creature 1: brain detached after 3 errors; it stands until its mod reloads"],
            errors: &["t/main.lua:1: always"],
            ticks: 200,
            creatures: Some(1),
            ..case(
                "a brain that always fails is detached after three errors",
                "behaviour.define { name = \"bad\", on_update = function(self) error(\"always\") end }\n\
                 world.spawn(\"bug\", { behaviour = \"bad\" })\n",
            )
        },
        Case {
            logs: &["[t] 1\t2\t5.0", "[t] 5.0\t1\t1"],
            ticks: 1,
            ..case(
                "spawn params carry paths, curves and handles, and are readable at load",
                "behaviour.define { name = \"carry\", on_spawn = function(self)\n\
                   print(string.format(\"%.1f\", self.params.p:length()), self.params.c:eval(0.5), self.params.friend.id)\n\
                 end }\n\
                 local friend = world.spawn(\"bug\")\n\
                 local p = path.bezier { points = { { position = vec3(0, 0, 0) }, { position = vec3(3, 0, 4) } } }\n\
                 local c = world.spawn(\"bug\", { position = vec3(3, 0, 0), behaviour = \"carry\", params = { p = p, c = curve.linear { { 0, 0 }, { 1, 2 } }, friend = friend } })\n\
                 print(c.params.friend.id, c.id, string.format(\"%.1f\", c.params.p:length()))\n",
            )
        },
        Case {
            logs: &["[t] warn: t/main.lua:1: world.spawn: 1 value(s) cannot reach the brain and were left out: params.f (function)", "[t] 7"],
            ..case(
                "what cannot cross is named, and a brainless creature keeps its params",
                "local c = world.spawn(\"bug\", { params = { f = print, n = 7 } })\nprint(c.params.n)\n",
            )
        },
        Case {
            logs: &["[t] warn: t/main.lua:1: creature.define: on_update of \"both\" never runs: its behaviour \"count\" is its brain (a creature runs its behaviour's callbacks, else its type's)"],
            ..case(
                "a type's callbacks beside a default behaviour are said never to run",
                "creature.define { name = \"both\", behaviour = \"count\", legs = {}, body = { hover = 1 }, on_update = function(self) end }\n",
            )
        },
        Case {
            logs: &["[t] 2\t2\t1", "[t] 2\t0.65", "[t] nil\t0.00"],
            ..case(
                "world.creatures_near, nearest first; world.raycast may hit bodies",
                "world.spawn(\"bug\", { position = vec3(0, 0, 0) })\n\
                 world.spawn(\"bug\", { position = vec3(2, 0, 0) })\n\
                 world.spawn(\"bug\", { position = vec3(5, 0, 0) })\n\
                 local near = world.creatures_near(vec3(1.8, 0.5, 0), 3)\n\
                 print(#near, near[1].id, near[2].id)\n\
                 local h = world.raycast(vec3(2, 5, 0), vec3(0, -1, 0), 10, { creatures = true })\n\
                 print(h.creature and h.creature.id, string.format(\"%.2f\", h.position.y))\n\
                 local g = world.raycast(vec3(2, 5, 0), vec3(0, -1, 0), 10)\n\
                 print(g.creature, string.format(\"%.2f\", g.position.y))\n",
            )
        },
        Case {
            logs: &["[t] 1\t2", "[t] 0"],
            ..case(
                "world.creatures_near's filter",
                "local a = world.spawn(\"bug\", { position = vec3(0, 0, 0), team = 1 })\n\
                 world.spawn(\"bug\", { position = vec3(2, 0, 0), team = 2 })\n\
                 print(#world.creatures_near(vec3(0, 0, 0), 3, { exclude = a, limit = 5 }), world.creatures_near(vec3(0, 0, 0), 3, { not_team = 1, type = \"bug\", animated = true, limit = 1 })[1].id)\n\
                 print(#world.creatures_near(vec3(0, 0, 0), 3, { team = 1, exclude = a }))\n",
            )
        },
        Case {
            logs: &[
                "[t] 2\t2\ttrue",
                "[t] nil\tnil\t0",
                "[t] 3\t1",
                "[t] near_filter{ type = \"base/bug\", not_team = 1, animated = true, limit = 2 }",
            ],
            ..case(
                "world.nearest_creature, and a filter read once by world.near_filter",
                "local a = world.spawn(\"bug\", { position = vec3(0, 0, 0), team = 1 })\n\
                 world.spawn(\"bug\", { position = vec3(2, 0, 0), team = 2 })\n\
                 world.spawn(\"bug\", { position = vec3(2.5, 0, 0), team = 2 })\n\
                 local foes = world.near_filter { not_team = 1, type = \"bug\", animated = true, limit = 2 }\n\
                 local n = world.nearest_creature(vec3(0, 0, 0), 3, foes)\n\
                 print(n.id, #world.creatures_near(vec3(0, 0, 0), 3, foes), n == world.creatures_near(vec3(0, 0, 0), 3, foes)[1])\n\
                 print(world.nearest_creature(vec3(0, 0, 0), 1, foes), world.nearest_creature(vec3(0, 0, 0), 3, { limit = 0 }), #world.creatures_near(vec3(9, 0, 0), 1, foes))\n\
                 print(world.nearest_creature(vec3(3, 0, 0), 9, { exclude = a }).id, world.nearest_creature(vec3(3, 0, 0), 9, world.near_filter { team = 1 }).id)\n\
                 print(tostring(foes))\n",
            )
        },
        Case {
            errors: &["t/main.lua:1: world.near_filter: field 'not_tem' is not a known field (did you mean 'not_team'?)"],
            ..case(
                "world.near_filter checks its fields as creatures_near does",
                "world.near_filter { not_tem = 1 }\n",
            )
        },
        Case {
            errors: &["t/main.lua:1: world.nearest_creature: field 'limit' must be a whole number from 0 to 1000000, got -1"],
            ..case(
                "world.nearest_creature names itself in a filter's error",
                "world.nearest_creature(vec3(0, 0, 0), 3, { limit = -1 })\n",
            )
        },
        Case {
            errors: &["t/main.lua:1: world.creatures_near: the filter must be a type name, a table or a world.near_filter, got another userdata"],
            ..case(
                "a userdata that is not a filter is refused",
                "world.creatures_near(vec3(0, 0, 0), 3, curve.sine_arc())\n",
            )
        },
        Case {
            errors: &["t/main.lua:1: world.creatures_near: field 'limt' is not a known field (did you mean 'limit'?)"],
            ..case(
                "world.creatures_near's filter fields are checked by name",
                "world.creatures_near(vec3(0, 0, 0), 3, { limit = 1, limt = 1 })\n",
            )
        },
        Case {
            errors: &["t/main.lua:1: world.creatures_near: field 'limit' must be a whole number from 0 to 1000000, got 1.5"],
            ..case(
                "world.creatures_near's limit is whole",
                "world.creatures_near(vec3(0, 0, 0), 3, { limit = 1.5 })\n",
            )
        },
        Case {
            errors: &["t/main.lua:1: world.creatures_near: field 'animated' must be a boolean, got number"],
            ..case(
                "world.creatures_near's animated is a boolean",
                "world.creatures_near(vec3(0, 0, 0), 3, { animated = 1 })\n",
            )
        },
        Case {
            errors: &["t/main.lua:1: world.creatures_near: field 'exclude' must be a creature handle, got number"],
            ..case(
                "world.creatures_near's exclude is a handle",
                "world.creatures_near(vec3(0, 0, 0), 3, { exclude = 3 })\n",
            )
        },
        Case {
            errors: &["t/main.lua:1: world.creatures_near: field 'not_team' must be a number, got string"],
            ..case(
                "world.creatures_near's teams are numbers",
                "world.creatures_near(vec3(0, 0, 0), 3, { not_team = \"red\" })\n",
            )
        },
        // Issue 45: the sandbox's missing libraries say so, where they were touched.
        Case {
            errors: &["t/main.lua:2: io.open: the sandbox has no 'io' library"],
            ..case("io is not in the sandbox", "local x = 1\nlocal f = io.open(\"secrets.txt\")\n")
        },
        Case {
            errors: &["t/main.lua:2: os.execute: the sandbox's 'os' library has only clock, date, difftime and time"],
            ..case("os is Luau's clock and date only", "local t = os.time()\nos.execute(\"ls\")\n")
        },
        Case {
            errors: &["t/main.lua:1: creature.define: field 'body.hover' is required for a creature with no legs"],
            ..case("a legless type needs hover", "creature.define { name = \"blob\", legs = {} }\n")
        },
        Case {
            errors: &["t/main.lua:1: creature.define: field 'body.hover' is for creatures with no legs"],
            ..case(
                "a legged type takes no hover",
                "creature.define { name = \"hov\", body = { hover = 1 }, legs = { { hip = vec3(0, 0, 0), rest = vec3(0.3, -0.3, 0), segments = { 0.3, 0.3 } }, { hip = vec3(0, 0, 0), rest = vec3(-0.3, -0.3, 0), segments = { 0.3, 0.3 } } } }\n",
            )
        },
        Case {
            errors: &["t/main.lua:1: creature.define: field 'legs[1].rest' is out of reach once the creature stands at body.height (1)"],
            ..case(
                "a rest spot out of reach at the body's height",
                "creature.define { name = \"tall\", body = { height = 1 }, legs = { { hip = vec3(0, 0, 0), rest = vec3(0.4, -0.3, 0), segments = { 0.4, 0.4 } }, { hip = vec3(0, 0, 0), rest = vec3(-0.4, -0.3, 0), segments = { 0.4, 0.4 } } } }\n",
            )
        },
        Case {
            errors: &["t/main.lua:3: c:hit: strength must be between 0 and 100, got 1000"],
            ..case(
                "blows from above and of no strength are fine; an absurd one is not",
                "local c = world.spawn(\"bug\")\nc:hit(vec3(0, -1, 0), 1) c:hit(vec3(1, 0, 0), 0)\nc:hit(vec3(1, 0, 0), 1000)\n",
            )
        },
        Case {
            errors: &["t/main.lua:1: world.spawn: field 'position' must be within 100000 m of the origin"],
            creatures: Some(0),
            ..case(
                "spawns far out are refused",
                "world.spawn(\"bug\", { position = vec3(1e30, 0, 0) })\n",
            )
        },
        Case {
            errors: &["t/main.lua:2: c:set_destination: point must be within 100000 m of the origin"],
            ..case(
                "destinations far out are refused",
                "local c = world.spawn(\"bug\")\nc:set_destination(vec3(0, 0, -1e9))\n",
            )
        },
        Case {
            logs: &["[t] 2\t0.5\ttrue"],
            creatures: Some(2),
            ..case(
                "a tint is given at spawn and read back; none is nil",
                "local c = world.spawn(\"bug\", { tint = vec3(2, 1, 0.5) })\n\
                 print(c:tint().x, c:tint().z, world.spawn(\"bug\"):tint() == nil)\n",
            )
        },
        Case {
            errors: &["t/main.lua:2: world.spawn: field 'tint' must be a colour vector with components from 0 to 4"],
            ..case(
                "a bad tint at spawn is refused",
                "-- too bright\nworld.spawn(\"bug\", { tint = vec3(5, 1, 1) })\n",
            )
        },
        Case {
            errors: &["t/main.lua:2: c:set_tint: tint must be a colour vector with components from 0 to 4 or nil, got string"],
            ..case(
                "a bad tint is refused",
                "local c = world.spawn(\"bug\")\nc:set_tint(\"red\")\n",
            )
        },
    ]
}

#[test]
fn check_reports_every_definition_error_in_source_order() {
    let dir = tempfile::tempdir().expect("tempdir");
    let base = write_mod(dir.path(), "base", &[], &[("main.lua", BASE.as_bytes())]);
    // A bad define, a type whose default behaviour exists nowhere, then a spawn of the
    // bad type: the define error is the root cause and must not be hidden.
    let t = write_mod(
        dir.path(),
        "t",
        &["base"],
        &[(
            "main.lua",
            b"creature.define { name = \"glider\", body = { height = 0 } }\n\
              creature.define { name = \"lost\", behaviour = \"ghost\", legs = {}, body = { hover = 1 } }\n\
              world.spawn(\"glider\")\n",
        )],
    );
    let mut host = ScriptHost::new(HostOptions::default());
    let errors: Vec<String> = host
        .check(&[base, t])
        .iter()
        .map(|e| e.to_string())
        .collect();
    // Every bad field of the first define: its height, and with no legs, a hover.
    let want = [
        "t/main.lua:1: creature.define: field 'body.height' must be > 0",
        "t/main.lua:1: creature.define: field 'body.hover' is required for a creature with no legs",
        "t/main.lua:2: creature.define: unknown behaviour \"ghost\" (the default behaviour of \"t/lost\")",
        "t/main.lua:3: world.spawn: creature type \"glider\" was not defined: its creature.define failed (at t/main.lua:1)",
    ];
    assert_eq!(errors.len(), want.len(), "{errors:#?}");
    for (got, want) in errors.iter().zip(want) {
        assert!(got.starts_with(want), "{got}\nwant {want}");
    }
}

#[test]
fn every_case_gives_its_logs_errors_and_world() {
    let mut failures = Vec::new();
    for c in cases() {
        let o = check_lua(c.src, c.ticks);
        let mut wrong = Vec::new();
        if o.logs != c.logs {
            wrong.push(format!("logs {:?}, want {:?}", o.logs, c.logs));
        }
        let errors_match = o.errors.len() == c.errors.len()
            && o.errors
                .iter()
                .zip(c.errors)
                .all(|(got, want)| got.contains(want));
        if !errors_match {
            wrong.push(format!("errors {:?}, want {:?}", o.errors, c.errors));
        }
        if let Some(n) = c.creatures {
            if o.creatures != n {
                wrong.push(format!("{} creatures, want {n}", o.creatures));
            }
        }
        if !wrong.is_empty() {
            failures.push(format!("{}: {}", c.name, wrong.join("; ")));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn the_harness_sees_a_wrong_expectation() {
    // The comparison itself has teeth: a script that logs something else fails it.
    let o = check_lua("print(\"one\")\n", 0);
    assert_eq!(o.logs, ["[t] one"]);
    assert!(o.errors.is_empty());
}

/// Luau bytecode that is valid UTF-8 (this Luau's is: it starts with 9, a TAB), so only the
/// content check and the VM's text mode stand between it and running.
fn utf8_bytecode() -> Vec<u8> {
    let bc = mlua::chunk::Compiler::new()
        .compile("print('bytecode ran')")
        .expect("compiles");
    assert!(
        std::str::from_utf8(&bc).is_ok(),
        "not the case this test is for"
    );
    bc
}

#[test]
fn bytecode_that_is_valid_utf8_is_refused_at_load_require_and_check() {
    let dir = tempfile::tempdir().expect("tempdir");
    let write = |m: &str, files: &[(&str, &[u8])]| write_mod(dir.path(), m, &[], files);
    let bc = utf8_bytecode();
    let entry = write("entry", &[("main.lua", &bc)]);
    let req = write(
        "req",
        &[("main.lua", b"require('./lib')\n"), ("lib.lua", &bc)],
    );
    let mut host = ScriptHost::new(HostOptions::default());
    host.load(&[entry.clone(), req.clone()]);
    for _ in 0..3 {
        host.tick();
    }
    let out: Vec<String> = host.drain_output().iter().map(|o| o.to_string()).collect();
    let text = out.join("\n");
    assert!(!text.contains("bytecode ran"), "bytecode ran:\n{text}");
    assert!(
        out.iter()
            .any(|l| l.contains("entry/main.lua") && l.contains("bytecode is not allowed")),
        "{text}"
    );
    assert!(
        out.iter().any(|l| l.contains("require(\"./lib\")")
            && l.contains("req/lib.lua")
            && l.contains("bytecode is not allowed")),
        "{text}"
    );
    let mut checker = ScriptHost::new(HostOptions::default());
    let errors: Vec<String> = checker
        .check(&[entry, req])
        .iter()
        .map(|e| e.to_string())
        .collect();
    for file in ["entry/main.lua", "req/lib.lua"] {
        assert!(
            errors
                .iter()
                .any(|e| e.starts_with(file) && e.contains("bytecode is not allowed")),
            "check says nothing of {file}: {errors:?}"
        );
    }
}

#[test]
fn the_seed_reaches_every_mods_math_random() {
    let dir = tempfile::tempdir().expect("tempdir");
    let three = b"print(math.random(), math.random(), math.random())\n";
    let mods: Vec<PathBuf> = ["ra", "rb"]
        .iter()
        .map(|m| write_mod(dir.path(), m, &[], &[("main.lua", three)]))
        .collect();
    // The three numbers each mod drew at load, by mod.
    let draws = |seed: u64| -> Vec<String> {
        let mut host = ScriptHost::new(HostOptions {
            seed,
            ..HostOptions::default()
        });
        host.load(&mods);
        let out: Vec<String> = host.drain_output().iter().map(|o| o.to_string()).collect();
        assert_eq!(out.len(), 2, "{out:?}");
        out
    };
    let (a, again, other) = (draws(1), draws(1), draws(2));
    assert_eq!(a, again, "the same seed draws the same numbers");
    assert_ne!(a[0], other[0], "another seed draws other numbers (mod ra)");
    assert_ne!(a[1], other[1], "another seed draws other numbers (mod rb)");
    let numbers = |line: &str| line.split_once("] ").expect("a log line").1.to_string();
    assert_ne!(
        numbers(&a[0]),
        numbers(&a[1]),
        "two mods of one run draw different streams"
    );
}

#[test]
fn camera_requests_nobody_takes_are_capped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let m = write_mod(
        dir.path(),
        "cam",
        &[],
        &[(
            "main.lua",
            b"world.ground {}\ncreature.define { name = 'eye', legs = {}, body = { hover = 1 } }\n\
              behaviour.define { name = 'look', on_update = function(self)\n\
                for i = 1, 100 do camera.look(vec3(i, 5, 0), vec3(0, 0, 0)) end\n\
              end }\n\
              world.spawn('eye', { behaviour = 'look' })\n",
        )],
    );
    let mut host = ScriptHost::new(HostOptions::default());
    host.load(&[m]);
    for _ in 0..20 {
        host.tick();
    }
    let kept = host.take_camera_requests();
    assert_eq!(kept.len(), 64, "2000 asked, the newest 64 kept");
    assert!(host
        .drain_output()
        .iter()
        .all(|o| !matches!(o, HostOutput::Error(_))));
}

/// Issue 48: `world.set_time_scale(s)` hands the window's clock a scale from 0.25 to 4
/// (the host's `take_time_scale`); anything else is an error that says where and what,
/// and the mod runs on.
#[test]
fn set_time_scale_takes_a_scale_from_a_quarter_to_four() {
    let dir = tempfile::tempdir().expect("tmp");
    let m = dir.path().join("clock");
    std::fs::create_dir_all(&m).expect("mkdir");
    std::fs::write(
        m.join("mod.toml"),
        "name = \"clock\"\nversion = \"0.1.0\"\n",
    )
    .expect("w");
    std::fs::write(
        m.join("main.lua"),
        "world.ground { size = vec3(10, 0, 10) }\n\
         world.set_time_scale(2)\n\
         for _, bad in ipairs({ 0, 9, \"fast\" }) do\n\
           local ok, err = pcall(world.set_time_scale, bad)\n\
           log.info(\"bad\", err)\n\
         end\n\
         log.info(\"ran on\")\n",
    )
    .expect("w");
    let mut host = ScriptHost::new(HostOptions::default());
    host.load(&[m]);
    assert!(host.take_errors().is_empty());
    assert_eq!(host.take_time_scale(), Some(2.0));
    assert_eq!(host.take_time_scale(), None, "taken once");
    let logs: Vec<String> = host.take_logs().into_iter().map(|l| l.text).collect();
    let all = logs.join("\n");
    for got in ["got 0", "got 9", "got string"] {
        assert!(
            all.contains(&format!(
                "clock/main.lua:4: world.set_time_scale: scale must be a number from 0.25 to 4, {got}"
            )),
            "{all}"
        );
    }
    assert!(all.contains("ran on"), "{all}");
}
