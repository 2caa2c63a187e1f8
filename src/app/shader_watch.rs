//! Shader hot reload: watches one WGSL file (debounced) and hands back its new text.

use std::path::{Path, PathBuf};
use std::sync::mpsc::Receiver;
use std::time::Duration;

use notify_debouncer_mini::notify::{RecommendedWatcher, RecursiveMode};
use notify_debouncer_mini::{new_debouncer, DebounceEventResult, Debouncer};

/// Why a shader cannot be watched or read.
#[derive(Debug, thiserror::Error)]
pub enum ShaderWatchError {
    /// The OS watcher would not start.
    #[error("{0}")]
    Start(notify_debouncer_mini::notify::Error),
    /// The folder cannot be watched.
    #[error("{}: {source}", .dir.display())]
    Watch {
        /// The folder.
        dir: PathBuf,
        /// What the watcher said.
        source: notify_debouncer_mini::notify::Error,
    },
    /// The saved file cannot be read.
    #[error("{}: {source}", .path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// What the file system said.
        source: std::io::Error,
    },
}

/// Watches a shader file's folder and reports saves of that file.
pub struct ShaderWatch {
    _debouncer: Debouncer<RecommendedWatcher>,
    rx: Receiver<DebounceEventResult>,
    path: PathBuf,
}

impl ShaderWatch {
    /// Watches `path` (its folder, so editors that replace the file are seen too).
    pub fn new(path: &Path) -> Result<ShaderWatch, ShaderWatchError> {
        let (tx, rx) = std::sync::mpsc::channel();
        let mut d =
            new_debouncer(Duration::from_millis(50), tx).map_err(ShaderWatchError::Start)?;
        let dir = path.parent().unwrap_or(Path::new("."));
        d.watcher()
            .watch(dir, RecursiveMode::NonRecursive)
            .map_err(|source| ShaderWatchError::Watch {
                dir: dir.to_path_buf(),
                source,
            })?;
        Ok(ShaderWatch {
            _debouncer: d,
            rx,
            path: path.to_path_buf(),
        })
    }

    /// The file watched.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The new source if the file was saved since the last call (an error if it cannot be read).
    pub fn poll(&self) -> Option<Result<String, ShaderWatchError>> {
        let name = self.path.file_name();
        let mut changed = false;
        while let Ok(ev) = self.rx.try_recv() {
            if let Ok(events) = ev {
                changed |= events.iter().any(|e| e.path.file_name() == name);
            }
        }
        changed.then(|| {
            std::fs::read_to_string(&self.path).map_err(|source| ShaderWatchError::Read {
                path: self.path.clone(),
                source,
            })
        })
    }
}
