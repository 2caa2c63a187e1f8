//! Mod packages (issue 48, item 5): `skitter pack` writes NAME-VERSION.zip with each file's
//! SHA-256 and nothing a mod does not need; `run`/`check` take the .zip and give the same
//! trace as the folder; `install` puts it in the user mods folder; a battery of hostile
//! archives is refused, each with its reason, nothing unpacked.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::*;

/// Runs skitter with its package cache (and user data) inside `home`.
fn sk(home: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_skitter"))
        .args(args)
        .current_dir(root())
        .env("XDG_CACHE_HOME", home.join("cache"))
        .env("XDG_DATA_HOME", home.join("data"))
        .output()
        .expect("skitter runs")
}

fn s(p: &Path) -> String {
    p.display().to_string()
}

/// Packs `dir` into `out`; returns the archive.
fn pack(home: &Path, dir: &Path, out: &Path) -> PathBuf {
    let o = sk(home, &["pack", &s(dir), "--out", &s(out)]);
    assert!(o.status.success(), "{}", text(&o));
    let line = String::from_utf8_lossy(&o.stdout).into_owned();
    let zip = line
        .lines()
        .find_map(|l| l.split(" into ").nth(1))
        .expect("says where");
    PathBuf::from(zip.trim())
}

#[test]
fn a_packed_mod_runs_as_its_folder_does_and_leaves_out_what_it_does_not_need() {
    let home = tempfile::tempdir().expect("tmp");
    let h = home.path();
    let out = h.join("out");
    // A mod with the clutter a working folder has.
    let m = h.join("src/critters");
    copy_dir(&bundled("demo"), &m);
    std::fs::write(
        m.join("mod.toml"),
        std::fs::read_to_string(m.join("mod.toml"))
            .unwrap()
            .replace("name = \"demo\"", "name = \"critters\""),
    )
    .unwrap();
    for (f, text) in [
        (".git/config", "[core]"),
        (".vscode/settings.json", "{}"),
        ("main.lua.swp", "swap"),
        ("notes.txt~", "backup"),
        ("defs/skitter.d.luau", "declare world: any"),
        ("defs/skitter.lua", "---@meta\nworld = {}"),
        ("old-0.0.1.zip", "PK"),
        ("assets/readme.txt", "kept"),
    ] {
        let p = m.join(f);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let zip = pack(h, &m, &out);
    assert_eq!(zip.file_name().unwrap(), "critters-0.1.0.zip");
    let mut archive = zip::ZipArchive::new(std::fs::File::open(&zip).unwrap()).unwrap();
    let names: Vec<String> = (0..archive.len())
        .map(|i| archive.by_index(i).unwrap().name().unwrap().to_string())
        .collect();
    assert!(
        names.contains(&"critters/package.toml".to_string()),
        "{names:?}"
    );
    assert!(
        names.contains(&"critters/main.lua".to_string()),
        "{names:?}"
    );
    assert!(
        names.contains(&"critters/assets/readme.txt".to_string()),
        "{names:?}"
    );
    for gone in [".git", ".vscode", ".swp", "~", "defs/", "old-0.0.1.zip"] {
        assert!(
            !names.iter().any(|n| n.contains(gone)),
            "{gone} packed: {names:?}"
        );
    }
    // The same folder packs to the same bytes.
    let again = pack(h, &m, &h.join("again"));
    assert!(std::fs::read(&zip).unwrap() == std::fs::read(&again).unwrap());

    // The package runs as the folder does: the same trace (its dependencies found in both).
    let run = |what: &Path, trace: &Path| {
        let o = sk(
            h,
            &[
                "run",
                "--headless",
                "--frames",
                "120",
                "--trace",
                &s(trace),
                &s(what),
            ],
        );
        assert!(o.status.success(), "{}", text(&o));
        std::fs::read(trace).unwrap()
    };
    let (a, b) = (run(&m, &h.join("a.jsonl")), run(&zip, &h.join("b.jsonl")));
    assert!(a.len() > 10_000);
    assert!(a == b, "the package's trace differs from its folder's");
    // `check` says it came from the package and what it will do.
    let c = sk(h, &["check", &s(&zip)]);
    assert!(c.status.success(), "{}", text(&c));
    let said = text(&c);
    assert!(
        said.contains("mod critters 0.1.0: ")
            && said.contains("critters-0.1.0.zip (package, checked"),
        "{said}"
    );
    assert!(said.contains("8 creature(s) spawned"), "{said}");
    assert!(
        said.contains("defines: types spider/spider; behaviours wander"),
        "{said}"
    );
}

#[test]
fn install_puts_a_package_where_dependencies_are_found() {
    let home = tempfile::tempdir().expect("tmp");
    let h = home.path();
    let lib = temp_mod(
        h,
        "src/beetles",
        &[
            (
                "mod.toml",
                "name = \"beetles\"\nversion = \"1.2.0\"\ndepends = [\"spider\"]\n",
            ),
            ("main.lua", "log.info('beetles here')\n"),
        ],
    );
    let zip = pack(h, &lib, &h.join("out"));
    let o = sk(h, &["install", &s(&zip)]);
    assert!(o.status.success(), "{}", text(&o));
    let installed = h.join("data/skitter/mods/beetles-1.2.0");
    assert!(installed.join("mod.toml").is_file(), "{}", text(&o));
    // The mod's files, not the package's manifest (it served the checks).
    assert!(installed.join("main.lua").is_file());
    assert!(!installed.join("package.toml").exists());
    // A mod that needs it runs alone: the dependency is found in the user mods folder.
    let user = temp_mod(
        h,
        "src/garden",
        &[
            (
                "mod.toml",
                "name = \"garden\"\nversion = \"0.1.0\"\ndepends = [\"beetles >= 1.1\"]\n",
            ),
            ("main.lua", "log.info('garden here')\n"),
        ],
    );
    let r = sk(h, &["run", "--headless", "--frames", "2", &s(&user)]);
    assert!(r.status.success(), "{}", text(&r));
    assert!(text(&r).contains("[beetles] beetles here"), "{}", text(&r));
    // A hostile package installs nothing.
    let bad = h.join("bad.zip");
    write_zip(&bad, &[("beetles/../../escape.lua", b"x")]);
    let o = sk(h, &["install", &s(&bad)]);
    assert!(!o.status.success());
    assert!(!h.join("data/skitter/escape.lua").exists());
}

/// Writes a zip of `entries` as given (names unchecked), deflated.
fn write_zip(path: &Path, entries: &[(&str, &[u8])]) {
    let mut z = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    let o = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, bytes) in entries {
        z.start_file(*name, o).unwrap();
        z.write_all(bytes).unwrap();
    }
    z.finish().unwrap();
}

/// A valid package's entries, to tamper with: (name, bytes).
fn entries_of(zip: &Path) -> Vec<(String, Vec<u8>)> {
    let mut a = zip::ZipArchive::new(std::fs::File::open(zip).unwrap()).unwrap();
    (0..a.len())
        .map(|i| {
            let mut f = a.by_index(i).unwrap();
            let mut b = Vec::new();
            std::io::Read::read_to_end(&mut f, &mut b).unwrap();
            (f.name().unwrap().to_string(), b)
        })
        .collect()
}

#[test]
fn hostile_archives_are_refused_each_with_its_reason() {
    let home = tempfile::tempdir().expect("tmp");
    let h = home.path();
    let good = pack(h, &bundled("spider"), &h.join("out"));
    let base = entries_of(&good);
    let with = |extra: &[(&str, &[u8])]| -> Vec<(String, Vec<u8>)> {
        let mut v = base.clone();
        v.extend(extra.iter().map(|(n, b)| (n.to_string(), b.to_vec())));
        v
    };
    let zeros = vec![0u8; 50 << 20];
    type Case<'a> = (&'a str, Vec<(String, Vec<u8>)>, &'a str);
    let mut cases: Vec<Case> = vec![
        (
            "traversal",
            with(&[("spider/../../evil.lua", b"x")]),
            "leaves the mod",
        ),
        (
            "absolute",
            with(&[("/tmp/evil.lua", b"x")]),
            "an absolute path",
        ),
        (
            "outside",
            with(&[("other/evil.lua", b"x")]),
            "outside the mod's folder",
        ),
        (
            "bomb",
            with(&[("spider/assets/big.bin", &zeros)]),
            "a zip bomb",
        ),
        (
            "unlisted",
            with(&[("spider/extra.lua", b"print(1)")]),
            "not listed in the package manifest",
        ),
    ];
    let tampered: Vec<(String, Vec<u8>)> = base
        .iter()
        .map(|(n, b)| {
            let b = if n == "spider/main.lua" {
                [b.as_slice(), b"\nworld.spawn('spider/spider')\n"].concat()
            } else {
                b.clone()
            };
            (n.clone(), b)
        })
        .collect();
    cases.push(("checksum", tampered, "SHA-256 does not match"));
    let missing: Vec<(String, Vec<u8>)> = base
        .iter()
        .filter(|(n, _)| n != "spider/body.lua")
        .cloned()
        .collect();
    cases.push((
        "missing",
        missing,
        "listed in the package manifest but missing",
    ));
    for (name, entries, reason) in &cases {
        let p = h.join(format!("{name}.zip"));
        let refs: Vec<(&str, &[u8])> = entries
            .iter()
            .map(|(n, b)| (n.as_str(), b.as_slice()))
            .collect();
        write_zip(&p, &refs);
        assert_refused(h, &p, reason);
    }
    // A symlink entry.
    let link = h.join("symlink.zip");
    {
        let mut z = zip::ZipWriter::new(std::fs::File::create(&link).unwrap());
        let o = zip::write::SimpleFileOptions::default();
        for (n, b) in &base {
            z.start_file(n.as_str(), o).unwrap();
            z.write_all(b).unwrap();
        }
        z.add_symlink("spider/passwd.lua", "/etc/passwd", o)
            .unwrap();
        z.finish().unwrap();
    }
    assert_refused(h, &link, "a symlink");
    // A duplicate path: two entries renamed alike, byte for byte, in both headers.
    let dup = h.join("duplicate.zip");
    write_zip(
        &dup,
        &[("spider/aaaa.lua", b"1"), ("spider/bbbb.lua", b"2")],
    );
    let bytes = std::fs::read(&dup).unwrap();
    let mut raw = bytes.clone();
    let needle = b"spider/bbbb.lua";
    for i in 0..raw.len() - needle.len() {
        if &raw[i..i + needle.len()] == needle {
            raw[i..i + needle.len()].copy_from_slice(b"spider/aaaa.lua");
        }
    }
    std::fs::write(&dup, raw).unwrap();
    assert_refused(h, &dup, "duplicate");
    // A truncated archive.
    let cut = h.join("truncated.zip");
    let whole = std::fs::read(&good).unwrap();
    std::fs::write(&cut, &whole[..whole.len() / 2]).unwrap();
    assert_refused(h, &cut, "truncated or damaged");
    // Nothing of any of them was unpacked, and the good one still runs beside a bad one.
    let cache = h.join("cache/skitter/packages");
    let unpacked: Vec<_> = std::fs::read_dir(&cache)
        .map(|d| d.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert!(unpacked.is_empty(), "unpacked: {unpacked:?}");
    let r = sk(
        h,
        &[
            "run",
            "--headless",
            "--frames",
            "30",
            &s(&good),
            &s(&h.join("traversal.zip")),
        ],
    );
    assert_eq!(
        r.status.code(),
        Some(1),
        "a mod that did not load: exit 1\n{}",
        text(&r)
    );
    assert!(text(&r).contains("ran 30 ticks"), "{}", text(&r));
}

#[test]
fn a_folder_with_a_symlink_is_not_packed() {
    let home = tempfile::tempdir().expect("tmp");
    let h = home.path();
    let m = temp_mod(
        h,
        "linky",
        &[
            ("mod.toml", "name = \"linky\"\nversion = \"0.1.0\"\n"),
            ("main.lua", ""),
        ],
    );
    std::os::unix::fs::symlink("/etc/hostname", m.join("host.lua")).expect("symlink");
    let o = sk(h, &["pack", &s(&m), "--out", &s(&h.join("out"))]);
    assert!(!o.status.success());
    assert!(text(&o).contains("host.lua: a symlink"), "{}", text(&o));
    assert!(!h.join("out/linky-0.1.0.zip").exists());
}

/// `skitter check ZIP` fails and says `reason`, naming the archive.
fn assert_refused(h: &Path, zip: &Path, reason: &str) {
    let o = sk(h, &["check", &s(zip)]);
    let said = text(&o);
    assert!(
        !o.status.success(),
        "{} was accepted:\n{said}",
        zip.display()
    );
    assert!(
        said.contains(reason),
        "{}: expected \"{reason}\" in\n{said}",
        zip.display()
    );
    assert!(said.contains(&s(zip)), "the archive is named:\n{said}");
}
