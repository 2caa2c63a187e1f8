//! Sound from the motion, heard through `skitter run --headless --audio-out F.wav`: the
//! mix's onsets against the trace's plants, level by distance, pan by side, the same bytes
//! for the same seed, and many legs folded into few voices.

#![allow(clippy::expect_used, clippy::unwrap_used)] // test set-up: a failure is a failed test

mod common;
use common::*;
use std::path::{Path, PathBuf};

/// A mod walking one creature of `ty` along x from -8 to +8 at z = 3, past a camera at
/// the origin looking +z (its right is -x).
fn walk_past(dir: &Path, ty: &str) -> PathBuf {
    temp_mod(
        dir,
        "walkpast",
        &[(
            "main.lua",
            &format!(
                "behaviour.define {{ name = \"pass\", on_update = function(self) self:move(vec3(1, 0, 0), 1.2) end }}\n\
                 world.ground {{ size = vec3(60, 0, 60) }}\n\
                 world.spawn(\"{ty}\", {{ position = vec3(-8, 0, 3), yaw = 90, behaviour = \"pass\" }})\n\
                 camera.look(vec3(0, 1.5, -3), vec3(0, 0.3, 3))\n"
            ),
        )],
    )
}

/// Runs `frames` ticks with `--audio-out`; the console text, the WAV (interleaved left,
/// right) and the trace's plants and lifts (frame of each).
fn heard(
    dir: &Path,
    name: &str,
    frames: u32,
    mods: &[PathBuf],
    seed: &str,
) -> (String, Vec<i16>, Vec<u64>, Vec<u64>) {
    let wav = dir.join(format!("{name}.wav"));
    let trace = dir.join(format!("{name}.jsonl"));
    let f = frames.to_string();
    let mut args = vec![
        "run".to_string(),
        "--headless".into(),
        "--frames".into(),
        f,
        "--seed".into(),
        seed.into(),
        "--audio-out".into(),
        wav.display().to_string(),
        "--trace".into(),
        trace.display().to_string(),
    ];
    args.extend(mods.iter().map(|m| m.display().to_string()));
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = skitter(&argv);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    let mut r = hound::WavReader::open(&wav).expect("a WAV");
    let spec = r.spec();
    assert_eq!(
        (spec.channels, spec.sample_rate, spec.bits_per_sample),
        (2, 48_000, 16)
    );
    let samples: Vec<i16> = r.samples::<i16>().map(|s| s.expect("sample")).collect();
    assert_eq!(
        samples.len(),
        (frames as usize + 1) * 800 * 2,
        "a tick's samples a tick"
    );
    let (mut plants, mut lifts) = (Vec::new(), Vec::new());
    let mut was = std::collections::HashMap::new();
    for line in std::fs::read_to_string(&trace).expect("trace").lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("json");
        let Some(feet) = v["feet"].as_array() else {
            continue;
        };
        let frame = v["frame"].as_u64().expect("frame");
        for foot in feet {
            let key = (v["id"].as_u64(), foot["leg"].as_str().map(String::from));
            let g = foot["grounded"].as_bool().expect("grounded");
            if let Some(before) = was.insert(key, g) {
                if before != g {
                    if g {
                        plants.push(frame)
                    } else {
                        lifts.push(frame)
                    }
                }
            }
        }
    }
    (t, samples, plants, lifts)
}

/// Where sounds start (seconds): 1 ms bins whose level passes `threshold` of the loudest
/// after at least 20 ms below it; with each onset's peak (left, right) over its next 40 ms.
fn onsets(samples: &[i16], threshold: f64) -> Vec<(f64, f64, f64)> {
    let bin = 48;
    let level: Vec<f64> = samples
        .chunks(bin * 2)
        .map(|c| c.iter().map(|s| (*s as f64).abs()).fold(0.0, f64::max))
        .collect();
    let top = level.iter().copied().fold(0.0, f64::max);
    let mut out = Vec::new();
    let mut quiet = 20;
    for (i, l) in level.iter().enumerate() {
        if *l >= threshold * top {
            if quiet >= 20 {
                let span = &samples[i * bin * 2..((i + 40) * bin * 2).min(samples.len())];
                let peak = |ch: usize| {
                    span.iter()
                        .skip(ch)
                        .step_by(2)
                        .map(|s| (*s as f64).abs())
                        .fold(0.0, f64::max)
                };
                out.push((i as f64 / 1000.0, peak(0), peak(1)));
            }
            quiet = 0;
        } else {
            quiet += 1;
        }
    }
    out
}

#[test]
fn a_spider_walking_past_is_heard_on_its_plants_nearer_louder_panned_by_side_and_the_same_each_run()
{
    let dir = tempfile::tempdir().expect("tmp");
    let mods = [
        bundled("spider"),
        fixture("walkers"),
        walk_past(dir.path(), "spider/spider"),
    ];
    let (t, a, plants, lifts) = heard(dir.path(), "a", 840, &mods, "1");
    let (_, b, _, _) = heard(dir.path(), "b", 840, &mods, "1");
    let (_, c, _, _) = heard(dir.path(), "c", 840, &mods, "2");
    assert!(a == b, "the same seed and mods gave a different mix");
    assert!(a != c, "another seed gave the same mix");
    assert!(
        plants.len() > 100 && lifts.len() > 100,
        "{} plants, {} lifts",
        plants.len(),
        lifts.len()
    );
    // The footfalls (the loud onsets: lifts are a fifth as loud) start where the trace's
    // plants are, each within 10 ms of one; and every plant is heard (an onset at most a
    // merge window, 50 ms, before it).
    let steps = onsets(&a, 0.3);
    let at = |f: &u64| *f as f64 / 60.0;
    for (s, _, _) in &steps {
        let near = plants
            .iter()
            .map(|p| (at(p) - s).abs())
            .fold(f64::MAX, f64::min);
        assert!(
            near <= 0.010,
            "an onset at {s:.3} s is {near:.3} s from the nearest plant"
        );
    }
    for p in &plants {
        assert!(
            steps
                .iter()
                .any(|(s, _, _)| at(p) - s >= -0.010 && at(p) - s <= 0.060),
            "the plant at {:.3} s has no onset\n{t}",
            at(p)
        );
    }
    // Feet landing together are one voice: the spider's four of a gait group.
    let groups = plants.windows(2).filter(|w| w[1] != w[0]).count() + 1;
    assert!(
        steps.len() <= groups + 2 && steps.len() * 4 >= plants.len() * 9 / 10,
        "{} onsets for {} plants in {groups} groups",
        steps.len(),
        plants.len()
    );
    // Right of the camera (x < 0: its right is -x) at first, left at the end; loudest as
    // it passes in front (6 m away, 10 m at either end).
    let third = steps.len() / 3;
    let side =
        |s: &[(f64, f64, f64)]| s.iter().map(|(_, l, r)| r - l).sum::<f64>() / s.len() as f64;
    let peak =
        |s: &[(f64, f64, f64)]| s.iter().map(|(_, l, r)| l + r).sum::<f64>() / s.len() as f64;
    let (first, middle, last) = (
        &steps[..third],
        &steps[third..2 * third],
        &steps[2 * third..],
    );
    assert!(
        side(first) > 0.0 && side(last) < 0.0,
        "pan: {} then {}",
        side(first),
        side(last)
    );
    assert!(
        peak(middle) > 1.2 * peak(first) && peak(middle) > 1.2 * peak(last),
        "levels: {:.0}, {:.0}, {:.0}",
        peak(first),
        peak(middle),
        peak(last)
    );
    assert!(t.contains("audio: wrote"), "{t}");
}

#[test]
fn a_centipedes_twenty_legs_are_a_few_voices_a_second() {
    let dir = tempfile::tempdir().expect("tmp");
    let mods = [
        bundled("spider"),
        bundled("menagerie"),
        fixture("walkers"),
        walk_past(dir.path(), "menagerie/centipede"),
    ];
    let (t, _, plants, _) = heard(dir.path(), "centipede", 600, &mods, "1");
    let line = t
        .lines()
        .find(|l| l.starts_with("audio: wrote"))
        .expect("the audio line");
    let voices: u64 = line
        .split(": ")
        .nth(2)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("voices");
    // Plants and lifts each fold into at most one voice per 50 ms: at most 40 a second, and
    // the wave gait's plants (about 20 a second) far fewer.
    let seconds = 10.0;
    assert!(
        plants.len() as f64 > 15.0 * seconds,
        "{} plants",
        plants.len()
    );
    assert!(
        (voices as f64) <= 40.0 * seconds && (voices as f64) < plants.len() as f64,
        "{voices} voices for {} plants: {line}",
        plants.len()
    );
}

#[test]
fn scripts_play_sounds_where_and_as_loud_as_they_ask_and_bad_requests_say_what() {
    let dir = tempfile::tempdir().expect("tmp");
    // A thud every half second at a point 4 m in front, its volume from the mod's name.
    let player = |name: &str, volume: &str| {
        temp_mod(
            dir.path(),
            name,
            &[(
                "main.lua",
                &format!(
                    "world.ground {{ size = vec3(30, 0, 30) }}\n\
                     behaviour.define {{ name = \"drum\", on_update = function(self)\n\
                       if math.floor(world.time() * 60 + 0.5) % 30 == 0 then sound.play(\"thud\", vec3(0, 0, 4), {{ volume = {volume} }}) end\n\
                     end }}\n\
                     world.spawn(\"spider/spider\", {{ position = vec3(0, 0, 40), behaviour = \"drum\" }})\n\
                     camera.look(vec3(0, 1.5, 0), vec3(0, 0, 4))\n"
                ),
            )],
        )
    };
    let loud = player("loud", "1");
    let soft = player("soft", "0.5");
    let (t, a, _, _) = heard(
        dir.path(),
        "loud",
        120,
        &[bundled("spider"), fixture("walkers"), loud],
        "1",
    );
    let (_, b, _, _) = heard(
        dir.path(),
        "soft",
        120,
        &[bundled("spider"), fixture("walkers"), soft],
        "1",
    );
    let hits = onsets(&a, 0.3);
    assert!(hits.len() >= 3, "{hits:?}\n{t}");
    // Every half second, at the tick that asked (the spider is 40 m off: its own steps are
    // far quieter).
    for (s, _, _) in &hits {
        let half = (s * 2.0).round() / 2.0;
        assert!((s - half).abs() <= 0.02, "a thud at {s:.3} s");
    }
    let peak = |x: &[i16]| x.iter().map(|s| (*s as f64).abs()).fold(0.0, f64::max);
    let ratio = peak(&a) / peak(&b);
    assert!(
        (1.7..2.3).contains(&ratio),
        "volume 1 against 0.5: {ratio:.2}"
    );
    // Bad requests: what and where, and the world runs on.
    for (call, want) in [
        (
            "sound.play(\"boom\", vec3(0, 0, 0))",
            "unknown sound \"boom\" (one of step, lift, thud)",
        ),
        (
            "sound.play(\"thud\", vec3(0, 0, 0), { volume = -1 })",
            "field 'volume' must be a number from 0 to 8, got -1",
        ),
        (
            "sound.play(\"thud\", vec3(0, 0, 0), { loud = 2 })",
            "unknown field 'loud' (volume, pitch)",
        ),
    ] {
        let m = temp_mod(
            dir.path(),
            "bad",
            &[(
                "main.lua",
                &format!("world.ground {{ size = vec3(10, 0, 10) }}\n{call}\n"),
            )],
        );
        let o = ticks_beside_walkers(&m, 5, &[]);
        let t = text(&o);
        assert!(
            t.contains(&format!("bad/main.lua:2: sound.play: {want}")),
            "{t}"
        );
        assert!(t.contains("skitter: ran 5 ticks"), "{t}");
    }
}

#[test]
fn a_ragdoll_falling_from_higher_lands_louder() {
    let dir = tempfile::tempdir().expect("tmp");
    // A spider on a pillar goes limp at 0.5 s and is shoved off it; the thud of the shove
    // is over by 0.8 s, the landing comes after. The listener is 20 m off, so where it
    // lands (a metre or three from the pillar) changes its distance little.
    let landing = |h: f32| -> f64 {
        let name = format!("pillar{}", (h * 10.0) as u32);
        let m = temp_mod(
            dir.path(),
            &name,
            &[(
                "main.lua",
                &format!(
                    "world.ground {{ size = vec3(30, 0, 30) }}\n\
                     world.box {{ position = vec3(0, {h} / 2, 4), size = vec3(0.9, {h}, 0.9) }}\n\
                     behaviour.define {{ name = \"faller\", on_update = function(self)\n\
                       if math.floor(world.time() * 60 + 0.5) == 30 then self:ragdoll(); self:hit(vec3(1, 0.2, 0), 4) end\n\
                     end }}\n\
                     world.spawn(\"spider/spider\", {{ position = vec3(0, {h} + 0.5, 4), behaviour = \"faller\" }})\n\
                     camera.look(vec3(0, 1.5, -16), vec3(0, 0, 4))\n"
                ),
            )],
        );
        let (t, s, _, _) = heard(
            dir.path(),
            &name,
            240,
            &[bundled("spider"), fixture("walkers"), m],
            "1",
        );
        // The landing's energy (its parts' impacts, folded into a voice or two).
        let after = (48_000.0 * 0.9) as usize * 2;
        let energy = s[after..].iter().map(|x| (*x as f64).powi(2)).sum::<f64>();
        assert!(energy > 0.0, "no landing heard from {h} m\n{t}");
        energy
    };
    // (A spawn lands on a pillar 2 m tall or more; a lower one puts it on the ground.)
    let (low, high) = (landing(2.0), landing(5.0));
    // 6.3 m/s against 9.9 m/s at the ground: levels 0.78 and 1.24, energies 2.5 times.
    assert!(
        high > 1.6 * low,
        "a 5 m fall {high:.3e}, a 2 m fall {low:.3e}"
    );
}

/// A WAV of a `hz` sine, `ms` long, at `rate`, fading out.
fn sine_wav(path: &Path, hz: f32, ms: u32, rate: u32) {
    std::fs::create_dir_all(path.parent().expect("dir")).expect("mkdir");
    let spec = hound::WavSpec {
        channels: 1,
        sample_rate: rate,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut w = hound::WavWriter::create(path, spec).expect("wav");
    let n = rate * ms / 1000;
    for i in 0..n {
        let t = i as f32 / rate as f32;
        let fade = 1.0 - i as f32 / n as f32;
        w.write_sample(((std::f32::consts::TAU * hz * t).sin() * fade * 20000.0) as i16)
            .expect("sample");
    }
    w.finalize().expect("finalize");
}

/// Zero crossings a second of the left channel over `ms` after `at` seconds.
fn crossings(samples: &[i16], at: f64, ms: f64) -> f64 {
    let from = (at * 48_000.0) as usize;
    let n = (ms / 1000.0 * 48_000.0) as usize;
    let left: Vec<i16> = samples
        .iter()
        .step_by(2)
        .skip(from)
        .take(n)
        .copied()
        .collect();
    let flips = left
        .windows(2)
        .filter(|w| (w[0] >= 0) != (w[1] >= 0))
        .count();
    flips as f64 / (ms / 1000.0)
}

/// A 5 kg biped type `toner` with the given `sounds = …` field.
fn toner(sounds: &str) -> String {
    format!(
        "creature.define {{ name = \"toner\", body = {{ size = vec3(0.5, 0.2, 0.6), height = 0.35, mass = 5 }},\n\
           legs = {{\n\
             {{ name = \"L\", hip = vec3(0.2, 0, 0), rest = vec3(0.45, -0.35, 0), segments = {{ 0.3, 0.3 }} }},\n\
             {{ name = \"R\", hip = vec3(-0.2, 0, 0), rest = vec3(-0.45, -0.35, 0), segments = {{ 0.3, 0.3 }} }},\n\
           }},\n\
           gait = {{ groups = {{ {{ \"L\" }}, {{ \"R\" }} }}, min_grounded = 1 }},\n\
           {sounds} }}"
    )
}

/// A mod `name` whose one toner (with `sounds = …`) walks +x at 1 m/s from x = `from_x`
/// along z = 3, past the camera at (0, 1.5, -3), on a 40 m ground with `level` on it.
fn toner_walk(dir: &Path, name: &str, sounds: &str, from_x: f32, level: &str) -> PathBuf {
    temp_mod(
        dir,
        name,
        &[(
            "main.lua",
            &(toner(sounds)
                + &format!(
                    "\nbehaviour.define {{ name = \"pass\", on_update = function(self) self:move(vec3(1, 0, 0), 1.0) end }}\n\
                     world.ground {{ size = vec3(40, 0, 40) }}\n\
                     {level}\n\
                     world.spawn(\"toner\", {{ position = vec3({from_x}, 0, 3), behaviour = \"pass\" }})\n\
                     camera.look(vec3(0, 1.5, -3), vec3(0, 0.3, 3))\n"
                )),
        )],
    )
}

#[test]
fn a_mods_own_sound_files_are_heard_and_bad_ones_say_what_is_wrong() {
    let dir = tempfile::tempdir().expect("tmp");
    // A type that steps with a 600 Hz tone (a 22 050 Hz file: resampled to the mix).
    let own = toner_walk(
        dir.path(),
        "tone",
        "sounds = { step = { \"assets/tone.wav\" }, lift = \"assets/tone.wav\" }",
        -3.0,
        "",
    );
    sine_wav(&own.join("assets/tone.wav"), 600.0, 120, 22_050);
    let (t, s, plants, _) = heard(
        dir.path(),
        "tone",
        300,
        &[bundled("spider"), fixture("walkers"), own],
        "1",
    );
    assert!(plants.len() > 10, "{t}");
    let steps = onsets(&s, 0.3);
    assert!(steps.len() >= 4, "{t}");
    // The file's tone, at the pitch the mix gives a 5 kg body (0.92..1.08 of it): 600 Hz is
    // 1 200 crossings a second; the bundled step is noise, several thousand.
    let end = s.len() as f64 / 2.0 / 48_000.0;
    for (at, _, _) in steps.iter().filter(|(at, _, _)| at + 0.05 < end) {
        let z = crossings(&s, *at + 0.005, 40.0);
        assert!(
            (1000.0..1400.0).contains(&z),
            "{z:.0} crossings a second at {at:.3} s"
        );
    }
    // Bad files: each error names the kind, the file and what is wrong; the world runs on.
    let cases: [(&str, Vec<u8>, &str); 4] = [
        ("empty.wav", Vec::new(), "the file is empty"),
        (
            "text.wav",
            b"this is not a sound".to_vec(),
            "not a sound file skitter reads",
        ),
        (
            "huge.wav",
            vec![0u8; 1_200_000],
            "1.2 MB, over the 1.0 MB limit (--max-asset-mb)",
        ),
        (
            "cut.wav",
            {
                let p = dir.path().join("whole.wav");
                sine_wav(&p, 440.0, 200, 48_000);
                let mut b = std::fs::read(&p).expect("read");
                b.truncate(44);
                b
            },
            "no audio in it",
        ),
    ];
    for (i, (file, bytes, want)) in cases.into_iter().enumerate() {
        let name = format!("bad{i}");
        let m = temp_mod(
            dir.path(),
            &name,
            &[(
                "main.lua",
                &format!(
                    "world.ground {{ size = vec3(10, 0, 10) }}\n\
                     creature.define {{ name = \"x\", legs = {{ {{ name = \"a\", hip = vec3(0.1, 0, 0), rest = vec3(0.3, -0.35, 0), segments = {{ 0.25, 0.25 }} }}, {{ name = \"b\", hip = vec3(-0.1, 0, 0), rest = vec3(-0.3, -0.35, 0), segments = {{ 0.25, 0.25 }} }} }}, sounds = {{ step = {{ \"assets/{file}\" }} }} }}\n"
                ),
            )],
        );
        std::fs::create_dir_all(m.join("assets")).expect("mkdir");
        std::fs::write(m.join("assets").join(file), bytes).expect("write");
        let o = ticks_beside_walkers(&m, 5, &["--max-asset-mb", "1"]);
        let t = text(&o);
        assert!(
            t.contains(&format!(
                "{name}/main.lua:2: creature.define: sounds.step[1]: assets/{file}: {want}"
            )),
            "{file}: {t}"
        );
        assert!(t.contains("skitter: ran 5 ticks"), "{t}");
    }
    // A path out of the mod folder is refused before anything is read.
    let m = temp_mod(
        dir.path(),
        "out",
        &[("main.lua", "creature.define { name = \"y\", legs = { { name = \"a\", hip = vec3(0.1, 0, 0), rest = vec3(0.3, -0.35, 0), segments = { 0.25, 0.25 } }, { name = \"b\", hip = vec3(-0.1, 0, 0), rest = vec3(-0.3, -0.35, 0), segments = { 0.25, 0.25 } } }, sounds = { hit = \"../whole.wav\" } }\n")],
    );
    let o = ticks_beside_walkers(&m, 2, &[]);
    let t = text(&o);
    assert!(t.contains("out/main.lua:1: creature.define: sounds.hit[1]: ../whole.wav: \"../whole.wav\" leaves the mod folder"), "{t}");
}

#[test]
fn feet_on_a_tagged_surface_take_its_sounds() {
    let dir = tempfile::tempdir().expect("tmp");
    // 600 Hz steps on the plain ground, 300 Hz ones on a stone floor from x = 0 on.
    let m = toner_walk(
        dir.path(),
        "floors",
        "sounds = { step = \"assets/high.wav\", by_surface = { stone = { step = { \"assets/low.wav\" } } } }",
        -4.0,
        "world.box { position = vec3(6, 0.01, 3), size = vec3(12, 0.02, 4), surface = \"stone\" }",
    );
    sine_wav(&m.join("assets/high.wav"), 600.0, 120, 48_000);
    sine_wav(&m.join("assets/low.wav"), 300.0, 120, 48_000);
    let (t, s, _, _) = heard(
        dir.path(),
        "floors",
        480,
        &[bundled("spider"), fixture("walkers"), m],
        "1",
    );
    let end = s.len() as f64 / 2.0 / 48_000.0;
    let tones: Vec<(f64, f64)> = onsets(&s, 0.3)
        .into_iter()
        .filter(|(at, _, _)| at + 0.05 < end)
        .map(|(at, _, _)| (at, crossings(&s, at + 0.005, 40.0)))
        .collect();
    let high: Vec<f64> = tones
        .iter()
        .filter(|(_, z)| (1000.0..1400.0).contains(z))
        .map(|(t, _)| *t)
        .collect();
    let low: Vec<f64> = tones
        .iter()
        .filter(|(_, z)| (480.0..720.0).contains(z))
        .map(|(t, _)| *t)
        .collect();
    assert!(high.len() >= 3 && low.len() >= 3, "{tones:?}\n{t}");
    assert_eq!(
        high.len() + low.len(),
        tones.len(),
        "every step one of the two: {tones:?}"
    );
    // On the plain ground first, then on the stone.
    let last_high = high.iter().copied().fold(0.0, f64::max);
    let first_low = low.iter().copied().fold(f64::MAX, f64::min);
    assert!(last_high < first_low, "{tones:?}");
}

/// A toner walking off a ledge `height` m high with a 300 Hz `land` sound: when its feet
/// came down (s), and the land tones heard (when, peak).
fn off_a_ledge(dir: &Path, height: f32) -> (f64, Vec<(f64, f64)>, String) {
    let name = format!("lander{}", (height * 10.0) as u32);
    let own = temp_mod(
        dir,
        &name,
        &[(
            "main.lua",
            &(toner("sounds = { land = \"assets/land.wav\" }") + &format!("\n\
             behaviour.define {{ name = \"pass\", on_update = function(self) self:move(vec3(1, 0, 0), 1.0) end }}\n\
             world.ground {{ size = vec3(40, 0, 40) }}\n\
             world.box {{ position = vec3(-2, {}, 3), size = vec3(4, {height}, 3) }}\n\
             world.spawn(\"toner\", {{ position = vec3(-1.2, {height}, 3), behaviour = \"pass\" }})\n\
             camera.look(vec3(0, 1.5, -3), vec3(0, 0.3, 3))\n", height / 2.0)),
        )],
    );
    sine_wav(&own.join("assets/land.wav"), 300.0, 200, 48_000);
    let (t, s, _, _) = heard(
        dir,
        &name,
        240,
        &[bundled("spider"), fixture("walkers"), own],
        "1",
    );
    // When it came down: the first frame, once below the ledge's top, with every foot down.
    let trace = std::fs::read_to_string(dir.join(format!("{name}.jsonl"))).expect("trace");
    let mut fell = false;
    let mut landed = None;
    for line in trace.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("json");
        let Some(feet) = v["feet"].as_array() else {
            continue;
        };
        let y = v["pos"][1].as_f64().unwrap_or(0.0);
        fell |= y < height as f64 * 0.75 && v["falling"].as_bool() == Some(true);
        if fell && feet.iter().all(|f| f["grounded"].as_bool() == Some(true)) {
            landed = v["frame"].as_u64();
            break;
        }
    }
    let landed = landed.unwrap_or_else(|| panic!("it never landed\n{t}")) as f64 / 60.0;
    // The land tone: 300 Hz, 600 crossings a second (a little more with a lift's scrape
    // under it); the steps are the bundled noise (thousands).
    let tones = onsets(&s, 0.05)
        .into_iter()
        .filter(|o| (450.0..1000.0).contains(&crossings(&s, o.0 + 0.01, 60.0)))
        .map(|o| (o.0, o.1.max(o.2)))
        .collect();
    (landed, tones, t)
}

/// A body coming down on its feet (here off a ledge) is heard as its type's `land` sound,
/// once, at the tick it lands; louder from higher.
#[test]
fn a_fall_onto_the_feet_sounds_the_types_land_sound_when_it_lands_louder_from_higher() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut peaks = Vec::new();
    for height in [1.0, 2.0] {
        let (landed, tones, t) = off_a_ledge(dir.path(), height);
        assert_eq!(
            tones.len(),
            1,
            "off {height} m: land tones at {tones:?}; landed at {landed:.3} s\n{t}"
        );
        assert!(
            (tones[0].0 - landed).abs() <= 1.5 / 60.0,
            "off {height} m: heard at {:.3} s, landed at {landed:.3} s",
            tones[0].0
        );
        peaks.push(tones[0].1);
    }
    assert!(
        peaks[1] > peaks[0] * 1.2,
        "off 2 m {} against off 1 m {}",
        peaks[1],
        peaks[0]
    );
}

/// Saving a type's sound file reloads it in place: the creature stays where it is with its
/// id, its type steps with the new file; a broken save names the file and keeps the last
/// good sounds.
#[test]
fn a_saved_sound_file_reloads_in_place_and_a_broken_one_keeps_the_last_good() {
    use skitter::script::{HostOptions, ScriptHost};
    use std::collections::BTreeMap;
    let dir = tempfile::tempdir().expect("tmp");
    let own = toner_walk(
        dir.path(),
        "tone",
        "sounds = { step = \"assets/tone.wav\" }",
        -3.0,
        "",
    );
    let file = own.join("assets/tone.wav");
    sine_wav(&file, 600.0, 120, 48_000);
    let mut host = ScriptHost::new(HostOptions::default());
    host.load(&[bundled("spider"), fixture("walkers"), own.clone()]);
    assert!(host.take_errors().is_empty());
    for _ in 0..30 {
        host.tick();
    }
    // The creature, and the crossings a second of its type's step sound.
    let now = |host: &ScriptHost| {
        let w = host.world();
        let c = w
            .creatures()
            .iter()
            .find(|c| {
                w.creature_type(c.type_id)
                    .is_some_and(|t| t.name.ends_with("toner"))
            })
            .expect("the toner");
        let sounds = w
            .creature_type(c.type_id)
            .and_then(|t| t.sounds.clone())
            .expect("its sounds");
        let s = &sounds.step[0];
        let flips = s
            .windows(2)
            .filter(|w| (w[0] >= 0.0) != (w[1] >= 0.0))
            .count();
        (
            c.id,
            c.loco.position,
            flips as f64 / (s.len() as f64 / 48_000.0),
        )
    };
    let (id, at, hz600) = now(&host);
    assert!((1100.0..1300.0).contains(&hz600), "{hz600}");
    let changed = BTreeMap::from([("tone".to_string(), vec![PathBuf::from("assets/tone.wav")])]);
    // Saved as a 300 Hz tone: reloaded, the same creature where it was.
    sine_wav(&file, 300.0, 120, 48_000);
    let r = host.reload(&changed);
    assert!(r.len() == 1 && r[0].ok, "{r:?}");
    let (id2, at2, hz300) = now(&host);
    assert_eq!(id2, id);
    assert!(at2.distance(at) < 0.05, "moved on reload: {at} -> {at2}");
    assert!((550.0..650.0).contains(&hz300), "{hz300}");
    // A broken save: the reload fails naming the file; the 300 Hz step stays.
    std::fs::write(&file, b"RIFF\x10\x00\x00\x00WAVEfmt ").expect("write");
    let r = host.reload(&changed);
    let err = r[0]
        .error
        .as_ref()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(!r[0].ok && err.contains("assets/tone.wav"), "{r:?}");
    let (id3, _, kept) = now(&host);
    assert_eq!(id3, id);
    assert_eq!(kept, hz300, "the last good sound must stay");
    for _ in 0..30 {
        host.tick();
    }
}

/// A type's `volume` curve (level by how fast a foot came down) and `pitch` curve (rate by
/// the body's mass) replace the bundled ones; a value that is no curve says so.
#[test]
fn a_types_volume_and_pitch_curves_set_its_footfalls_level_and_rate() {
    let dir = tempfile::tempdir().expect("tmp");
    let run = |name: &str, curves: &str| {
        let sounds = format!(
            "sounds = {{ step = \"assets/tone.wav\", lift = \"assets/hush.wav\", {curves} }}"
        );
        let own = toner_walk(dir.path(), name, &sounds, -3.0, "");
        sine_wav(&own.join("assets/tone.wav"), 600.0, 120, 48_000);
        // Lifts (with the other foot's plants, for a biped) silent: the tone alone.
        let spec = hound::WavSpec {
            channels: 1,
            sample_rate: 48_000,
            bits_per_sample: 16,
            sample_format: hound::SampleFormat::Int,
        };
        let mut hush = hound::WavWriter::create(own.join("assets/hush.wav"), spec).expect("wav");
        for _ in 0..480 {
            hush.write_sample(0i16).expect("sample");
        }
        hush.finalize().expect("finalize");
        let (t, s, plants, _) = heard(
            dir.path(),
            name,
            240,
            &[bundled("spider"), fixture("walkers"), own],
            "1",
        );
        // The footfalls' onsets (not the lifts' bundled scrape): how loud, how high.
        let tones: Vec<(f64, f64, f64)> = onsets(&s, 0.02)
            .into_iter()
            .filter(|o| {
                plants
                    .iter()
                    .any(|f| (*f as f64 / 60.0 - o.0).abs() < 0.012)
            })
            .map(|(at, l, r)| (at, l.max(r), crossings(&s, at + 0.005, 40.0)))
            .collect();
        assert!(tones.len() >= 4, "{name}: {tones:?}\n{t}");
        tones
    };
    let quiet = run("quiet", "volume = curve{ {0, 0.2}, {10, 0.2} }");
    let loud_high = run(
        "loudhigh",
        "volume = 0.4, pitch = curve{ {1, 2}, {100, 2} }",
    );
    let mean = |v: &[(f64, f64, f64)], f: fn(&(f64, f64, f64)) -> f64| {
        v.iter().map(f).sum::<f64>() / v.len() as f64
    };
    let (z1, z2) = (mean(&quiet, |o| o.2), mean(&loud_high, |o| o.2));
    assert!((1000.0..1400.0).contains(&z1), "{z1}");
    assert!(
        (1.8..2.2).contains(&(z2 / z1)),
        "pitch 2: {z2} against {z1}"
    );
    let (p1, p2) = (mean(&quiet, |o| o.1), mean(&loud_high, |o| o.1));
    assert!(
        (1.6..2.4).contains(&(p2 / p1)),
        "volume twice: {p2} against {p1}"
    );
    // Not a curve: the error names the field.
    let bad = temp_mod(
        dir.path(),
        "badcurve",
        &[("main.lua", &toner("sounds = { volume = \"loud\" }"))],
    );
    let o = skitter(&[
        "check",
        &bundled("spider").display().to_string(),
        &fixture("walkers").display().to_string(),
        &bad.display().to_string(),
    ]);
    let t = text(&o);
    assert!(
        t.contains("badcurve/main.lua:")
            && t.contains("sounds.volume must be a curve (curve{...}), got string"),
        "{t}"
    );
}

/// The bundled mods' sound files are made by the project's generator (`audio::synth`), not
/// borrowed: each file is byte for byte what it makes, and there is no other.
/// `SKITTER_BLESS=1 cargo test --release --test audio bundled` writes them.
#[test]
fn the_bundled_mods_sound_files_are_what_the_generator_makes() {
    use skitter::audio::synth;
    let scripts = bundled("spider").parent().expect("scripts").to_path_buf();
    let bless = std::env::var_os("SKITTER_BLESS").is_some();
    let made = synth::bundled_files();
    for f in &made {
        let path = scripts.join(f.mod_name).join(&f.file);
        let want = synth::wav_bytes(&f.samples).expect("a WAV");
        if bless {
            std::fs::create_dir_all(path.parent().expect("dir")).expect("mkdir");
            std::fs::write(&path, &want).expect("write");
        }
        let got = std::fs::read(&path).unwrap_or_default();
        assert!(
            got == want,
            "{} is not what the generator makes: SKITTER_BLESS=1 cargo test --release --test audio bundled",
            path.display()
        );
    }
    // No sound file in a bundled mod that the generator did not make.
    for m in std::fs::read_dir(&scripts).expect("scripts") {
        let sounds = m.expect("entry").path().join("assets/sounds");
        let Ok(files) = std::fs::read_dir(&sounds) else {
            continue;
        };
        for f in files {
            let p = f.expect("entry").path();
            assert!(
                made.iter()
                    .any(|b| scripts.join(b.mod_name).join(&b.file) == p),
                "{} is not the generator's",
                p.display()
            );
        }
    }
}

/// A mod named by a relative path (`skitter check scripts/spider`, from the project's
/// folder) reads its sound files from inside itself, as an absolute one does.
#[test]
fn sound_files_load_from_a_mod_given_by_a_relative_path() {
    let spider = bundled("spider");
    let root = spider
        .parent()
        .and_then(|p| p.parent())
        .expect("the project");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_skitter"))
        .current_dir(root)
        .args(["check", "scripts/spider"])
        .output()
        .expect("runs");
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(t.contains("assets/sounds/step1.wav (sound)"), "{t}");
}

/// A definition run from another mod (`require("@kit/toner")`) reads the sound files beside
/// it, in its own mod's folder, not the requiring mod's.
#[test]
fn a_required_definition_reads_its_sounds_from_its_own_mod() {
    let dir = tempfile::tempdir().expect("tmp");
    let kit = temp_mod(
        dir.path(),
        "kit",
        &[
            ("mod.toml", "name = \"kit\"\nversion = \"0.1.0\"\n"),
            ("main.lua", "-- types for others to require\n"),
            (
                "toner.lua",
                &toner("sounds = { step = \"assets/tone.wav\" }")
                    .replace("creature.define", "return creature.define"),
            ),
        ],
    );
    sine_wav(&kit.join("assets/tone.wav"), 600.0, 120, 48_000);
    let user = temp_mod(
        dir.path(),
        "user",
        &[
            (
                "mod.toml",
                "name = \"user\"\nversion = \"0.1.0\"\ndepends = [\"kit\"]\n",
            ),
            ("main.lua", "require(\"@kit/toner\")\n"),
        ],
    );
    let o = skitter(&[
        "check",
        &kit.display().to_string(),
        &user.display().to_string(),
    ]);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(t.contains("defines: types user/toner"), "{t}");
}
