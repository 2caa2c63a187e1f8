//! Battles (issue 30, its brains): a thousand soldiers each asking for its nearest foe.
//! Asked of `world.creatures_near`'s filter (the World's grid: type, team, on its feet,
//! nearest one), the brawl brain runs a 1 000-soldier battle within the default budget; the
//! same brains filtering every soldier in sight in Lua overrun it and are suspended.
#![allow(clippy::expect_used, clippy::unwrap_used)] // tests: a failure is a failed test

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::*;

/// Two armies of 500 soldiers (teams 1 and 2) facing each other across the arena, with the
/// brawl brain's `sight` raised to 40, and `brain` the brawler or a brain of the old kind.
fn battle(dir: &std::path::Path, brain: &str) -> std::path::PathBuf {
    temp_mod(
        dir,
        "battle",
        &[
            (
                "mod.toml",
                "name = \"battle\"\nversion = \"0.1.0\"\ndepends = [\"brawl\"]\n",
            ),
            (
                "main.lua",
                &format!(
                    "{brain}\n\
                     for team = 1, 2 do\n\
                       local side = team == 1 and -1 or 1\n\
                       for i = 0, 499 do\n\
                         local at = vec3((i % 25 - 12) * 0.8, 0, side * (7 + math.floor(i / 25) * 0.6))\n\
                         world.spawn(\"brawl/soldier\", {{ position = at, yaw = team == 1 and 0 or 180,\n\
                           behaviour = BRAIN, team = team, params = {{ team = team, sight = 40 }} }})\n\
                       end\n\
                     end\n"
                ),
            ),
        ],
    )
}

#[test]
fn a_thousand_soldiers_find_their_foes_within_the_default_budget() {
    let dir = tempfile::tempdir().expect("tmp");
    // The bundled brawler: one filtered query a tick each.
    let m = battle(dir.path(), "local BRAIN = \"brawl/brawler\"");
    let (out, t) = run_trace(
        dir.path(),
        90,
        &[bundled("arena"), bundled("brawl"), m],
        &[],
    );
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(!said.contains("suspended"), "{said}");
    assert!(t.errors().is_empty(), "{:?}", t.errors());
    // The brawl mod's own eight, then the armies.
    assert_eq!(t.ids().len(), 1008);
    // They turn on their nearest foes and march: at the end nearly all face the foe nearest
    // them at the start (within 45°; the brawl mod's eight, fighting in their corner, move,
    // and some nearest foes with them), and most have come nearer it (the front ranks block
    // some of the rear). Teams by spawn order: the brawl mod's four and four, then the armies.
    let team = |id: u64| match id {
        1..=4 | 9..=508 => 1,
        _ => 2,
    };
    let ids = t.ids();
    let start: Vec<[f64; 3]> = ids
        .iter()
        .map(|id| t.of(*id)[0].pos.expect("pos"))
        .collect();
    let (mut facing, mut nearer) = (0, 0);
    for (k, id) in ids.iter().enumerate().filter(|(_, id)| **id > 8) {
        let foe = (0..ids.len())
            .filter(|j| team(ids[*j]) != team(*id))
            .min_by(|a, b| {
                let d = |j: usize| (start[j][0] - start[k][0]).hypot(start[j][2] - start[k][2]);
                d(*a).total_cmp(&d(*b))
            })
            .expect("a foe");
        let r = t.of(*id);
        let end = r[r.len() - 1].pos.expect("pos");
        let fwd = r[r.len() - 1].fwd.expect("fwd");
        let (fx, fz) = (start[foe][0] - end[0], start[foe][2] - end[2]);
        let len = fx.hypot(fz);
        facing += ((fwd[0] * fx + fwd[2] * fz) / len > 0.7) as usize;
        let before = (start[foe][0] - start[k][0]).hypot(start[foe][2] - start[k][2]);
        nearer += (len < before - 0.3) as usize;
    }
    assert!(facing > 930, "only {facing} of 1000 face their foe");
    assert!(nearer > 750, "only {nearer} of 1000 came nearer their foe");

    // The same battle with each brain looking through every soldier in sight in Lua.
    let sub = dir.path().join("old");
    std::fs::create_dir_all(&sub).expect("mkdir");
    let old = "behaviour.define { name = \"scan\", params = { team = 1, sight = 40 },\n\
        on_update = function(self)\n\
          local me, foe, best = self:position(), nil, math.huge\n\
          for _, o in ipairs(world.creatures_near(me, self.params.sight, \"brawl/soldier\")) do\n\
            if o.params.team ~= self.params.team and not o:is_ragdoll() then\n\
              local d = vector.magnitude(o:position() - me)\n\
              if d < best then foe, best = o, d end\n\
            end\n\
          end\n\
          if foe then self:move(vector.normalize(foe:position() - me), 1.1) end\n\
        end }\n\
        local BRAIN = \"scan\"";
    let m = battle(&sub, old);
    let (out, _) = run_trace(&sub, 30, &[bundled("arena"), bundled("brawl"), m], &[]);
    let said = text(&out);
    assert!(
        said.contains("suspended"),
        "scanning every soldier should overrun the budget: {said}"
    );
}

#[test]
fn four_hundred_soldiers_in_physics_give_the_same_trace_at_one_and_two_threads_and_replayed() {
    // Two lines of 200 soldiers thrown into physics (muscles at 0.7: the balance help holds
    // them) and shoved at each other every 40 ticks: their rigs form interaction groups
    // that step apart, on the second thread too.
    let dir = tempfile::tempdir().expect("tmp");
    let m = temp_mod(
        dir.path(),
        "shove",
        &[
            (
                "mod.toml",
                "name = \"shove\"\nversion = \"0.1.0\"\ndepends = [\"brawl\"]\n",
            ),
            (
                "main.lua",
                "behaviour.define { name = \"shoved\", params = { dir = 1 },\n\
                   on_spawn = function(self) self:ragdoll({ muscle = 0.7, duration = 1e9 }) end,\n\
                   on_update = function(self)\n\
                     self.state.n = (self.state.n or 0) + 1\n\
                     if self.state.n % 40 == 0 then self:hit(vec3(0, 0, self.params.dir), 0.8) end\n\
                   end }\n\
                 for i = 0, 399 do\n\
                   local row, k = i % 2, math.floor(i / 2)\n\
                   local at = vec3((k % 25) * 1.1 - 13, 0, math.floor(k / 25) * 2.6 - 10 + (row == 0 and -0.6 or 0.6))\n\
                   world.spawn(\"brawl/soldier\", { position = at, yaw = row == 0 and 0 or 180,\n\
                     behaviour = \"shoved\", params = { dir = row == 0 and 1 or -1 } })\n\
                 end\n",
            ),
        ],
    );
    let rec = dir.path().join("run.rec").display().to_string();
    let run = |name: &str, extra: &[&str]| -> Vec<u8> {
        let sub = dir.path().join(name);
        std::fs::create_dir_all(&sub).expect("mkdir");
        let mut args = vec!["--max-ragdolls", "1000"];
        args.extend_from_slice(extra);
        let (out, t) = run_trace(
            &sub,
            90,
            &[bundled("arena"), bundled("brawl"), m.clone()],
            &args,
        );
        assert!(out.status.success(), "{}", text(&out));
        assert!(t.errors().is_empty(), "{:?}", t.errors());
        assert!(
            t.recs.iter().filter(|r| r.ragdoll).count() > 400 * 80,
            "the soldiers were not in physics"
        );
        trace_text(&sub).into_bytes()
    };
    let (one, two) = (
        run("one", &["--threads", "1", "--record", &rec]),
        run("two", &["--threads", "2"]),
    );
    assert!(one == two, "the trace differs at 2 threads");
    // The run recorded at one thread, replayed at two: the same bytes.
    let replayed = run("replay", &["--threads", "2", "--replay", &rec]);
    assert!(one == replayed, "the replay's trace differs from the run's");
}

/// The bundled battle scene (`scripts/scenes/battle`, not in the default demo): loaded with
/// the mods it names, its two armies of 100 soldiers and 6 spiders each charge, meet and
/// brawl — soldiers go down in physics and get up again, spiders ram — with no error and
/// never more in physics than the default cap; and the same trace, byte for byte, at one
/// thread and at two (where its melee's world — some 150 rigs by the end — steps first, the
/// other thread sharing out its narrow phase, then walking the rest beside it).
#[test]
fn the_battle_scene_charges_meets_and_brawls() {
    let dir = tempfile::tempdir().expect("tmp");
    let scene = root().join("scripts/scenes/battle");
    let mods = [bundled("arena"), bundled("spider"), bundled("brawl"), scene];
    let (one, two) = (dir.path().join("one"), dir.path().join("two"));
    std::fs::create_dir_all(&one).expect("mkdir");
    std::fs::create_dir_all(&two).expect("mkdir");
    let (out, t) = run_trace(&two, 420, &mods, &["--threads", "2"]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    let (alone, _) = run_trace(&one, 420, &mods, &["--threads", "1"]);
    assert!(alone.status.success(), "{}", text(&alone));
    assert!(
        trace_text(&one) == trace_text(&two),
        "the battle's trace differs at 2 threads"
    );
    assert!(t.errors().is_empty(), "{:?}", t.errors());
    assert!(!said.contains("] error:"), "{said}");
    // The brawl mod's own eight, then two armies of 100 soldiers and 6 spiders.
    assert_eq!(t.ids().len(), 8 + 2 * 106, "{said}");
    let last = t.recs.iter().map(|r| r.frame).max().expect("frames");
    let at = |frame: u64| t.recs.iter().filter(move |r| r.frame == frame);
    // At the start nobody is in physics; by the end many are, never more than the cap, and
    // some got up again.
    let mut in_physics: BTreeMap<u64, usize> = BTreeMap::new();
    for r in &t.recs {
        *in_physics.entry(r.frame).or_default() += r.ragdoll as usize;
    }
    assert_eq!(in_physics.get(&0), Some(&0));
    let most = in_physics.values().copied().max().unwrap_or(0);
    assert!(most <= 256, "{most} in physics at once");
    let down = in_physics[&last];
    assert!(down >= 20, "{down} in physics at the end");
    // Soldiers got up: in physics in one record, animated in a later one.
    let mut was_down = BTreeSet::new();
    let mut up_again = BTreeSet::new();
    for r in t.recs.iter().filter(|r| r.ty == "brawl/soldier") {
        if r.ragdoll {
            was_down.insert(r.id);
        } else if was_down.contains(&r.id) {
            up_again.insert(r.id);
        }
    }
    assert!(up_again.len() >= 5, "{} soldiers got up", up_again.len());
    // Each creature's type and place at the start and at the end, by id.
    let place = |frame: u64| -> BTreeMap<u64, (String, [f64; 3])> {
        at(frame)
            .filter_map(|r| Some((r.id, (r.ty.clone(), r.pos?))))
            .collect()
    };
    let (start, end) = (place(0), place(last));
    // The armies met: each army (its soldiers south of the middle, z < 0; the brawl mod's
    // own eight stand north) came on toward the middle line, on average by over a metre.
    for side in [-1.0, 1.0] {
        let army: Vec<u64> = start
            .iter()
            .filter(|(_, (ty, p))| ty == "brawl/soldier" && p[2] < 0.0 && p[0] * side > 0.0)
            .map(|(id, _)| *id)
            .collect();
        assert_eq!(army.len(), 100, "the army on side {side}");
        let mean_out = |m: &BTreeMap<u64, (String, [f64; 3])>| {
            army.iter()
                .filter_map(|id| m.get(id))
                .map(|(_, p)| p[0] * side)
                .sum::<f64>()
                / army.len() as f64
        };
        let (a, b) = (mean_out(&start), mean_out(&end));
        assert!(
            b < a - 1.0,
            "the army on side {side}: {a:.2} m from the middle on average, then {b:.2} m"
        );
    }
    // The spiders charged: at least half moved over 2 m.
    let charged = start
        .iter()
        .filter(|(_, (ty, _))| ty == "spider/spider")
        .filter(|(id, (_, a))| {
            end.get(id)
                .is_some_and(|(_, b)| ((a[0] - b[0]).powi(2) + (a[2] - b[2]).powi(2)).sqrt() > 2.0)
        })
        .count();
    assert!(charged >= 6, "{charged} of 12 spiders charged");
}
