//! The hostile-mod suite: mods written to escape, tamper, hang, exhaust or flood, all loaded
//! together beside well-behaved mods. Each is contained with a clear error naming the mod
//! (`mod/file.lua:LINE: …`), nothing on disk changes, and the other mods keep running.

#![allow(clippy::expect_used, clippy::unwrap_used)] // test set-up: a failure is a failed test

mod common;
use common::*;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Runs every tick on a spider of the mod (a brain), so the hostile code runs at runtime.
/// (`NAME` is replaced by the mod's name: behaviour names are unique among loaded mods.)
fn on_update(body: &str) -> String {
    format!(
        "behaviour.define {{ name = 'b_NAME', on_update = function(self, dt)\n  {body}\nend }}\nworld.spawn('spider/spider', {{ position = vec3(12, 0, 12), behaviour = 'b_NAME' }})\n"
    )
}

/// Every file under `dir` with its size and modification time (a trace file aside).
fn listing(dir: &Path, skip: &Path) -> BTreeMap<PathBuf, (u64, std::time::SystemTime)> {
    let mut out = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p == skip {
                continue;
            }
            if p.is_dir() {
                if !p.ends_with("target") && !p.ends_with(".git") {
                    todo.push(p);
                }
            } else if let Ok(m) = std::fs::metadata(&p) {
                out.insert(p, (m.len(), m.modified().unwrap()));
            }
        }
    }
    out
}

struct Case {
    name: &'static str,
    files: Vec<(&'static str, Vec<u8>)>,
    /// Text the error must contain.
    expect: &'static str,
}

fn case(name: &'static str, main: &str, expect: &'static str) -> Case {
    Case {
        name,
        files: vec![("main.lua", main.replace("NAME", name).into_bytes())],
        expect,
    }
}

#[test]
fn hostile_mods_are_contained_and_the_world_goes_on() {
    let bytecode = mlua::chunk::Compiler::new()
        .compile("log.info('bytecode ran')")
        .expect("compiles");
    let cases = vec![
        // File, process and environment access: none of it exists.
        case("files", &on_update("io.open('/tmp/skitter-pwned', 'w'):write('x')"), "io.open: the sandbox has no 'io' library"),
        case("process", &on_update("os.execute('touch /tmp/skitter-pwned')"), "os.execute: the sandbox's 'os' library has only clock, date, difftime and time"),
        case("environ", &on_update("log.info(os.getenv('HOME'))"), "os.getenv: the sandbox's 'os' library has only clock, date, difftime and time"),
        case("loader", "dofile('/etc/passwd')\n", "attempt to call a nil value"),
        // Bytecode: as the entry, and through require.
        Case {
            name: "bytes",
            files: vec![("main.lua", bytecode.clone())],
            expect: "bytecode is not allowed",
        },
        Case {
            name: "bytes2",
            files: vec![("main.lua", b"require('./lib')\n".to_vec()), ("lib.lua", bytecode)],
            expect: "bytecode is not allowed",
        },
        // The debug library is not there.
        case("debugger", "debug.sethook(function() end, 'l')\n", "attempt to index nil with 'sethook'"),
        // Tampering with the string metatable, a library, the API tables, the globals.
        case("strmeta", "getmetatable('').__index = { upper = function() return 'pwned' end }\n", "attempt to modify a readonly table"),
        case("libs", "table.insert = function() end\n", "attempt to modify a readonly table"),
        case("apitable", "world.spawn = function() end\n", "attempt to modify a readonly table"),
        case("globals", "setmetatable(_G, { __index = function() return nil end })\n", "readonly"),
        // Infinite loops, plain and inside pcall.
        case("spin", &on_update("while true do end"), "CPU budget exceeded"),
        case("pspin", &on_update("for i = 1, 1e9 do pcall(function() while true do end end) end"), "CPU budget exceeded"),
        // Memory bombs, plain and inside pcall.
        case("bomb", &on_update("local t = {} while true do t[#t + 1] = string.rep('x', 1048576) .. #t end"), "memory limit exceeded"),
        case("pbomb", &on_update("local keep = {} for i = 1, 1e9 do pcall(function() while true do keep[#keep + 1] = string.rep('y', 1048576) .. #keep end end) end"), "memory limit exceeded"),
        // Deep recursion.
        case("recurse", &on_update("local function f(n) return f(n + 1) + 1 end f(1)"), "stack overflow"),
        // A pattern that backtracks for ever.
        case("pattern", &on_update("string.find(string.rep('a', 30000), string.rep('a-', 12) .. 'b')"), "CPU budget exceeded"),
        // Parser bombs: nesting past the parser's depth, and a file too big to read.
        Case {
            name: "parser",
            files: vec![(
                "main.lua",
                format!("local x = {}1{}\n", "(".repeat(200_000), ")".repeat(200_000)).into_bytes(),
            )],
            expect: "Exceeded allowed recursion depth",
        },
        Case {
            name: "huge",
            files: vec![
                ("main.lua", b"require('./big')\n".to_vec()),
                ("big.lua", format!("return 1{}\n", " + 1".repeat(1_300_000)).into_bytes()),
            ],
            expect: "scripts may be at most 4 MiB",
        },
        // require escapes: upward, absolute, into an undeclared mod.
        case("escape", "require('../spider/body')\n", "leaves the mod folder"),
        case("absolute", "require('/etc/passwd')\n", "absolute paths are not allowed"),
        case("sneak", "require('@arena/main')\n", "is not a dependency"),
        // Spawning without end: stopped at the creature limit, at load and at runtime.
        case("flood", "while true do world.spawn('spider/spider', { position = vec3(-12, 0, -12) }) end\n", "its limit (--max-creatures 150)"),
        case("rflood", &on_update("for i = 1, 20 do world.spawn('spider/spider', { position = vec3(-12, 0, 12) }) end"), "its limit (--max-creatures 150)"),
    ];

    let dir = tempfile::tempdir().expect("tmp");
    let mut mods = vec![
        bundled("arena"),
        bundled("spider"),
        fixture("walkers"),
        fixture("flat"),
    ];
    for c in &cases {
        let m = dir.path().join(c.name);
        std::fs::create_dir_all(&m).expect("mkdir");
        std::fs::write(
            m.join("mod.toml"),
            format!(
                "name = \"{}\"\nversion = \"0.1.0\"\ndepends = [\"spider\", \"walkers\"]\n",
                c.name
            ),
        )
        .expect("write");
        for (f, bytes) in &c.files {
            std::fs::write(m.join(f), bytes).expect("write");
        }
        mods.push(m);
    }
    let trace = dir.path().join("trace.jsonl");
    let before = (listing(dir.path(), &trace), listing(&root(), &trace));
    let mut args: Vec<String> = [
        "run",
        "--headless",
        "--frames",
        "120",
        "--cpu-budget-ms",
        "25",
        "--memory-mb",
        "24",
        "--max-creatures",
        "150",
        "--trace",
    ]
    .map(String::from)
    .to_vec();
    args.push(trace.display().to_string());
    args.extend(mods.iter().map(|m| m.display().to_string()));
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    // Runaways, bombs and floods are stopped by budgets and limits: a run that does not end
    // means one never fired.
    let out = skitter_within(&argv, BUDGET_WATCHDOG, BUDGET_NEVER_FIRED);
    let log = text(&out);
    assert_ran_despite_bad_mods(&out);
    let t = Trace::parse(&std::fs::read_to_string(&trace).expect("trace"));

    // Each hostile mod: an error that names it and says what went wrong.
    let errors = t.errors();
    for c in &cases {
        let mine: Vec<_> = errors.iter().filter(|e| e["mod"] == c.name).collect();
        assert!(
            mine.iter().any(|e| {
                e["message"].as_str().unwrap_or("").contains(c.expect)
                    && e["where"]
                        .as_str()
                        .unwrap_or("")
                        .starts_with(&format!("{}/", c.name))
            }),
            "{}: expected an error at {}/…: …{}…, got {mine:?}\n{log}",
            c.name,
            c.name,
            c.expect
        );
    }
    assert!(
        !log.contains("bytecode ran") && !log.contains("pwned"),
        "{log}"
    );
    assert!(!Path::new("/tmp/skitter-pwned").exists());

    // Nothing on disk changed: not the mods' own folders, not the repository.
    let after = (listing(dir.path(), &trace), listing(&root(), &trace));
    assert!(before.0 == after.0, "files changed under the mods' folder");
    assert!(before.1 == after.1, "files changed in the repository");

    // The well-behaved mods ran on: the flat scene's three spiders walked the whole time.
    let q = quality(&t);
    assert_body_moves_well("hostile", &q);
    let flat: Vec<u64> = t
        .ids()
        .into_iter()
        .filter(|id| {
            t.of(*id)[0].pos.is_some_and(|p| {
                p[0].abs() < 4.0 && (p[2] + 10.0).abs() < 1.0 || p[2] > 4.0 && p[0].abs() < 4.0
            })
        })
        .collect();
    assert!(flat.len() >= 3, "{flat:?}");
    for id in flat {
        let d = q.displacement.get(&id).copied().unwrap_or(0.0);
        assert!(d > 0.8, "flat spider {id} stopped: {d:.2} m");
        assert_eq!(
            t.of(id).last().unwrap().frame,
            120,
            "flat spider {id} is gone"
        );
    }
    let last = t.recs.iter().map(|r| r.frame).max().unwrap_or(0);
    assert_eq!(last, 120, "the world stepped to the end");
    // The flood was stopped at the cap, and the load-time flood was undone entirely.
    let at_end = t.recs.iter().filter(|r| r.frame == 120).count();
    assert!(at_end < 400, "{at_end} creatures at the end");
}
