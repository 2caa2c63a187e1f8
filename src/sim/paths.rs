//! Named paths: the shapes of the paths mods load from files (`path.load`), by key
//! `"mod/name"`. When a shape changes (the file saved, the path editor), every creature
//! following that key moves onto the new shape without a jump.

use std::sync::Arc;

use glam::Vec3;

use super::record::Input;
use super::World;
use crate::math::bezier::{BezierPath, ControlPoint};

/// Followers of an inline path (`path.bezier` at `source`) that take a named key when the
/// editor moves that path into a file: those whose path has exactly `points`.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Adopt {
    /// The inline path's source (`"mod/file.lua:LINE"`).
    pub source: String,
    /// Its control points as the followers have them.
    pub points: Vec<ControlPoint>,
}

impl World {
    /// The current shape of the named path `key`.
    pub fn path(&self, key: &str) -> Option<&Arc<BezierPath>> {
        self.paths.get(key)
    }

    /// Every named path, by key.
    pub fn paths(&self) -> impl Iterator<Item = (&str, &Arc<BezierPath>)> {
        self.paths.iter().map(|(k, p)| (k.as_str(), p))
    }

    /// Sets the shape of the named path `key` and moves its followers onto it (and, with
    /// `adopt`, the followers of that inline path). Returns false when nothing changed.
    pub fn set_path(&mut self, key: &str, path: Arc<BezierPath>, adopt: Option<Adopt>) -> bool {
        let same = self
            .paths
            .get(key)
            .is_some_and(|p| p.points() == path.points() && p.closed() == path.closed());
        if same && adopt.is_none() {
            return false;
        }
        self.log(|| Input::Path {
            key: key.to_string(),
            path: (*path).clone(),
            adopt: adopt.clone(),
        });
        self.paths.insert(key.to_string(), path.clone());
        let flat = Arc::new(path.flattened(0.0));
        for c in &mut self.creatures {
            let Some(f) = c.loco.follow.as_mut() else {
                continue;
            };
            let adopted = adopt.as_ref().is_some_and(|a| {
                f.source.as_deref() == Some(a.source.as_str()) && f.path.points() == a.points
            });
            if adopted {
                f.source = Some(key.to_string());
            } else if f.source.as_deref() != Some(key) {
                continue;
            }
            let legged = !c.def.legs.is_empty();
            let p = c.loco.position;
            if legged {
                f.retarget(flat.clone(), Vec3::new(p.x, 0.0, p.z), true);
            } else {
                f.retarget(path.clone(), p, false);
            }
        }
        true
    }
}
