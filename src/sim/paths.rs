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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::locomotion::def::tests::spider;
    use crate::math::bezier::ControlPoint;
    use crate::path::{LoopMode, PathFollower, RotationMode};
    use crate::sim::record::{Header, Replay, RECORD_VERSION};
    use crate::sim::world::tests::flat_world;
    use crate::sim::Command;

    fn line(z: f32) -> Arc<BezierPath> {
        let cp = |x: f32| ControlPoint {
            position: Vec3::new(x, 0.0, z),
            handle_in: None,
            handle_out: None,
        };
        Arc::new(BezierPath::new(&[cp(-5.0), cp(0.0), cp(5.0)], false).expect("path"))
    }

    /// A world with a spider walking the named path `m/line` (z = 0).
    fn walking() -> World {
        let mut w = flat_world(30.0);
        let t = w.register_type("m/spider", spider().validate().expect("valid"));
        let id = w.spawn(t, Vec3::new(-5.0, 0.0, 0.0), 0.0).expect("spawned");
        w.set_path("m/line", line(0.0), None);
        let flat = Arc::new(w.path("m/line").expect("set").flattened(0.0));
        let mut f = PathFollower::new(flat, 0.0, 1.0, LoopMode::Once, RotationMode::None, None);
        f.source = Some("m/line".into());
        w.push(Command::FollowPath(id, Box::new(f)));
        for _ in 0..120 {
            w.step(crate::sim::TICK_DT);
        }
        w
    }

    fn follower(w: &World) -> PathFollower {
        w.creatures()[0].loco.follow.clone().expect("following")
    }

    #[test]
    fn a_new_shape_moves_its_followers_and_a_replay_makes_the_same_move() {
        let mut a = walking();
        let mut b = walking();
        assert_eq!(follower(&a), follower(&b));
        a.start_recording();
        assert!(
            !a.set_path("m/line", line(0.0), None),
            "same shape: nothing to do"
        );
        assert!(a.set_path("m/line", line(1.0), None));
        let f = follower(&a);
        assert_eq!(
            f.path.points()[1].position.z,
            1.0,
            "the follower has the new shape"
        );
        assert!(
            (f.offset.z + 1.0).abs() < 1e-4,
            "the body stays where it was: {f:?}"
        );
        // The record carries the change; fed to a world that never saw it, the same state.
        let mut text = serde_json::to_string(&Header {
            skitter_record: RECORD_VERSION,
            seed: 1,
            mods: Vec::new(),
        })
        .expect("json");
        for e in a.take_recorded() {
            text.push('\n');
            text.push_str(&serde_json::to_string(&e).expect("json"));
        }
        let mut replay = Replay::read(text.as_bytes()).expect("reads");
        replay.feed(&mut b).expect("feeds");
        assert_eq!(follower(&a), follower(&b));
        // A checkpoint restore puts the old shape back.
        let cp = a.checkpoint();
        a.set_path("m/line", line(2.0), None);
        a.restore(cp);
        assert_eq!(a.path("m/line").expect("kept").points()[1].position.z, 1.0);
    }
}
