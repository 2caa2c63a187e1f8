//! Trace lines for what changes a creature's look without moving it: its live gait and
//! lean settings (a script's `c.gait = …`, a hot reload) and what scripts ask of the camera.

use std::collections::BTreeMap;
use std::io::{self, Write};

use glam::Vec3;

use crate::locomotion::{GaitParams, LeanDef};
use crate::script::{CameraRequest, LookAt};
use crate::sim::{CreatureId, World};

/// The gait and lean settings each creature had when last written (or first seen).
#[derive(Default)]
pub(super) struct Tuning {
    seen: BTreeMap<CreatureId, (GaitParams, LeanDef)>,
}

impl Tuning {
    /// Writes a `tuning` line for each creature whose gait or lean settings changed since
    /// the last tick: `{"frame":F,"event":"tuning","id":N,"gait":{…},"lean":{…}}` (the
    /// whole of both, as the creature now has them). A new creature's are its type's
    /// definition's: it writes none.
    pub(super) fn write(&mut self, t: &mut impl Write, world: &World) -> io::Result<()> {
        let frame = world.frame();
        for c in world.creatures() {
            match self.seen.get_mut(&c.id) {
                Some((g, l)) if *g == c.gait && *l == c.lean => {}
                Some(old) => {
                    *old = (c.gait.clone(), c.lean.clone());
                    writeln!(
                        t,
                        "{{\"frame\":{frame},\"event\":\"tuning\",\"id\":{},\"gait\":{},\"lean\":{}}}",
                        c.id.0,
                        serde_json::to_string(&c.gait).map_err(io::Error::other)?,
                        serde_json::to_string(&c.lean).map_err(io::Error::other)?,
                    )?;
                }
                None => {
                    self.seen.insert(c.id, (c.gait.clone(), c.lean.clone()));
                }
            }
        }
        if self.seen.len() > world.creatures().len() {
            self.seen.retain(|id, _| world.creature(*id).is_some());
        }
        Ok(())
    }
}

fn v(p: Vec3) -> String {
    format!("[{:.4},{:.4},{:.4}]", p.x, p.y, p.z)
}

/// Writes what a script asked of the camera: `{"frame":F,"event":"camera","look":{"from":
/// […],"at":[…]}}`, `…"follow":ID`, or `…"path":{"from":[…],"to":[…],"duration":S,
/// "look_at":ID or […]}`.
pub(super) fn write_camera(t: &mut impl Write, frame: u64, r: &CameraRequest) -> io::Result<()> {
    let what = match r {
        CameraRequest::Look { from, at } => {
            format!("\"look\":{{\"from\":{},\"at\":{}}}", v(*from), v(*at))
        }
        CameraRequest::Follow(id) => format!("\"follow\":{}", id.0),
        CameraRequest::Path {
            path,
            duration,
            look_at,
            ..
        } => {
            let look = match look_at {
                Some(LookAt::Creature(id)) => format!(",\"look_at\":{}", id.0),
                Some(LookAt::Point(p)) => format!(",\"look_at\":{}", v(*p)),
                None => String::new(),
            };
            format!(
                "\"path\":{{\"from\":{},\"to\":{},\"duration\":{duration}{look}}}",
                v(path.point(0.0)),
                v(path.point(path.length()))
            )
        }
    };
    writeln!(t, "{{\"frame\":{frame},\"event\":\"camera\",{what}}}")
}
