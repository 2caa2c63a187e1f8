//! Mod folder watching for hot reload: every loaded mod's folder, recursively, through a
//! short debouncer (an editor's save is often several writes); changes come back grouped
//! by mod, only for the files a mod is made of (`.lua`, `.luau`, `mod.toml`,
//! `paths/*.toml`, and model files, buffers, textures and sounds under `assets/`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc::Receiver;
use std::time::Duration;

use notify_debouncer_mini::notify::{RecommendedWatcher, RecursiveMode};
use notify_debouncer_mini::{new_debouncer, DebounceEventResult, Debouncer};

/// Quiet time after the last write before a change is reported.
pub(super) const DEBOUNCE: Duration = Duration::from_millis(10);

/// Watches mod folders.
pub(super) struct ModWatcher {
    _debouncer: Debouncer<RecommendedWatcher>,
    rx: Receiver<DebounceEventResult>,
    /// (mod, canonical folder), longest folder first so nested mods match first.
    dirs: Vec<(String, PathBuf)>,
    /// Modification time and length of every mod file last seen: reading a file (a reload
    /// does) raises events too, but only a real change counts.
    seen: std::cell::RefCell<BTreeMap<PathBuf, Option<(std::time::SystemTime, u64)>>>,
}

fn stamp(p: &Path) -> Option<(std::time::SystemTime, u64)> {
    let m = std::fs::metadata(p).ok()?;
    Some((m.modified().ok()?, m.len()))
}

/// Every mod file ([`is_mod_file`]) under `dir`, 16 folders deep at most.
pub(super) fn mod_files(dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>, depth: usize) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() && depth < 16 {
                walk(&p, out, depth + 1);
            } else if is_mod_file(&p) {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, &mut out, 0);
    out
}

/// Whether a changed path is part of a mod (scripts, the manifest, path files in `paths/`;
/// not editor temp files).
pub(super) fn is_mod_file(p: &Path) -> bool {
    let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if name.starts_with('.') || name.ends_with('~') {
        return false;
    }
    let in_paths = p
        .parent()
        .and_then(|d| d.file_name())
        .is_some_and(|d| d == crate::script::path_file::PATHS_DIR);
    // Model files and their buffers and textures, and sound files, anywhere under `assets/`.
    let in_assets = p.components().any(|c| c.as_os_str() == "assets");
    let lower = name.to_ascii_lowercase();
    let asset = [
        ".gltf", ".glb", ".bin", ".png", ".jpg", ".jpeg", ".wav", ".ogg", ".flac",
    ]
    .iter()
    .any(|x| lower.ends_with(x));
    name == "mod.toml"
        || name.ends_with(".lua")
        || name.ends_with(".luau")
        || (in_paths && name.ends_with(".toml"))
        || (in_assets && asset)
}

/// Why the mod folders cannot be watched.
#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    /// The OS watcher would not start.
    #[error("{0}")]
    Start(notify_debouncer_mini::notify::Error),
    /// A mod folder could not be found or watched.
    #[error("{}: {message}", .dir.display())]
    Folder {
        /// The folder.
        dir: PathBuf,
        /// What went wrong.
        message: String,
    },
}

impl ModWatcher {
    /// Watches each `(mod, folder)`.
    pub(super) fn new(mods: &[(String, PathBuf)]) -> Result<ModWatcher, WatchError> {
        let (tx, rx) = std::sync::mpsc::channel();
        let mut d = new_debouncer(DEBOUNCE, tx).map_err(WatchError::Start)?;
        let mut dirs = Vec::new();
        for (name, dir) in mods {
            let folder = |e: &dyn std::fmt::Display| WatchError::Folder {
                dir: dir.clone(),
                message: e.to_string(),
            };
            let canon = dir.canonicalize().map_err(|e| folder(&e))?;
            d.watcher()
                .watch(&canon, RecursiveMode::Recursive)
                .map_err(|e| folder(&e))?;
            dirs.push((name.clone(), canon));
        }
        dirs.sort_by_key(|(_, d)| std::cmp::Reverse(d.as_os_str().len()));
        let seen = dirs
            .iter()
            .flat_map(|(_, d)| mod_files(d))
            .map(|p| {
                let st = stamp(&p);
                (p, st)
            })
            .collect();
        Ok(ModWatcher {
            _debouncer: d,
            rx,
            dirs,
            seen: std::cell::RefCell::new(seen),
        })
    }

    /// Mod files changed since the last call, by mod (paths relative to the mod folder).
    pub(super) fn poll(&self) -> BTreeMap<String, Vec<PathBuf>> {
        let mut out: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
        while let Ok(ev) = self.rx.try_recv() {
            let Ok(events) = ev else { continue };
            for e in events {
                if !is_mod_file(&e.path) {
                    continue;
                }
                let path = e.path.canonicalize().unwrap_or(e.path.clone());
                let now = stamp(&path);
                // An empty file is a save in progress (truncated, not yet written): saving
                // it would reload an empty mod and despawn its creatures. Its content's
                // write comes as a change of its own.
                if now.is_some_and(|(_, len)| len == 0) {
                    continue;
                }
                let mut seen = self.seen.borrow_mut();
                if seen.get(&path) == Some(&now) {
                    continue;
                }
                seen.insert(path.clone(), now);
                drop(seen);
                if let Some((name, dir)) = self.dirs.iter().find(|(_, d)| path.starts_with(d)) {
                    let rel = path.strip_prefix(dir).unwrap_or(&path).to_path_buf();
                    let files = out.entry(name.clone()).or_default();
                    if !files.contains(&rel) {
                        files.push(rel);
                    }
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mod_files_are_scripts_and_the_manifest() {
        for ok in [
            "main.lua",
            "brains/x.luau",
            "mod.toml",
            "paths/route.toml",
            "assets/spider.glb",
            "assets/fox/fox.gltf",
            "assets/fox/fox.bin",
            "assets/skin.PNG",
            "assets/step1.wav",
            "assets/sfx/thud.OGG",
            "assets/land.flac",
        ] {
            assert!(is_mod_file(Path::new(ok)), "{ok}");
        }
        for no in [
            ".main.lua.swp",
            "main.lua~",
            "notes.txt",
            "4913",
            "main.lua.tmp",
            "notes.toml",
            "paths/.skitter-abc.tmp",
            "assets/.spider.glb.swp",
            "assets/notes.txt",
            "spider.glb",
        ] {
            assert!(!is_mod_file(Path::new(no)), "{no}");
        }
    }

    /// Polls until the watcher reports something (two seconds at most).
    fn first_change(w: &ModWatcher) -> BTreeMap<String, Vec<PathBuf>> {
        for _ in 0..200 {
            let got = w.poll();
            if !got.is_empty() {
                return got;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        BTreeMap::new()
    }

    #[test]
    fn a_save_is_reported_for_its_mod() {
        let dir = tempfile::tempdir().expect("tmp");
        let m = dir.path().join("m");
        std::fs::create_dir_all(m.join("brains")).expect("mkdir");
        std::fs::write(m.join("main.lua"), "return 0").expect("write");
        let w = ModWatcher::new(&[("m".to_string(), m.clone())]).expect("watch");
        std::fs::write(m.join("brains/b.lua"), "return 1").expect("write");
        std::fs::write(m.join("notes.txt"), "x").expect("write");
        // Reading a file is not a change.
        std::fs::read_to_string(m.join("main.lua")).expect("read");
        assert_eq!(
            first_change(&w).get("m"),
            Some(&vec![PathBuf::from("brains/b.lua")])
        );
        std::thread::sleep(Duration::from_millis(60));
        let later = w.poll();
        assert!(later.is_empty(), "only changes count: {later:?}");
        // A save caught half-way (truncated, still empty) is not a change; its content is.
        std::fs::write(m.join("main.lua"), "").expect("truncate");
        std::thread::sleep(Duration::from_millis(60));
        assert!(w.poll().is_empty(), "an empty file is a save in progress");
        std::fs::write(m.join("main.lua"), "return 2").expect("write");
        assert_eq!(
            first_change(&w).get("m"),
            Some(&vec![PathBuf::from("main.lua")])
        );
    }
}
