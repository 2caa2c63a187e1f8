//! Dependencies found: a mod's required `depends` missing from the mods given are looked up
//! beside them (each given mod's own parent folder, a given folder of mods), then in
//! `HostOptions::mod_search` (the command line's: the bundled `scripts/`, the user mods
//! folder) — each folder searched one level down for mod folders. Of the versions found,
//! the highest that meets the range is loaded (the first folder's on a tie), and what it
//! needs is looked up in turn. Not found, the error says where it looked and what versions
//! were there.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::ScriptHost;
use crate::script::manifest::Manifest;

/// Where the lookup looked, and every mod it saw there (by name: version, folder).
#[derive(Default)]
pub(super) struct Looked {
    roots: Vec<PathBuf>,
    /// Folders it would have looked in that are not there (a user mods folder not made).
    absent: Vec<PathBuf>,
    seen: BTreeMap<String, Vec<(semver::Version, PathBuf)>>,
}

impl Looked {
    /// What to add to "… which is not loaded" for a missing `name` (empty: no lookup).
    pub(super) fn why_missing(&self, name: &str) -> String {
        if self.roots.is_empty() && self.absent.is_empty() {
            return String::new();
        }
        let mut places: Vec<String> = self.roots.iter().map(|r| r.display().to_string()).collect();
        places.extend(
            self.absent
                .iter()
                .map(|r| format!("{} (no such folder)", r.display())),
        );
        let there = match self.seen.get(name) {
            Some(v) => format!(
                "; found there: {}",
                v.iter()
                    .map(|(ver, dir)| format!("{ver} ({})", dir.display()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            None => String::new(),
        };
        format!(" (looked in {}{there})", places.join(", "))
    }
}

/// The folders a lookup searches: beside the mods `given`, then `search`, each once.
fn roots(given: &[PathBuf], search: &[PathBuf]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    let beside = given.iter().filter_map(|p| {
        if p.join("mod.toml").is_file() {
            p.parent().map(Path::to_path_buf)
        } else {
            Some(p.clone())
        }
    });
    for r in beside.chain(search.iter().cloned()) {
        let key = r.canonicalize().unwrap_or_else(|_| r.clone());
        if r.is_dir()
            && !out
                .iter()
                .any(|o| o.canonicalize().unwrap_or_else(|_| o.clone()) == key)
        {
            out.push(r);
        }
    }
    out
}

/// The mods one level down in `root` (folders with a valid `mod.toml`), by folder order.
fn mods_in(root: &Path) -> Vec<Manifest> {
    super::load::mod_folders_in(root)
        .iter()
        .filter_map(|d| Manifest::load(d).ok())
        .collect()
}

impl ScriptHost {
    /// Adds to `manifests` (the mods given) the dependencies they miss, found as the module
    /// says, each remembered with where it came from.
    pub(super) fn find_dependencies(
        &mut self,
        manifests: &mut Vec<Manifest>,
        given: &[PathBuf],
    ) -> Looked {
        for m in manifests.iter() {
            let from = match self.packages.iter().find(|(dir, _)| *dir == m.dir) {
                Some((dir, zip)) => format!(
                    "{} (package, checked; unpacked in {})",
                    zip.display(),
                    dir.display()
                ),
                None => m.dir.display().to_string(),
            };
            self.origins.insert(m.name.clone(), from);
        }
        // Nothing missing (the usual case): no folder is read.
        let missing = manifests.iter().any(|m| {
            m.depends
                .iter()
                .any(|d| !d.optional && !manifests.iter().any(|o| o.name == d.name))
        });
        if self.opts.mod_search.is_empty() || !missing {
            return Looked::default();
        }
        let roots = roots(given, &self.opts.mod_search);
        let mut looked = Looked {
            roots,
            absent: self
                .opts
                .mod_search
                .iter()
                .filter(|r| !r.is_dir())
                .cloned()
                .collect(),
            seen: BTreeMap::new(),
        };
        let candidates: Vec<(usize, Manifest)> = looked
            .roots
            .iter()
            .enumerate()
            .flat_map(|(k, r)| mods_in(r).into_iter().map(move |m| (k, m)))
            .collect();
        for (_, m) in &candidates {
            looked
                .seen
                .entry(m.name.clone())
                .or_default()
                .push((m.version.clone(), m.dir.clone()));
        }
        let mut at = 0;
        while at < manifests.len() {
            let needs: Vec<(String, semver::VersionReq)> = manifests[at]
                .depends
                .iter()
                .filter(|d| !d.optional)
                .map(|d| (d.name.clone(), d.req.clone()))
                .collect();
            let by = manifests[at].name.clone();
            for (name, req) in needs {
                if manifests.iter().any(|m| m.name == name) {
                    continue;
                }
                let best = candidates
                    .iter()
                    .filter(|(_, m)| m.name == name && req.matches(&m.version))
                    .max_by(|(ka, a), (kb, b)| a.version.cmp(&b.version).then(kb.cmp(ka)));
                if let Some((k, m)) = best {
                    self.origins.insert(
                        m.name.clone(),
                        format!(
                            "{}, found in {} for {by}",
                            m.dir.display(),
                            looked.roots[*k].display()
                        ),
                    );
                    self.known.insert(m.name.clone(), m.clone());
                    manifests.push(m.clone());
                }
            }
            at += 1;
        }
        looked
    }

    /// Each mod loaded, its version and where it came from (its folder; a dependency found
    /// by lookup says where and for whom), in load order.
    pub fn mod_origins(&self) -> Vec<(String, String, String)> {
        self.loaded_mods()
            .into_iter()
            .map(|n| {
                let version = self
                    .known
                    .get(&n)
                    .map(|m| m.version.to_string())
                    .unwrap_or_default();
                let from = self.origins.get(&n).cloned().unwrap_or_default();
                (n, version, from)
            })
            .collect()
    }
}
