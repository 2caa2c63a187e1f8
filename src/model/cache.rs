//! Parsed models kept between loads: a mod saved with only its scripts changed (a hot
//! reload, a restart) binds the model it had without reading or parsing its files again
//! (a big glTF took most of such a reload). An entry is used while every file its load read
//! — the model, its buffers, its images — has the size and modification time it had then;
//! any change parses the model again. Kept per thread (the host's), the last [`KEPT`].

use std::cell::{Cell, RefCell};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use super::load::{load, LoadLimits, ModelError, Source};
use super::Model;

/// How many parsed models a thread keeps.
const KEPT: usize = 32;

/// A file as a load read it.
#[derive(Clone, Debug, PartialEq)]
struct Stamp {
    path: PathBuf,
    len: u64,
    modified: Option<SystemTime>,
}

impl Stamp {
    fn of(path: &Path, meta: &std::fs::Metadata) -> Stamp {
        Stamp {
            path: path.to_path_buf(),
            len: meta.len(),
            modified: meta.modified().ok(),
        }
    }

    /// Whether the file is still as it was.
    fn fresh(&self) -> bool {
        std::fs::metadata(&self.path).is_ok_and(|m| Stamp::of(&self.path, &m) == *self)
    }
}

/// What a load was asked: the same question, the same model.
#[derive(Clone, Debug, PartialEq)]
struct Key {
    root: PathBuf,
    mod_name: String,
    file: String,
    texture: Option<String>,
    hide: Vec<String>,
    max_bytes: u64,
}

struct Entry {
    key: Key,
    files: Vec<Stamp>,
    model: Arc<Model>,
}

thread_local! {
    /// The files the load running on this thread has read so far (`None`: not recording).
    static READS: RefCell<Option<Vec<Stamp>>> = const { RefCell::new(None) };
    /// Models kept, the most recently used last.
    static KEPT_MODELS: RefCell<Vec<Entry>> = const { RefCell::new(Vec::new()) };
    /// Model files parsed on this thread (cache misses).
    static PARSED: Cell<u64> = const { Cell::new(0) };
}

/// Notes that a load read `path` (its metadata taken before the read).
pub(super) fn note_read(path: &Path, meta: &std::fs::Metadata) {
    READS.with(|r| {
        if let Some(v) = r.borrow_mut().as_mut() {
            v.push(Stamp::of(path, meta));
        }
    });
}

/// Model files parsed on this thread so far (what the cache could not answer).
pub fn models_parsed() -> u64 {
    PARSED.with(Cell::get)
}

/// [`load`], answered from the models kept when none of the files it read has changed.
pub fn load_shared(src: &Source<'_>, limits: &LoadLimits) -> Result<Arc<Model>, ModelError> {
    let key = Key {
        root: src.root.to_path_buf(),
        mod_name: src.mod_name.to_string(),
        file: src.file.to_string(),
        texture: src.texture.map(str::to_string),
        hide: src.hide.to_vec(),
        max_bytes: limits.max_bytes,
    };
    let hit = KEPT_MODELS.with(|k| {
        let mut k = k.borrow_mut();
        let i = k.iter().position(|e| e.key == key)?;
        let e = k.remove(i);
        if !e.files.iter().all(Stamp::fresh) {
            return None;
        }
        let model = e.model.clone();
        k.push(e);
        Some(model)
    });
    if let Some(m) = hit {
        return Ok(m);
    }
    READS.with(|r| *r.borrow_mut() = Some(Vec::new()));
    let loaded = load(src, limits);
    let files = READS.with(|r| r.borrow_mut().take()).unwrap_or_default();
    PARSED.with(|p| p.set(p.get() + 1));
    let model = Arc::new(loaded?);
    KEPT_MODELS.with(|k| {
        let mut k = k.borrow_mut();
        if k.len() == KEPT {
            k.remove(0);
        }
        k.push(Entry {
            key,
            files,
            model: model.clone(),
        });
    });
    Ok(model)
}
