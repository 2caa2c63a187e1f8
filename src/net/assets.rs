//! Mods' assets across machines, by content hash. The server lists the files its mods'
//! models draw on (mod, path → SHA-256, size): found by walking each mod's folder, never
//! named by a viewer, so a viewer can only ever be sent a file the manifest holds. A viewer
//! keeps what it fetched in a cache folder keyed by hash — a second join moves no asset
//! bytes — and lays a mod's files out again (a folder per mod and content) to load its
//! models from, with the same sandboxed loader the server used.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// Files a model may draw on: the model, its buffers, its images.
const EXTENSIONS: [&str; 6] = ["glb", "gltf", "bin", "png", "jpg", "jpeg"];
/// Most folders deep, and most files, a mod's walk takes.
const MAX_DEPTH: usize = 8;
const MAX_FILES: usize = 4096;

/// One file of the manifest.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct AssetEntry {
    pub(crate) mod_name: String,
    /// Relative to the mod's folder, `/`-separated.
    pub(crate) path: String,
    pub(crate) hash: [u8; 32],
    pub(crate) size: u64,
}

pub(crate) fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

pub(crate) fn hex(hash: &[u8; 32]) -> String {
    hash.iter().map(|b| format!("{b:02x}")).collect()
}

/// The manifest of `mods` (name, folder): every model, buffer and image file in each folder
/// (no links followed, none over `max_bytes`), with the file each hash is read from.
pub(crate) fn manifest(
    mods: &[(String, PathBuf)],
    max_bytes: u64,
) -> (Vec<AssetEntry>, BTreeMap<[u8; 32], PathBuf>) {
    let mut entries = Vec::new();
    let mut files = BTreeMap::new();
    for (name, root) in mods {
        let mut found = Vec::new();
        walk(root, root, 0, &mut found);
        found.sort();
        for (rel, full) in found {
            let Ok(bytes) = std::fs::read(&full) else {
                continue;
            };
            if bytes.len() as u64 > max_bytes {
                continue;
            }
            let hash = sha256(&bytes);
            entries.push(AssetEntry {
                mod_name: name.clone(),
                path: rel,
                hash,
                size: bytes.len() as u64,
            });
            files.insert(hash, full);
        }
    }
    (entries, files)
}

fn walk(root: &Path, dir: &Path, depth: usize, out: &mut Vec<(String, PathBuf)>) {
    let Ok(read) = std::fs::read_dir(dir) else {
        return;
    };
    for e in read.flatten() {
        if out.len() >= MAX_FILES {
            return;
        }
        let Ok(kind) = e.file_type() else { continue };
        let path = e.path();
        let hidden = e.file_name().to_string_lossy().starts_with('.');
        if kind.is_symlink() || hidden {
            continue;
        }
        if kind.is_dir() && depth < MAX_DEPTH {
            walk(root, &path, depth + 1, out);
        } else if kind.is_file() {
            let ext = path
                .extension()
                .map(|x| x.to_string_lossy().to_ascii_lowercase())
                .unwrap_or_default();
            if !EXTENSIONS.contains(&ext.as_str()) {
                continue;
            }
            let Ok(rel) = path.strip_prefix(root) else {
                continue;
            };
            let rel: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            out.push((rel.join("/"), path));
        }
    }
}

/// A viewer's asset cache: a folder of files named by their hash.
#[derive(Clone, Debug)]
pub(crate) struct Cache {
    dir: PathBuf,
}

impl Cache {
    pub(crate) fn new(dir: PathBuf) -> Cache {
        Cache { dir }
    }

    /// The default cache folder: `$SKITTER_CACHE`, else `$XDG_CACHE_HOME/skitter`, else
    /// `~/.cache/skitter`, else one in the system's temporary folder.
    pub(crate) fn default_dir() -> PathBuf {
        let var = |k: &str| {
            std::env::var_os(k)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        var("SKITTER_CACHE")
            .or_else(|| var("XDG_CACHE_HOME").map(|d| d.join("skitter")))
            .or_else(|| var("HOME").map(|h| h.join(".cache").join("skitter")))
            .unwrap_or_else(|| std::env::temp_dir().join("skitter-cache"))
    }

    fn file(&self, hash: &[u8; 32]) -> PathBuf {
        self.dir.join("assets").join(hex(hash))
    }

    /// Holds this hash (its file there and of the right content length).
    pub(crate) fn has(&self, e: &AssetEntry) -> bool {
        std::fs::metadata(self.file(&e.hash)).is_ok_and(|m| m.len() == e.size)
    }

    /// Stores bytes that hash to `hash` (checked): written aside, then renamed in.
    pub(crate) fn put(&self, hash: &[u8; 32], bytes: &[u8]) -> io::Result<()> {
        if sha256(bytes) != *hash {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("asset {} arrived with other content", hex(hash)),
            ));
        }
        let dir = self.dir.join("assets");
        std::fs::create_dir_all(&dir)?;
        let mut tmp = tempfile::NamedTempFile::new_in(&dir)?;
        io::Write::write_all(&mut tmp, bytes)?;
        tmp.persist(self.file(hash)).map_err(|e| e.error)?;
        Ok(())
    }

    /// A folder holding mod `name`'s files as the manifest lists them, laid out from the
    /// cache (a folder per mod and content, made once). `None` while one is missing.
    pub(crate) fn mod_folder(
        &self,
        name: &str,
        entries: &[AssetEntry],
    ) -> io::Result<Option<PathBuf>> {
        let mine: Vec<&AssetEntry> = entries.iter().filter(|e| e.mod_name == name).collect();
        if mine.iter().any(|e| !self.has(e)) {
            return Ok(None);
        }
        let mut h = Sha256::new();
        for e in &mine {
            h.update(e.path.as_bytes());
            h.update(e.hash);
        }
        let key: [u8; 32] = h.finalize().into();
        let safe: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let dir = self
            .dir
            .join("mods")
            .join(format!("{safe}-{}", &hex(&key)[..16]));
        for e in &mine {
            // Paths come from the server: each part a plain name (no `..`, no root).
            let parts: Vec<&str> = e.path.split('/').collect();
            if parts.iter().any(|p| {
                p.is_empty() || *p == "." || *p == ".." || p.contains('\\') || p.contains(':')
            }) {
                continue;
            }
            let to = parts.iter().fold(dir.clone(), |d, p| d.join(p));
            if std::fs::metadata(&to).is_ok_and(|m| m.len() == e.size) {
                continue;
            }
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::copy(self.file(&e.hash), &to)?;
        }
        Ok(Some(dir))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_manifest_lists_model_files_only_and_the_cache_lays_them_out_again() {
        let dir = tempfile::tempdir().expect("tmp");
        let m = dir.path().join("m");
        std::fs::create_dir_all(m.join("assets/tex")).expect("mkdir");
        std::fs::write(m.join("main.lua"), "-- code never travels").expect("w");
        std::fs::write(m.join("assets/a.glb"), b"glTF....").expect("w");
        std::fs::write(m.join("assets/tex/skin.PNG"), b"png bytes").expect("w");
        std::fs::write(m.join("mod.toml"), "name = \"m\"").expect("w");
        let (entries, files) = manifest(&[("m".into(), m.clone())], 1 << 20);
        let paths: Vec<&str> = entries.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(paths, ["assets/a.glb", "assets/tex/skin.PNG"]);
        assert_eq!(files.len(), 2);
        let cache = Cache::new(dir.path().join("cache"));
        assert_eq!(cache.mod_folder("m", &entries).expect("io"), None);
        assert!(cache.put(&entries[0].hash, b"not the same").is_err());
        for e in &entries {
            cache
                .put(&e.hash, &std::fs::read(&files[&e.hash]).expect("r"))
                .expect("put");
        }
        let laid = cache
            .mod_folder("m", &entries)
            .expect("io")
            .expect("complete");
        assert_eq!(
            std::fs::read(laid.join("assets/tex/skin.PNG")).expect("r"),
            b"png bytes"
        );
        // A path that climbs out is never written.
        let mut evil = entries[0].clone();
        evil.path = "../../escape.glb".into();
        evil.mod_name = "m".into();
        let laid = cache
            .mod_folder("m", &[evil])
            .expect("io")
            .expect("complete");
        assert!(!laid
            .parent()
            .expect("p")
            .parent()
            .expect("p")
            .join("escape.glb")
            .exists());
    }
}
