//! Mod packages: `skitter pack MOD_DIR` writes `NAME-VERSION.zip` — the mod's folder under
//! `NAME/`, with `NAME/package.toml` listing every file's size and SHA-256, and nothing a
//! mod does not need (no `.git` or other dot-files, editor swap and backup files, editor
//! definitions, earlier packages) — the same bytes for the same folder (sorted entries,
//! fixed times). A package is run, checked or installed only after every entry has been
//! checked: a name that would leave the mod (`../`, an absolute path, a drive, a
//! backslash), a symlink, a duplicate, an encrypted entry, a file over the size limit, a
//! bomb (compressed more than [`MAX_RATIO`]:1), a file the manifest does not list or lists
//! differently (size, SHA-256), a truncated archive: each is refused with the archive, the
//! entry and the reason. Then it is unpacked into a folder of its own (atomically: a
//! temporary folder renamed into place) and loads as a folder, under the same sandbox.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::manifest::Manifest;

/// The package manifest's name, inside the mod's folder in the archive.
pub const PACKAGE_MANIFEST: &str = "package.toml";
/// The package format this skitter writes and reads.
const FORMAT: u32 = 1;
/// The most a file may be compressed (uncompressed : compressed) when it is over
/// [`RATIO_FROM`] bytes: a higher ratio is a zip bomb, not a mod's file.
pub const MAX_RATIO: u64 = 100;
/// Files up to this size may compress better than [`MAX_RATIO`] (a short run of spaces does).
const RATIO_FROM: u64 = 1 << 20;
/// The most entries a package may hold.
const MAX_ENTRIES: usize = 10_000;
/// The most a whole package may unpack to, bytes.
pub const MAX_UNPACKED: u64 = 1 << 30;

/// Why a package could not be written or used. Each names the archive (or folder) and, for an
/// entry, the entry.
#[derive(Debug, thiserror::Error)]
pub enum PackageError {
    /// The mod folder has no valid manifest.
    #[error("{0}")]
    Manifest(String),
    /// A file system or archive read/write failed.
    #[error("{path}: {message}")]
    Io {
        /// The file.
        path: String,
        /// What went wrong.
        message: String,
    },
    /// An entry of the archive is refused.
    #[error("{archive}: entry \"{entry}\": {reason}")]
    Entry {
        /// The archive.
        archive: String,
        /// The entry's name as stored.
        entry: String,
        /// Why.
        reason: String,
    },
    /// The archive as a whole is refused.
    #[error("{archive}: {reason}")]
    Archive {
        /// The archive.
        archive: String,
        /// Why.
        reason: String,
    },
}

/// `package.toml`: the mod it packs and each file's size and SHA-256 (paths relative to the
/// mod's folder, `/`-separated).
#[derive(Debug, Serialize, Deserialize)]
struct PackageManifest {
    format: u32,
    name: String,
    version: String,
    files: BTreeMap<String, FileSum>,
}

#[derive(Debug, Serialize, Deserialize, PartialEq)]
struct FileSum {
    size: u64,
    sha256: String,
}

/// What `pack` wrote.
#[derive(Debug)]
pub struct Packed {
    /// The archive.
    pub path: PathBuf,
    /// The files packed (besides the package manifest).
    pub files: Vec<String>,
    /// What was left out, and why.
    pub skipped: Vec<(String, &'static str)>,
}

fn io_err(path: &Path, e: impl std::fmt::Display) -> PackageError {
    PackageError::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}

fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(digest: &[u8]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Why a file in a mod folder is not packed, if it is not.
fn left_out(rel: &str, path: &Path) -> Option<&'static str> {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    if rel.split('/').any(|part| part.starts_with('.')) {
        return Some("a dot-file (version control, editor settings)");
    }
    if name.ends_with('~')
        || [".swp", ".swo", ".tmp", ".bak", ".orig"]
            .iter()
            .any(|x| name.ends_with(x))
        || (name.starts_with('#') && name.ends_with('#'))
        || matches!(name, "Thumbs.db" | "desktop.ini")
    {
        return Some("an editor or system leftover");
    }
    if name.ends_with(".zip") {
        return Some("a package (an earlier pack's output?)");
    }
    if name.ends_with(".d.luau") {
        return Some("editor definitions (not run)");
    }
    if name.ends_with(".lua") {
        let mut head = [0u8; 8];
        let meta = std::fs::File::open(path)
            .and_then(|mut f| f.read(&mut head))
            .is_ok_and(|n| head[..n].starts_with(b"---@meta"));
        if meta {
            return Some("editor definitions (LuaLS ---@meta, not run)");
        }
    }
    None
}

/// Files left out of a package, with why.
type Skipped = Vec<(String, &'static str)>;

/// The mod folder's files (relative, `/`-separated, sorted) that go into a package, and those
/// left out with why. A symlink is refused: a package holds files.
fn mod_files(dir: &Path) -> Result<(Vec<String>, Skipped), PackageError> {
    let mut files = Vec::new();
    let mut skipped = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let rd = std::fs::read_dir(&d).map_err(|e| io_err(&d, e))?;
        for e in rd {
            let e = e.map_err(|e| io_err(&d, e))?;
            let p = e.path();
            let rel = p
                .strip_prefix(dir)
                .unwrap_or(&p)
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            let ft = e.file_type().map_err(|e| io_err(&p, e))?;
            if let Some(why) = left_out(&rel, &p) {
                skipped.push((rel, why));
            } else if ft.is_symlink() {
                return Err(io_err(
                    &p,
                    "a symlink: a package holds files only (copy the file in, or leave it out)",
                ));
            } else if ft.is_dir() {
                todo.push(p);
            } else {
                files.push(rel);
            }
        }
    }
    files.sort();
    skipped.sort();
    Ok((files, skipped))
}

/// Packs the mod folder `dir` into `out_dir/NAME-VERSION.zip`.
pub fn pack(dir: &Path, out_dir: &Path) -> Result<Packed, PackageError> {
    let m = Manifest::load(dir).map_err(|e| PackageError::Manifest(e.to_string()))?;
    let (files, skipped) = mod_files(dir)?;
    let mut sums = BTreeMap::new();
    let mut contents = Vec::with_capacity(files.len());
    for rel in &files {
        let p = dir.join(rel);
        let bytes = std::fs::read(&p).map_err(|e| io_err(&p, e))?;
        sums.insert(
            rel.clone(),
            FileSum {
                size: bytes.len() as u64,
                sha256: sha256_hex(&bytes),
            },
        );
        contents.push(bytes);
    }
    let manifest = PackageManifest {
        format: FORMAT,
        name: m.name.clone(),
        version: m.version.to_string(),
        files: sums,
    };
    let toml = toml::to_string(&manifest).map_err(|e| io_err(dir, e))?;
    std::fs::create_dir_all(out_dir).map_err(|e| io_err(out_dir, e))?;
    let path = out_dir.join(format!("{}-{}.zip", m.name, m.version));
    let file = std::fs::File::create(&path).map_err(|e| io_err(&path, e))?;
    let mut zip = zip::ZipWriter::new(std::io::BufWriter::new(file));
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .last_modified_time(zip::DateTime::default())
        .unix_permissions(0o644);
    let entry = |rel: &str| format!("{}/{rel}", m.name);
    let mut put = |name: String, bytes: &[u8]| -> Result<(), PackageError> {
        zip.start_file(name, opts).map_err(|e| io_err(&path, e))?;
        zip.write_all(bytes).map_err(|e| io_err(&path, e))
    };
    put(entry(PACKAGE_MANIFEST), toml.as_bytes())?;
    for (rel, bytes) in files.iter().zip(&contents) {
        put(entry(rel), bytes)?;
    }
    zip.finish()
        .and_then(|mut w| w.flush().map_err(Into::into))
        .map_err(|e| io_err(&path, e))?;
    Ok(Packed {
        path,
        files,
        skipped,
    })
}

/// Whether `name` (an entry's name as stored) stays inside a folder: relative, no `..`, no
/// drive or root, no backslash, no empty or `.` parts. Returns its parts.
fn safe_parts(name: &str) -> Result<Vec<&str>, &'static str> {
    if name.starts_with('/') || Path::new(name).has_root() {
        return Err("an absolute path");
    }
    if name.contains('\\') {
        return Err("a backslash in the name (a Windows path?)");
    }
    if name.as_bytes().get(1) == Some(&b':') || name.contains('\0') {
        return Err("a drive letter or a NUL in the name");
    }
    let parts: Vec<&str> = name.split('/').filter(|p| !p.is_empty()).collect();
    if parts.contains(&"..") {
        return Err("a path that leaves the mod (\"..\")");
    }
    if parts.contains(&".") || parts.is_empty() {
        return Err("an empty or \".\" path");
    }
    Ok(parts)
}

/// A package checked entry by entry: the mod's name, and each file (relative to the mod) with
/// its bytes, as the manifest lists them.
struct Verified {
    name: String,
    version: String,
    files: Vec<(String, Vec<u8>)>,
}

/// Reads and checks the archive `path` (see the module's list). Nothing is written.
fn verify(path: &Path, max_file: u64) -> Result<Verified, PackageError> {
    let archive = path.display().to_string();
    let refuse = |reason: String| PackageError::Archive {
        archive: archive.clone(),
        reason,
    };
    let file = std::fs::File::open(path).map_err(|e| io_err(path, e))?;
    let mut zip = zip::ZipArchive::new(std::io::BufReader::new(file)).map_err(|e| {
        refuse(format!(
            "not a complete zip archive (truncated or damaged: {e})"
        ))
    })?;
    if zip.has_duplicate_names() {
        return Err(refuse(
            "two entries with the same name (a duplicate path)".into(),
        ));
    }
    if zip.len() > MAX_ENTRIES {
        return Err(refuse(format!(
            "{} entries (at most {MAX_ENTRIES})",
            zip.len()
        )));
    }
    let mut top: Option<String> = None;
    let mut files: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    let mut total = 0u64;
    for i in 0..zip.len() {
        let mut f = zip
            .by_index(i)
            .map_err(|e| refuse(format!("entry {i} cannot be read: {e}")))?;
        let name = String::from_utf8_lossy(f.name_raw()).into_owned();
        let bad = |reason: String| PackageError::Entry {
            archive: archive.clone(),
            entry: name.clone(),
            reason,
        };
        let parts = safe_parts(&name).map_err(|r| bad(r.into()))?;
        if f.is_symlink() {
            return Err(bad("a symlink (a package holds files only)".into()));
        }
        if f.encrypted() {
            return Err(bad("encrypted".into()));
        }
        match &top {
            None => top = Some(parts[0].to_string()),
            Some(t) if t != parts[0] => {
                return Err(bad(format!("outside the mod's folder \"{t}/\"")));
            }
            _ => {}
        }
        if f.is_dir() {
            continue;
        }
        if parts.len() < 2 {
            return Err(bad("a file beside the mod's folder, not in it".into()));
        }
        let (size, packed) = (f.size(), f.compressed_size());
        if size > max_file {
            return Err(bad(format!(
                "{size} bytes unpacked (at most {max_file}: --max-asset-mb)"
            )));
        }
        if size > RATIO_FROM && size > packed.saturating_mul(MAX_RATIO) {
            return Err(bad(format!(
                "compressed {}:1 ({packed} bytes to {size}): a zip bomb (at most {MAX_RATIO}:1)",
                size / packed.max(1)
            )));
        }
        total += size;
        if total > MAX_UNPACKED {
            return Err(refuse(format!(
                "unpacks to more than {} MiB",
                MAX_UNPACKED >> 20
            )));
        }
        // The stored size may lie: read one byte more than it says, at most.
        let mut bytes = Vec::with_capacity(size as usize);
        (&mut f)
            .take(size + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| bad(format!("cannot be unpacked (truncated or damaged: {e})")))?;
        if bytes.len() as u64 != size {
            return Err(bad(format!(
                "unpacks to {} bytes where the archive says {size}",
                bytes.len()
            )));
        }
        files.insert(parts[1..].join("/"), bytes);
    }
    let top = top.ok_or_else(|| refuse("an empty archive".into()))?;
    check_manifest(&archive, &top, files)
}

/// The files against the package manifest: every file listed, with its size and SHA-256, and
/// nothing else.
fn check_manifest(
    archive: &str,
    top: &str,
    mut files: BTreeMap<String, Vec<u8>>,
) -> Result<Verified, PackageError> {
    let refuse = |reason: String| PackageError::Archive {
        archive: archive.to_string(),
        reason,
    };
    let text = files.remove(PACKAGE_MANIFEST).ok_or_else(|| {
        refuse(format!(
            "no {top}/{PACKAGE_MANIFEST} (not made by skitter pack?)"
        ))
    })?;
    let m: PackageManifest = std::str::from_utf8(&text)
        .map_err(|e| e.to_string())
        .and_then(|t| toml::from_str(t).map_err(|e| e.to_string()))
        .map_err(|e| refuse(format!("{top}/{PACKAGE_MANIFEST}: {e}")))?;
    if m.format != FORMAT {
        return Err(refuse(format!(
            "package format {} (this skitter reads {FORMAT})",
            m.format
        )));
    }
    if m.name != top {
        return Err(refuse(format!(
            "the manifest names mod \"{}\" but the folder is \"{top}/\"",
            m.name
        )));
    }
    for (rel, sum) in &m.files {
        let entry = |reason: String| PackageError::Entry {
            archive: archive.to_string(),
            entry: format!("{top}/{rel}"),
            reason,
        };
        let Some(bytes) = files.get(rel) else {
            return Err(entry(
                "listed in the package manifest but missing (a truncated archive?)".into(),
            ));
        };
        if bytes.len() as u64 != sum.size || sha256_hex(bytes) != sum.sha256 {
            return Err(entry(
                "its SHA-256 does not match the package manifest (changed after packing)".into(),
            ));
        }
    }
    if let Some(extra) = files.keys().find(|k| !m.files.contains_key(*k)) {
        return Err(PackageError::Entry {
            archive: archive.to_string(),
            entry: format!("{top}/{extra}"),
            reason: "not listed in the package manifest (added after packing)".into(),
        });
    }
    Ok(Verified {
        name: m.name,
        version: m.version,
        files: files.into_iter().collect(),
    })
}

/// Writes `v`'s files into `dest` (a new folder): first into a temporary folder beside it,
/// renamed into place, so a half-written mod never shows.
fn unpack(v: &Verified, dest: &Path) -> Result<(), PackageError> {
    let parent = dest.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(|e| io_err(parent, e))?;
    let tmp = tempfile::Builder::new()
        .prefix(".unpacking-")
        .tempdir_in(parent)
        .map_err(|e| io_err(parent, e))?;
    for (rel, bytes) in &v.files {
        let p = tmp.path().join(rel);
        if let Some(d) = p.parent() {
            std::fs::create_dir_all(d).map_err(|e| io_err(d, e))?;
        }
        std::fs::write(&p, bytes).map_err(|e| io_err(&p, e))?;
    }
    if dest.exists() {
        std::fs::remove_dir_all(dest).map_err(|e| io_err(dest, e))?;
    }
    let kept = tmp.keep();
    match std::fs::rename(&kept, dest) {
        Ok(()) => Ok(()),
        // Another run unpacked the same package meanwhile: theirs is as good.
        Err(_) if dest.join("mod.toml").is_file() => {
            let _ = std::fs::remove_dir_all(&kept);
            Ok(())
        }
        Err(e) => Err(io_err(dest, e)),
    }
}

/// Where unpacked packages are kept for running: `$XDG_CACHE_HOME/skitter/packages`, else
/// `~/.cache/skitter/packages`, else the system's temporary folder.
fn cache_dir() -> PathBuf {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("skitter").join("packages")
}

/// The mod folder to load for the package `zip`: checked, then unpacked into the cache (a
/// folder named by the archive's SHA-256, reused while the archive is unchanged).
pub fn open(zip: &Path, max_file: u64) -> Result<PathBuf, PackageError> {
    // The archive's SHA-256, streamed (it is not held in memory for this).
    let mut hasher = Sha256::new();
    let mut file = std::fs::File::open(zip).map_err(|e| io_err(zip, e))?;
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = file.read(&mut buf).map_err(|e| io_err(zip, e))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    let sum = hex(&hasher.finalize());
    let key = &sum[..16];
    let v = verify(zip, max_file)?;
    let dest = cache_dir().join(format!("{}-{}-{key}", v.name, v.version));
    let dir = dest.join(&v.name);
    if !dir.join("mod.toml").is_file() {
        unpack(&v, &dir)?;
    }
    Ok(dir)
}

/// Installs the package `zip` into `mods_dir` (as `NAME-VERSION/`, replacing that version if
/// it was there). Returns the mod folder.
pub fn install(zip: &Path, mods_dir: &Path, max_file: u64) -> Result<PathBuf, PackageError> {
    let v = verify(zip, max_file)?;
    let dest = mods_dir.join(format!("{}-{}", v.name, v.version));
    unpack(&v, &dest)?;
    Manifest::load(&dest).map_err(|e| PackageError::Manifest(e.to_string()))?;
    Ok(dest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_leave_the_mod_are_refused() {
        assert!(safe_parts("m/main.lua").is_ok());
        for bad in [
            "/etc/passwd",
            "m/../../x",
            "..",
            "C:/x",
            "m\\..\\x",
            "m/./x",
            "m/a\0b",
        ] {
            assert!(safe_parts(bad).is_err(), "{bad}");
        }
    }
}
