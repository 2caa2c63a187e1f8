//! Path files (`paths/NAME.toml`) after load: a saved file changes the World's shape of its
//! path (followers move onto it) without re-running the mod's scripts; a bad file is an error
//! with its line, and the last good shape stays. The path editor reads and notes files here.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use super::reload::ReloadReport;
use super::ScriptHost;
use crate::math::bezier::BezierPath;
use crate::script::error::ScriptError;
use crate::script::path_file;
use crate::script::shared::PathSource;

/// A path file a mod loaded, as the path editor sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct PathFile {
    /// `"mod/name"`: the World's key for its shape.
    pub key: String,
    /// The mod.
    pub mod_name: String,
    /// The path's name.
    pub name: String,
    /// The file (absolute).
    pub file: PathBuf,
    /// The bytes its current shape came from (loaded, or last written by the editor).
    pub bytes: Vec<u8>,
}

impl ScriptHost {
    /// Every path file the mods loaded, by key.
    pub fn path_files(&self) -> Vec<PathFile> {
        self.shared
            .borrow()
            .path_files
            .iter()
            .filter_map(|(key, s)| self.path_file_of(key, s))
            .collect()
    }

    /// The path file behind key `key` (`"mod/name"`), if a mod loaded it.
    pub fn path_file(&self, key: &str) -> Option<PathFile> {
        let sh = self.shared.borrow();
        sh.path_files
            .get(key)
            .and_then(|s| self.path_file_of(key, s))
    }

    fn path_file_of(&self, key: &str, s: &PathSource) -> Option<PathFile> {
        Some(PathFile {
            key: key.to_string(),
            mod_name: s.mod_name.clone(),
            name: s.name.clone(),
            file: self
                .mod_dir(&s.mod_name)?
                .join(path_file::relative_file(&s.name)),
            bytes: s.bytes.clone(),
        })
    }

    /// Notes that `bytes` are now the file of path `name` in mod `mod_name` (the editor wrote
    /// them): a watcher event for those same bytes then changes nothing.
    pub fn note_path_file(&mut self, mod_name: &str, name: &str, bytes: Vec<u8>) {
        self.shared.borrow_mut().path_files.insert(
            format!("{mod_name}/{name}"),
            PathSource {
                mod_name: mod_name.to_string(),
                name: name.to_string(),
                bytes,
            },
        );
    }

    /// Reads path `key`'s file again and gives the World its shape. Ok(false) when the file
    /// holds the bytes already known; an error (with the file's line) keeps the last good
    /// shape.
    pub fn reload_path(&mut self, key: &str) -> Result<bool, ScriptError> {
        let Some(pf) = self.path_file(key) else {
            return Err(ScriptError::in_mod(
                key.split('/').next().unwrap_or(key),
                format!("no mod loaded the path \"{key}\""),
            ));
        };
        let at = format!(
            "{}/{}",
            pf.mod_name,
            path_file::relative_file(&pf.name).display()
        );
        let (bytes, points, closed) = path_file::read(&pf.file).map_err(|e| {
            let place = e.line.map_or(at.clone(), |l| format!("{at}:{l}"));
            ScriptError::at(&pf.mod_name, place, e.message)
        })?;
        if bytes == pf.bytes {
            return Ok(false);
        }
        let path = BezierPath::new(&points, closed)
            .map_err(|e| ScriptError::at(&pf.mod_name, &at, e.to_string()))?;
        self.world.borrow_mut().set_path(key, Arc::new(path), None);
        self.note_path_file(&pf.mod_name, &pf.name, bytes);
        Ok(true)
    }

    /// Takes the path files out of `changed` and reloads those a mod loaded (see
    /// [`ScriptHost::reload_path`]); a mod whose only changes were path files runs no script.
    pub(super) fn reload_path_files(
        &mut self,
        changed: &mut BTreeMap<String, Vec<PathBuf>>,
    ) -> Vec<ReloadReport> {
        let mut reports = Vec::new();
        for (m, files) in changed.iter_mut() {
            files.retain(|f| {
                let Some(name) = path_file::name_of(f) else {
                    return true;
                };
                if !self.is_loaded(m) || self.broken.contains_key(m) {
                    // The mod is not running its latest code (perhaps this very file made it
                    // fail): its scripts run again, and `path.load` reads the file.
                    return true;
                }
                let key = format!("{m}/{name}");
                if !self.shared.borrow().path_files.contains_key(&key) {
                    // No script loaded it (yet): a later `path.load` reads it.
                    return false;
                }
                let started = std::time::Instant::now();
                let outcome = self.reload_path(&key);
                if !matches!(outcome, Ok(false)) {
                    reports.push(ReloadReport {
                        mod_name: m.clone(),
                        ok: outcome.is_ok(),
                        files: vec![f.display().to_string()],
                        ms: started.elapsed().as_secs_f64() * 1e3,
                        error: outcome.err(),
                        frame: self.world.borrow().frame(),
                    });
                }
                false
            });
        }
        changed.retain(|_, files| !files.is_empty());
        reports
    }
}
