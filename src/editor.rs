//! The path editor's model (seed 004 §2): plain commands — move a point, move a handle, add,
//! remove, toggle `closed`, undo, redo, move an inline path into a file — applied to the
//! World's named paths and saved into the mod's `paths/NAME.toml`. The window only maps mouse
//! and keys to these commands; tests drive them headless.
//!
//! - A drag (`BeginDrag` … `Move*` … `EndDrag`) changes the path live (followers move with
//!   it) and is one undo step, saved on release; every other command is saved at once.
//! - Saves are atomic (temp file + rename), stable and diff-friendly (`script::path_file`).
//! - The editor writes only `paths/NAME.toml` inside a mod folder the host was given, and
//!   never over a file that changed on disk since it was loaded: it reloads that file instead
//!   and says so.
//! - Positions are kept to the millimetre, as the file stores them: what the editor shows is
//!   what reading the file back gives.

use std::sync::Arc;

use glam::Vec3;

use crate::math::bezier::{BezierPath, ControlPoint};
use crate::script::path_file::{self, mm3};
use crate::script::ScriptHost;
use crate::sim::Adopt;

/// One of a control point's two handles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handle {
    /// Toward the previous point.
    In,
    /// Toward the next point.
    Out,
}

/// What the editor can be asked to do.
#[derive(Clone, Debug, PartialEq)]
pub enum EditCommand {
    /// A drag of path `key` starts: the moves that follow are live, and one undo step.
    BeginDrag {
        /// The path (`"mod/name"`).
        key: String,
    },
    /// Point `index` of `key` to `to`; its handles move with it.
    MovePoint {
        /// The path.
        key: String,
        /// 0-based point index.
        index: usize,
        /// The new position.
        to: Vec3,
    },
    /// A handle of point `index` to `to`; with `mirror` the opposite handle mirrors it (the
    /// tangent stays smooth, C¹), without it only this handle moves (a corner).
    MoveHandle {
        /// The path.
        key: String,
        /// 0-based point index.
        index: usize,
        /// Which handle.
        which: Handle,
        /// The new handle position.
        to: Vec3,
        /// Mirror the other handle.
        mirror: bool,
    },
    /// The drag ends: saved, one undo step.
    EndDrag,
    /// A point after `after` (splitting that segment, the shape kept), or at the end of an
    /// open path (`None`, or the last point), continuing its direction.
    AddPoint {
        /// The path.
        key: String,
        /// The point the new one follows.
        after: Option<usize>,
    },
    /// Removes point `index` (a path keeps at least 2).
    RemovePoint {
        /// The path.
        key: String,
        /// 0-based point index.
        index: usize,
    },
    /// Opens a closed path or closes an open one.
    ToggleClosed {
        /// The path.
        key: String,
    },
    /// Moves an inline path (`path.bezier` at `source`, `"mod/file.lua:LINE"`) into
    /// `paths/NAME.toml` of its mod; its followers follow the file from then on. The script
    /// is never rewritten: the outcome says which line to paste.
    Extract {
        /// The inline path's source.
        source: String,
        /// The new path's name.
        name: String,
    },
    /// Undoes the last saved change.
    Undo,
    /// Redoes the last undone change.
    Redo,
}

/// Why a command was not carried out.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum EditError {
    /// No path by that key.
    #[error("no editable path \"{0}\"")]
    NoPath(String),
    /// The path is written inline in a script: it must move into a file first.
    #[error("{at} is an inline path.bezier: save it as paths/NAME.toml first")]
    Inline {
        /// `"mod/file.lua:LINE"`.
        at: String,
    },
    /// A point index past the end.
    #[error("path \"{key}\" has no point {index}")]
    NoPoint {
        /// The path.
        key: String,
        /// The index asked for (0-based).
        index: usize,
    },
    /// The change would make a path that cannot be (fewer than 2 points, zero length).
    #[error("{0}")]
    Invalid(String),
    /// Nothing to undo or redo, or a move outside a drag's path.
    #[error("{0}")]
    Nothing(String),
    /// The file could not be written.
    #[error("{file}: cannot write: {message}")]
    Write {
        /// The file.
        file: String,
        /// Why.
        message: String,
    },
}

/// What a command did, for the window's status line.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EditOutcome {
    /// Files written (relative to their mod: `mod/paths/NAME.toml`).
    pub saved: Vec<String>,
    /// What to tell the user (a conflict, the line to paste after an extract).
    pub notes: Vec<String>,
}

/// A path's shape: its control points and whether it is closed.
type Shape = (Vec<ControlPoint>, bool);

/// One saved change: the shapes and file bytes on either side.
#[derive(Clone, Debug)]
struct Step {
    key: String,
    before: Shape,
    after: Shape,
    bytes_before: Vec<u8>,
    bytes_after: Vec<u8>,
}

/// A drag in progress: the path and its shape when it started.
#[derive(Clone, Debug)]
struct Drag {
    key: String,
    before: Shape,
}

/// The editor: undo and redo stacks, and a drag in progress.
#[derive(Debug, Default)]
pub struct PathEditor {
    undo: Vec<Step>,
    redo: Vec<Step>,
    drag: Option<Drag>,
}

/// Most undo steps kept.
const MAX_UNDO: usize = 256;

impl PathEditor {
    /// A fresh editor.
    pub fn new() -> PathEditor {
        PathEditor::default()
    }

    /// Steps that can be undone / redone.
    pub fn history(&self) -> (usize, usize) {
        (self.undo.len(), self.redo.len())
    }

    /// Whether a drag is in progress.
    pub fn dragging(&self) -> bool {
        self.drag.is_some()
    }

    /// Carries out `cmd` on `host`'s world and the mods' path files.
    pub fn apply(
        &mut self,
        host: &mut ScriptHost,
        cmd: EditCommand,
    ) -> Result<EditOutcome, EditError> {
        match cmd {
            EditCommand::BeginDrag { key } => {
                self.end_drag(host)?;
                let before = shape_of(host, &key)?;
                self.drag = Some(Drag { key, before });
                Ok(EditOutcome::default())
            }
            EditCommand::EndDrag => self.end_drag(host),
            EditCommand::Undo => self.undo(host),
            EditCommand::Redo => self.redo(host),
            EditCommand::Extract { source, name } => extract(host, &source, &name),
            EditCommand::MovePoint { key, index, to } => self.change(host, &key, |s| {
                let p = point_mut(&mut s.0, &key, index)?;
                let to = mm3(to);
                let d = to - p.position;
                p.position = to;
                p.handle_in = p.handle_in.map(|h| mm3(h + d));
                p.handle_out = p.handle_out.map(|h| mm3(h + d));
                Ok(())
            }),
            EditCommand::MoveHandle {
                key,
                index,
                which,
                to,
                mirror,
            } => {
                let path = path_of(host, &key)?;
                self.change(host, &key, |s| {
                    let (h_in, h_out) = handles(&path, index);
                    let p = point_mut(&mut s.0, &key, index)?;
                    let to = mm3(to);
                    let other = if mirror {
                        mm3(p.position * 2.0 - to)
                    } else {
                        mm3(match which {
                            Handle::In => h_out,
                            Handle::Out => h_in,
                        })
                    };
                    let (i, o) = match which {
                        Handle::In => (to, other),
                        Handle::Out => (other, to),
                    };
                    p.handle_in = Some(i);
                    p.handle_out = Some(o);
                    Ok(())
                })
            }
            EditCommand::AddPoint { key, after } => {
                let path = path_of(host, &key)?;
                self.change(host, &key, |s| add_point(&path, s, &key, after))
            }
            EditCommand::RemovePoint { key, index } => self.change(host, &key, |s| {
                point_mut(&mut s.0, &key, index)?;
                if s.0.len() <= 2 {
                    return Err(EditError::Invalid(
                        "a path keeps at least 2 points".to_string(),
                    ));
                }
                s.0.remove(index);
                Ok(())
            }),
            EditCommand::ToggleClosed { key } => self.change(host, &key, |s| {
                s.1 = !s.1;
                Ok(())
            }),
        }
    }

    /// Applies `edit` to path `key`'s shape: live inside a drag of that path, else saved as
    /// one undo step.
    fn change(
        &mut self,
        host: &mut ScriptHost,
        key: &str,
        edit: impl FnOnce(&mut Shape) -> Result<(), EditError>,
    ) -> Result<EditOutcome, EditError> {
        if self.drag.as_ref().is_some_and(|d| d.key != key) {
            self.end_drag(host)?;
        }
        let before = shape_of(host, key)?;
        let mut after = before.clone();
        edit(&mut after)?;
        let path = build(&after)?;
        host.world_mut().set_path(key, Arc::new(path), None);
        if self.drag.is_some() {
            return Ok(EditOutcome::default());
        }
        self.commit(host, key, before, after)
    }

    fn end_drag(&mut self, host: &mut ScriptHost) -> Result<EditOutcome, EditError> {
        let Some(d) = self.drag.take() else {
            return Ok(EditOutcome::default());
        };
        let after = shape_of(host, &d.key)?;
        if after == d.before {
            return Ok(EditOutcome::default());
        }
        self.commit(host, &d.key, d.before, after)
    }

    /// Saves path `key` (now `after`, was `before`) and pushes the undo step; on a conflict
    /// the file on disk wins.
    fn commit(
        &mut self,
        host: &mut ScriptHost,
        key: &str,
        before: Shape,
        after: Shape,
    ) -> Result<EditOutcome, EditError> {
        let text = path_file::write(&after.0, after.1).into_bytes();
        let bytes_before = host.path_file(key).map(|f| f.bytes).unwrap_or_default();
        let out = save(host, key, &before, &text)?;
        if out.saved.is_empty() {
            // A conflict: the file on disk won, so the stacks' shapes of this path are stale.
            self.forget(key);
            return Ok(out);
        }
        self.redo.clear();
        self.undo.push(Step {
            key: key.to_string(),
            before,
            after,
            bytes_before,
            bytes_after: text,
        });
        if self.undo.len() > MAX_UNDO {
            self.undo.remove(0);
        }
        Ok(out)
    }

    fn undo(&mut self, host: &mut ScriptHost) -> Result<EditOutcome, EditError> {
        self.end_drag(host)?;
        let step = self
            .undo
            .pop()
            .ok_or_else(|| EditError::Nothing("nothing to undo".to_string()))?;
        self.swap(host, step, true)
    }

    fn redo(&mut self, host: &mut ScriptHost) -> Result<EditOutcome, EditError> {
        self.end_drag(host)?;
        let step = self
            .redo
            .pop()
            .ok_or_else(|| EditError::Nothing("nothing to redo".to_string()))?;
        self.swap(host, step, false)
    }

    /// Puts `step`'s before (undo) or after (redo) back: the shape, and the file byte for
    /// byte.
    fn swap(
        &mut self,
        host: &mut ScriptHost,
        step: Step,
        undo: bool,
    ) -> Result<EditOutcome, EditError> {
        let (now, to, bytes) = if undo {
            (&step.after, &step.before, &step.bytes_before)
        } else {
            (&step.before, &step.after, &step.bytes_after)
        };
        let path = build(to)?;
        host.world_mut().set_path(&step.key, Arc::new(path), None);
        let out = save(host, &step.key, now, bytes)?;
        if out.saved.is_empty() {
            self.forget(&step.key);
            return Ok(out);
        }
        if undo {
            self.redo.push(step);
        } else {
            self.undo.push(step);
        }
        Ok(out)
    }

    fn forget(&mut self, key: &str) {
        self.undo.retain(|s| s.key != key);
        self.redo.retain(|s| s.key != key);
    }
}

/// The World's shape of named path `key` (an inline source is an error that says so).
fn path_of(host: &ScriptHost, key: &str) -> Result<Arc<BezierPath>, EditError> {
    if crate::path::is_inline_source(key) {
        return Err(EditError::Inline {
            at: key.to_string(),
        });
    }
    if host.path_file(key).is_none() {
        return Err(EditError::NoPath(key.to_string()));
    }
    host.world()
        .path(key)
        .cloned()
        .ok_or_else(|| EditError::NoPath(key.to_string()))
}

fn shape_of(host: &ScriptHost, key: &str) -> Result<Shape, EditError> {
    let p = path_of(host, key)?;
    Ok((p.points().to_vec(), p.closed()))
}

fn build(s: &Shape) -> Result<BezierPath, EditError> {
    BezierPath::new(&s.0, s.1).map_err(|e| EditError::Invalid(e.to_string()))
}

fn point_mut<'a>(
    pts: &'a mut [ControlPoint],
    key: &str,
    index: usize,
) -> Result<&'a mut ControlPoint, EditError> {
    pts.get_mut(index).ok_or_else(|| EditError::NoPoint {
        key: key.to_string(),
        index,
    })
}

/// Point `i`'s handles as the path uses them (an open end's missing one mirrored from the
/// other).
fn handles(path: &BezierPath, i: usize) -> (Vec3, Vec3) {
    let pos = path.points().get(i).map_or(Vec3::ZERO, |p| p.position);
    match path.handles(i) {
        (Some(a), Some(b)) => (a, b),
        (Some(a), None) => (a, pos * 2.0 - a),
        (None, Some(b)) => (pos * 2.0 - b, b),
        (None, None) => (pos, pos),
    }
}

/// Adds a point after `after` (see [`EditCommand::AddPoint`]).
fn add_point(
    path: &BezierPath,
    s: &mut Shape,
    key: &str,
    after: Option<usize>,
) -> Result<(), EditError> {
    let n = s.0.len();
    let i = after.unwrap_or(n - 1);
    if i >= n {
        return Err(EditError::NoPoint {
            key: key.to_string(),
            index: i,
        });
    }
    if i == n - 1 && !s.1 {
        // Past the end: on along the last direction, one last-segment chord further.
        let last = s.0[n - 1].position;
        let prev = s.0[n - 2].position;
        let chord = (last - prev).length().max(0.5);
        let dir = path.tangent(path.length());
        s.0.push(ControlPoint {
            position: mm3(last + dir * chord),
            handle_in: None,
            handle_out: None,
        });
        return Ok(());
    }
    // Split segment i at its middle (de Casteljau): the shape does not change.
    let c = path.segments()[i];
    let mid = |a: Vec3, b: Vec3| (a + b) * 0.5;
    let (ab, bc, cd) = (mid(c.p0, c.p1), mid(c.p1, c.p2), mid(c.p2, c.p3));
    let (abc, bcd) = (mid(ab, bc), mid(bc, cd));
    let m = mid(abc, bcd);
    let j = (i + 1) % n;
    s.0[i].handle_out = Some(mm3(ab));
    s.0[i].handle_in = Some(mm3(handles(path, i).0));
    s.0[j].handle_in = Some(mm3(cd));
    s.0[j].handle_out = Some(mm3(handles(path, j).1));
    s.0.insert(
        i + 1,
        ControlPoint {
            position: mm3(m),
            handle_in: Some(mm3(abc)),
            handle_out: Some(mm3(bcd)),
        },
    );
    Ok(())
}

/// Writes `text` as path `key`'s file unless the file changed on disk since it was loaded:
/// then the World's shape goes back to `shown` (what the known bytes hold) and the file is
/// reloaded, with a note.
fn save(
    host: &mut ScriptHost,
    key: &str,
    shown: &Shape,
    text: &[u8],
) -> Result<EditOutcome, EditError> {
    let pf = host
        .path_file(key)
        .ok_or_else(|| EditError::NoPath(key.to_string()))?;
    let rel = format!(
        "{}/{}",
        pf.mod_name,
        path_file::relative_file(&pf.name).display()
    );
    let disk = std::fs::read(&pf.file).ok();
    if disk.as_deref() != Some(pf.bytes.as_slice()) {
        if let Ok(p) = build(shown) {
            host.world_mut().set_path(key, Arc::new(p), None);
        }
        let mut notes = vec![format!(
            "{rel} changed on disk since it was loaded: reloaded it instead of saving over it"
        )];
        if let Err(e) = host.reload_path(key) {
            notes.push(format!("{e} (the last good shape is kept)"));
        }
        return Ok(EditOutcome {
            saved: Vec::new(),
            notes,
        });
    }
    path_file::write_atomic(&pf.file, text).map_err(|e| EditError::Write {
        file: rel.clone(),
        message: e.to_string(),
    })?;
    host.note_path_file(&pf.mod_name, &pf.name, text.to_vec());
    Ok(EditOutcome {
        saved: vec![rel],
        notes: Vec::new(),
    })
}

/// Moves the inline path at `source` into `paths/NAME.toml` of its mod (see
/// [`EditCommand::Extract`]).
fn extract(host: &mut ScriptHost, source: &str, name: &str) -> Result<EditOutcome, EditError> {
    if !path_file::valid_name(name) {
        return Err(EditError::Invalid(format!(
            "\"{name}\" is not a path name (1-64 letters, digits, _ and -)"
        )));
    }
    let mod_name = source.split('/').next().unwrap_or_default().to_string();
    let dir = host
        .mod_dir(&mod_name)
        .ok_or_else(|| EditError::NoPath(source.to_string()))?
        .to_path_buf();
    let (points, closed) = host
        .world()
        .creatures()
        .iter()
        .filter_map(|c| c.loco.follow.as_ref())
        .find(|f| f.source.as_deref() == Some(source))
        .map(|f| (f.path.points().to_vec(), f.path.closed()))
        .ok_or_else(|| EditError::NoPath(source.to_string()))?;
    let rel = path_file::relative_file(name);
    let file = dir.join(&rel);
    let shown = format!("{mod_name}/{}", rel.display());
    if file.exists() {
        return Err(EditError::Invalid(format!(
            "{shown} already exists: choose another name"
        )));
    }
    let rounded: Vec<ControlPoint> = points
        .iter()
        .map(|p| ControlPoint {
            position: mm3(p.position),
            handle_in: p.handle_in.map(mm3),
            handle_out: p.handle_out.map(mm3),
        })
        .collect();
    let shape = (rounded, closed);
    let path = build(&shape)?;
    let text = path_file::write(&shape.0, shape.1).into_bytes();
    path_file::write_atomic(&file, &text).map_err(|e| EditError::Write {
        file: shown.clone(),
        message: e.to_string(),
    })?;
    host.note_path_file(&mod_name, name, text);
    let key = format!("{mod_name}/{name}");
    host.world_mut().set_path(
        &key,
        Arc::new(path),
        Some(Adopt {
            source: source.to_string(),
            points,
        }),
    );
    Ok(EditOutcome {
        saved: vec![shown],
        notes: vec![format!(
            "to keep it, replace the path.bezier{{...}} at {source} with: path.load(\"{name}\")"
        )],
    })
}
