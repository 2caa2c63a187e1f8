//! Edit mode in the window (`E`): every path of the loaded mods shows its points and handles
//! as gizmos; the mouse and keys become [`EditCommand`]s for the editor model
//! ([`crate::editor`]), which changes the World's paths live and saves the files.
//!
//! Drag a point: its handles move with it. Drag a handle: the opposite one mirrors it (Alt
//! breaks the tangent). Drags move in the horizontal plane through the grabbed gizmo; Shift
//! moves vertically. `A` adds a point after the selected one (or at the end), `Delete`
//! removes it, `C` opens or closes the path, Ctrl+Z / Ctrl+Shift+Z undo and redo.

use glam::Vec3;

use crate::editor::{EditCommand, EditError, EditOutcome, Handle, PathEditor};
use crate::math::bezier::BezierPath;
use crate::render::OrbitCamera;
use crate::script::ScriptHost;

/// What a gizmo stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Part {
    /// A control point.
    Point,
    /// One of its handles.
    Handle(Handle),
}

/// A pickable gizmo: one point or handle of one path.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Gizmo {
    /// The path's key (`"mod/name"`, or an inline source `"mod/file.lua:LINE"`).
    pub key: String,
    /// 0-based point index.
    pub index: usize,
    /// Point or handle.
    pub part: Part,
    /// Where it is.
    pub position: Vec3,
}

/// An inline path the user tried to edit: the window offers to move it into a file.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Offer {
    /// `"mod/file.lua:LINE"`.
    pub source: String,
    /// The name typed so far.
    pub name: String,
}

/// A drag in progress: the gizmo and where on it the mouse grabbed.
#[derive(Clone, Debug)]
struct Grab {
    gizmo: Gizmo,
    offset: Vec3,
}

/// Edit-mode state of the view.
#[derive(Debug, Default)]
pub(crate) struct PathEdit {
    /// Edit mode is on.
    pub on: bool,
    /// The editor model (undo, redo, the drag).
    pub editor: PathEditor,
    /// The selected gizmo.
    pub selected: Option<Gizmo>,
    /// An inline path waiting to be moved into a file.
    pub offer: Option<Offer>,
    /// The latest messages (saves, conflicts, errors), newest last.
    pub status: Vec<String>,
    grab: Option<Grab>,
}

/// Pixels within which a click takes a gizmo.
const PICK_PX: f32 = 14.0;

/// Every path's gizmos: the named paths of the loaded mods (points and handles), then the
/// inline paths creatures follow (points only, until moved into a file).
pub(crate) fn gizmos(host: &ScriptHost) -> Vec<Gizmo> {
    let mut out = Vec::new();
    let w = host.world();
    for f in host.path_files() {
        if let Some(p) = w.path(&f.key) {
            path_gizmos(&f.key, p, true, &mut out);
        }
    }
    let mut inline: Vec<&str> = Vec::new();
    for c in w.creatures() {
        if let Some(src) = c.loco.follow.as_ref().and_then(|f| {
            f.source
                .as_deref()
                .filter(|s| crate::path::is_inline_source(s))
                .map(|s| (s, f))
        }) {
            if inline.contains(&src.0) {
                continue;
            }
            inline.push(src.0);
            // The original shape (the follower walks its ground projection).
            if let Ok(p) = BezierPath::new(src.1.path.points(), src.1.path.closed()) {
                path_gizmos(src.0, &p, false, &mut out);
            }
        }
    }
    out
}

fn path_gizmos(key: &str, p: &BezierPath, with_handles: bool, out: &mut Vec<Gizmo>) {
    for (i, cp) in p.points().iter().enumerate() {
        out.push(Gizmo {
            key: key.to_string(),
            index: i,
            part: Part::Point,
            position: cp.position,
        });
        if !with_handles {
            continue;
        }
        let (in_h, out_h) = p.handles(i);
        for (h, which) in [(in_h, Handle::In), (out_h, Handle::Out)] {
            if let Some(h) = h {
                out.push(Gizmo {
                    key: key.to_string(),
                    index: i,
                    part: Part::Handle(which),
                    position: h,
                });
            }
        }
    }
}

/// The gizmo under pixel (`x`, `y`), nearest on screen (points before handles on a tie).
pub(crate) fn pick(
    gizmos: &[Gizmo],
    cam: &OrbitCamera,
    x: f32,
    y: f32,
    size: (u32, u32),
) -> Option<Gizmo> {
    let mut best: Option<(f32, &Gizmo)> = None;
    for g in gizmos {
        let Some((px, py)) = cam.project(g.position, size.0, size.1) else {
            continue;
        };
        let mut d = ((px - x).powi(2) + (py - y).powi(2)).sqrt();
        if g.part != Part::Point {
            d += 0.5;
        }
        if d <= PICK_PX && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, g));
        }
    }
    best.map(|(_, g)| g.clone())
}

/// Where the drag of a gizmo at `at` goes for the mouse ray (`o`, `d`): in the horizontal
/// plane through `at`, or (`vertical`) straight up or down from it, in the vertical plane
/// facing the camera.
pub(crate) fn drag_to(at: Vec3, o: Vec3, d: Vec3, vertical: bool, facing: Vec3) -> Option<Vec3> {
    if vertical {
        let n = Vec3::new(facing.x, 0.0, facing.z).normalize_or_zero();
        let den = d.dot(n);
        if n == Vec3::ZERO || den.abs() < 1e-4 {
            return None;
        }
        let t = (at - o).dot(n) / den;
        (t > 0.0).then(|| Vec3::new(at.x, (o + d * t).y, at.z))
    } else {
        if d.y.abs() < 1e-4 {
            return None;
        }
        let t = (at.y - o.y) / d.y;
        (t > 0.0).then(|| o + d * t)
    }
}

impl PathEdit {
    /// Notes a command's outcome (or error) in the status lines and on stdout.
    pub(crate) fn report(&mut self, r: Result<EditOutcome, EditError>) {
        let lines: Vec<String> = match r {
            Ok(o) => o
                .saved
                .iter()
                .map(|f| format!("saved {f}"))
                .chain(o.notes)
                .collect(),
            Err(EditError::Inline { at: source }) => {
                let name = suggest_name(&source);
                self.offer = Some(Offer {
                    source: source.clone(),
                    name,
                });
                vec![format!(
                    "{source} is an inline path: save it as a file to edit it"
                )]
            }
            Err(e) => vec![e.to_string()],
        };
        for l in lines {
            println!("[edit] {l}");
            self.status.push(l);
        }
        let keep = self.status.len().saturating_sub(6);
        self.status.drain(..keep);
    }

    /// Runs `cmd` and reports it.
    pub(crate) fn run(&mut self, host: &mut ScriptHost, cmd: EditCommand) {
        let r = self.editor.apply(host, cmd);
        self.report(r);
    }

    /// A press at the mouse ray (`o`, `d`) over pixel (`x`, `y`): grabs the gizmo there.
    /// True when it took the press (the click then selects no creature).
    pub(crate) fn press(
        &mut self,
        host: &mut ScriptHost,
        cam: &OrbitCamera,
        at: (f32, f32),
        size: (u32, u32),
    ) -> bool {
        if !self.on {
            return false;
        }
        let all = gizmos(host);
        let Some(g) = pick(&all, cam, at.0, at.1, size) else {
            return false;
        };
        self.selected = Some(g.clone());
        let (o, d) = cam.ray(at.0, at.1, size.0, size.1);
        let hit = drag_to(g.position, o, d, false, cam.target - cam.eye()).unwrap_or(g.position);
        let r = self
            .editor
            .apply(host, EditCommand::BeginDrag { key: g.key.clone() });
        if r.is_err() {
            self.report(r);
            return true;
        }
        self.grab = Some(Grab {
            offset: g.position - hit,
            gizmo: g,
        });
        true
    }

    /// The mouse moved while a gizmo is held: the point or handle follows it, live.
    pub(crate) fn motion(
        &mut self,
        host: &mut ScriptHost,
        cam: &OrbitCamera,
        at: (f32, f32),
        size: (u32, u32),
        shift: bool,
        alt: bool,
    ) {
        let Some(grab) = &self.grab else { return };
        let g = grab.gizmo.clone();
        let (o, d) = cam.ray(at.0, at.1, size.0, size.1);
        let now = current_position(host, &g).unwrap_or(g.position);
        let Some(hit) = drag_to(now, o, d, shift, cam.target - cam.eye()) else {
            return;
        };
        let to = if shift {
            hit
        } else {
            Vec3::new(hit.x + grab.offset.x, now.y, hit.z + grab.offset.z)
        };
        let cmd = match g.part {
            Part::Point => EditCommand::MovePoint {
                key: g.key.clone(),
                index: g.index,
                to,
            },
            Part::Handle(which) => EditCommand::MoveHandle {
                key: g.key.clone(),
                index: g.index,
                which,
                to,
                mirror: !alt,
            },
        };
        if let Err(e) = self.editor.apply(host, cmd) {
            self.report(Err(e));
        }
    }

    /// The mouse button came up: a drag ends (saved, one undo step).
    pub(crate) fn release(&mut self, host: &mut ScriptHost) {
        if self.grab.take().is_some() {
            self.run(host, EditCommand::EndDrag);
        }
    }

    /// Whether a gizmo is held.
    pub(crate) fn grabbing(&self) -> bool {
        self.grab.is_some()
    }

    /// A key in edit mode; true when it was an edit key.
    pub(crate) fn key(
        &mut self,
        host: &mut ScriptHost,
        key: &str,
        ctrl: bool,
        shift: bool,
    ) -> bool {
        if !self.on {
            return false;
        }
        let sel = self.selected.clone();
        let cmd = match (key, ctrl) {
            ("z", true) if shift => EditCommand::Redo,
            ("z", true) => EditCommand::Undo,
            ("y", true) => EditCommand::Redo,
            ("a", false) => {
                let key = match &sel {
                    Some(g) => g.key.clone(),
                    None => match host.path_files().first() {
                        Some(f) => f.key.clone(),
                        None => return true,
                    },
                };
                EditCommand::AddPoint {
                    key,
                    after: sel.map(|g| g.index),
                }
            }
            ("delete", false) => match sel {
                Some(g) => EditCommand::RemovePoint {
                    key: g.key,
                    index: g.index,
                },
                None => return true,
            },
            ("c", false) => match sel {
                Some(g) => EditCommand::ToggleClosed { key: g.key },
                None => return true,
            },
            _ => return false,
        };
        let removed = matches!(cmd, EditCommand::RemovePoint { .. });
        self.run(host, cmd);
        if removed {
            self.selected = None;
        }
        true
    }

    /// Gizmo lines for the frame: a cross per point (bigger when selected), a small one per
    /// handle with its line to the point.
    pub(crate) fn lines(&self, host: &ScriptHost) -> Vec<(Vec3, Vec3, [f32; 4])> {
        let mut out = Vec::new();
        if !self.on {
            return out;
        }
        let all = gizmos(host);
        for g in &all {
            let sel = self
                .selected
                .as_ref()
                .is_some_and(|s| s.key == g.key && s.index == g.index && s.part == g.part);
            let (r, color) = match (g.part, sel) {
                (Part::Point, true) => (0.45, [1.0, 1.0, 1.0, 1.0]),
                (Part::Point, false) => (0.3, [1.0, 0.45, 0.05, 1.0]),
                (_, true) => (0.25, [1.0, 1.0, 1.0, 1.0]),
                (_, false) => (0.15, [0.45, 0.75, 1.0, 1.0]),
            };
            for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
                out.push((g.position - axis * r, g.position + axis * r, color));
            }
            if g.part != Part::Point {
                if let Some(p) = all
                    .iter()
                    .find(|p| p.key == g.key && p.index == g.index && p.part == Part::Point)
                {
                    out.push((p.position, g.position, [0.45, 0.75, 1.0, 0.9]));
                }
            }
        }
        out
    }
}

/// Turns edit mode on or off (never while replaying: a replay's inputs come from its record).
pub(crate) fn toggle(edit: &mut PathEdit, host: &ScriptHost) {
    if host.replaying() {
        edit.on = false;
        edit.report(Err(EditError::Nothing(
            "paths cannot be edited during a replay".to_string(),
        )));
        return;
    }
    edit.on = !edit.on;
    if !edit.on {
        edit.selected = None;
        edit.offer = None;
    }
}

/// Prints where each gizmo is drawn in a `size` window (`--edit-paths`), one line each:
/// `[edit] gizmo KEY point I at X,Y`.
pub(crate) fn print_gizmos(host: &ScriptHost, cam: &OrbitCamera, size: (u32, u32)) {
    for g in gizmos(host) {
        if let Some((x, y)) = cam.project(g.position, size.0, size.1) {
            let part = match g.part {
                Part::Point => "point",
                Part::Handle(Handle::In) => "handle_in",
                Part::Handle(Handle::Out) => "handle_out",
            };
            println!("[edit] gizmo {} {part} {} at {x:.0},{y:.0}", g.key, g.index);
        }
    }
    use std::io::Write as _;
    let _ = std::io::stdout().flush();
}

/// The gizmo's position now (the path may have changed under the drag).
fn current_position(host: &ScriptHost, g: &Gizmo) -> Option<Vec3> {
    gizmos(host)
        .into_iter()
        .find(|x| x.key == g.key && x.index == g.index && x.part == g.part)
        .map(|x| x.position)
}

/// A file name for an inline path: the script's name and line (`main_12`).
fn suggest_name(source: &str) -> String {
    let file = source.rsplit('/').next().unwrap_or(source);
    let cleaned: String = file
        .replace(".luau:", "_")
        .replace(".lua:", "_")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if cleaned.is_empty() {
        "path".to_string()
    } else {
        cleaned
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drags_stay_in_their_plane() {
        let at = Vec3::new(1.0, 0.5, 2.0);
        let o = Vec3::new(0.0, 10.0, -10.0);
        let d = (Vec3::new(3.0, 0.5, 4.0) - o).normalize();
        let h = drag_to(at, o, d, false, Vec3::Z).expect("hits the plane");
        assert!((h.y - 0.5).abs() < 1e-5 && (h - Vec3::new(3.0, 0.5, 4.0)).length() < 1e-3);
        let v = drag_to(at, Vec3::new(1.0, 2.0, -5.0), Vec3::Z, true, Vec3::Z).expect("vertical");
        assert_eq!((v.x, v.z), (at.x, at.z));
        assert!((v.y - 2.0).abs() < 1e-5);
        assert_eq!(suggest_name("spider/brains/patrol.lua:12"), "patrol_12");
    }

    #[test]
    fn picking_takes_the_nearest_gizmo_on_screen() {
        let cam = OrbitCamera::look(Vec3::new(0.0, 10.0, -10.0), Vec3::ZERO);
        let g = |x: f32, part| Gizmo {
            key: "m/p".into(),
            index: x as usize,
            part,
            position: Vec3::new(x, 0.0, 0.0),
        };
        let all = vec![
            g(0.0, Part::Point),
            g(2.0, Part::Point),
            g(2.0, Part::Handle(Handle::Out)),
        ];
        let size = (800, 600);
        let (x, y) = cam
            .project(Vec3::new(2.0, 0.0, 0.0), 800, 600)
            .expect("in view");
        let got = pick(&all, &cam, x + 3.0, y, size).expect("picked");
        assert_eq!(
            (got.index, got.part),
            (2, Part::Point),
            "a point wins a tie with a handle"
        );
        assert!(pick(&all, &cam, x + 200.0, y, size).is_none());
    }
}
