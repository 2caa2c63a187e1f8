//! Path files: `paths/NAME.toml` in a mod folder, read by `path.load("NAME")` and written by
//! the window's path editor.
//!
//! ```toml
//! closed = false
//! points = [
//!   { position = [0.000, 0.000, 0.000] },
//!   { position = [4.000, 0.000, 2.000], handle_in = [3.000, 0.000, 1.000], handle_out = [5.000, 0.000, 3.000] },
//! ]
//! ```
//!
//! One point per line, millimetre precision: a version-control diff of an edit shows only
//! the points that moved. Errors name the file, the line and the field
//! (`spider/paths/route.toml:4: field 'points[3].position' must be 3 numbers, got 2`).

use std::ops::Range;
use std::path::{Path, PathBuf};

use glam::Vec3;
use serde::Deserialize;
use toml::Spanned;

use crate::math::bezier::{BezierPath, ControlPoint};

/// The folder of a mod that holds its path files.
pub(crate) const PATHS_DIR: &str = "paths";
/// The extension of a path file.
pub(crate) const PATH_EXT: &str = "toml";
/// The largest path file read, bytes.
const MAX_BYTES: u64 = 1 << 20;
/// The most points a path file may hold.
const MAX_POINTS: usize = 10_000;

/// Why a path file could not be used: where (line, when known) and what.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{}{message}", line.map(|l| format!("line {l}: ")).unwrap_or_default())]
pub(crate) struct PathFileError {
    /// 1-based line of the bad field.
    pub line: Option<usize>,
    /// What is wrong (`field 'points[2].position' must be 3 numbers, got 2`).
    pub message: String,
}

/// Whether `name` may name a path (`path.load("NAME")`, `paths/NAME.toml`): 1–64 letters,
/// digits, `_` and `-`; never a folder or `..`.
pub(crate) fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// The file of path `name` in the mod folder `dir`, relative (`paths/NAME.toml`).
pub(crate) fn relative_file(name: &str) -> PathBuf {
    Path::new(PATHS_DIR).join(format!("{name}.{PATH_EXT}"))
}

/// The path name of a file relative to its mod folder, if it is a path file.
pub(crate) fn name_of(rel: &Path) -> Option<String> {
    let mut parts = rel.components();
    let dir = parts.next()?.as_os_str().to_str()?;
    let file = Path::new(parts.next()?.as_os_str());
    if dir != PATHS_DIR || parts.next().is_some() {
        return None;
    }
    if file.extension()?.to_str()? != PATH_EXT {
        return None;
    }
    let name = file.file_stem()?.to_str()?;
    valid_name(name).then(|| name.to_string())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileDe {
    #[serde(default)]
    closed: bool,
    points: Spanned<Vec<Spanned<PointDe>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PointDe {
    position: Spanned<Vec<f64>>,
    handle_in: Option<Spanned<Vec<f64>>>,
    handle_out: Option<Spanned<Vec<f64>>>,
}

fn line_at(text: &str, span: Range<usize>) -> usize {
    text[..span.start.min(text.len())].matches('\n').count() + 1
}

/// Reads a path file's text: control points and `closed`.
pub(crate) fn parse(text: &str) -> Result<(Vec<ControlPoint>, bool), PathFileError> {
    let de: FileDe = toml::from_str(text).map_err(|e| PathFileError {
        line: e.span().map(|s| line_at(text, s)),
        message: e.message().trim().to_string(),
    })?;
    let err = |span: Range<usize>, message: String| PathFileError {
        line: Some(line_at(text, span)),
        message,
    };
    let list_span = de.points.span();
    let list = de.points.into_inner();
    if list.len() < 2 || list.len() > MAX_POINTS {
        return Err(err(
            list_span,
            format!(
                "field 'points' must hold 2 to {MAX_POINTS} points, got {}",
                list.len()
            ),
        ));
    }
    let vec = |i: usize, field: &str, v: &Spanned<Vec<f64>>| -> Result<Vec3, PathFileError> {
        let field = format!("points[{}].{field}", i + 1);
        let xs = v.get_ref();
        if xs.len() != 3 {
            return Err(err(
                v.span(),
                format!(
                    "field '{field}' must be 3 numbers [x, y, z], got {}",
                    xs.len()
                ),
            ));
        }
        if xs.iter().any(|x| !x.is_finite() || x.abs() > 1e6) {
            return Err(err(
                v.span(),
                format!("field '{field}' must be finite numbers within 1e6 m"),
            ));
        }
        Ok(Vec3::new(xs[0] as f32, xs[1] as f32, xs[2] as f32))
    };
    let mut points = Vec::with_capacity(list.len());
    for (i, p) in list.iter().enumerate() {
        let p = p.get_ref();
        points.push(ControlPoint {
            position: vec(i, "position", &p.position)?,
            handle_in: p
                .handle_in
                .as_ref()
                .map(|h| vec(i, "handle_in", h))
                .transpose()?,
            handle_out: p
                .handle_out
                .as_ref()
                .map(|h| vec(i, "handle_out", h))
                .transpose()?,
        });
    }
    BezierPath::new(&points, de.closed)
        .map_err(|e| err(list_span, format!("field 'points': {e}")))?;
    Ok((points, de.closed))
}

/// Reads the path file at `file` (size-capped).
pub(crate) fn read(file: &Path) -> Result<(Vec<u8>, Vec<ControlPoint>, bool), PathFileError> {
    let fail = |message: String| PathFileError {
        line: None,
        message,
    };
    let len = std::fs::metadata(file)
        .map_err(|e| fail(format!("cannot read: {e}")))?
        .len();
    if len > MAX_BYTES {
        return Err(fail(format!(
            "{len} bytes is more than the {MAX_BYTES} a path file may have"
        )));
    }
    let bytes = std::fs::read(file).map_err(|e| fail(format!("cannot read: {e}")))?;
    let text = std::str::from_utf8(&bytes).map_err(|_| fail("is not UTF-8 text".into()))?;
    let (points, closed) = parse(text)?;
    Ok((bytes, points, closed))
}

/// `x` as a path file stores it: millimetres (what reading the file back gives exactly).
pub(crate) fn mm(x: f32) -> f32 {
    let t = format!("{:.3}", x);
    let v = t.parse::<f64>().unwrap_or(0.0) as f32;
    if v == 0.0 {
        0.0
    } else {
        v
    }
}

/// `v` rounded to millimetres.
pub(crate) fn mm3(v: Vec3) -> Vec3 {
    Vec3::new(mm(v.x), mm(v.y), mm(v.z))
}

fn num(x: f32) -> String {
    format!("{:.3}", mm(x))
}

fn vec_text(v: Vec3) -> String {
    format!("[{}, {}, {}]", num(v.x), num(v.y), num(v.z))
}

/// The text of a path file: stable and diff-friendly (one point per line, millimetres).
pub(crate) fn write(points: &[ControlPoint], closed: bool) -> String {
    let mut out = String::from(
        "# A skitter path: path.load(\"NAME\") reads it; the window's path editor (E) writes it.\n",
    );
    out.push_str(&format!("closed = {closed}\npoints = [\n"));
    for p in points {
        out.push_str(&format!("  {{ position = {}", vec_text(p.position)));
        if let Some(h) = p.handle_in {
            out.push_str(&format!(", handle_in = {}", vec_text(h)));
        }
        if let Some(h) = p.handle_out {
            out.push_str(&format!(", handle_out = {}", vec_text(h)));
        }
        out.push_str(" },\n");
    }
    out.push_str("]\n");
    out
}

/// Writes `bytes` to `file` atomically: a temporary file in the same folder, renamed over it
/// (a watcher sees one change; a crash leaves the old file or the new one, never half).
pub(crate) fn write_atomic(file: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let dir = file.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".skitter-")
        .suffix(".tmp")
        .tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(file).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cp(x: f32, z: f32) -> ControlPoint {
        ControlPoint {
            position: Vec3::new(x, 0.0, z),
            handle_in: None,
            handle_out: None,
        }
    }

    #[test]
    fn written_files_read_back_exactly_and_diff_one_line_per_point() {
        let mut pts = vec![cp(0.0, 0.0), cp(4.0, 2.0), cp(8.0, 0.0)];
        pts[1].handle_in = Some(Vec3::new(3.0, 0.0, 1.0));
        pts[1].handle_out = Some(Vec3::new(5.0, 0.0, 3.0));
        let text = write(&pts, false);
        let (back, closed) = parse(&text).expect("reads");
        assert_eq!((back.clone(), closed), (pts.clone(), false));
        assert_eq!(write(&back, closed), text, "stable");
        let mut moved = pts.clone();
        moved[2].position.x = mm(8.0 + 1.0 / 3.0);
        let after = write(&moved, false);
        let changed: Vec<_> = text
            .lines()
            .zip(after.lines())
            .filter(|(a, b)| a != b)
            .collect();
        assert_eq!(changed.len(), 1, "{changed:?}");
        assert!(after.contains("[8.333, 0.000, 0.000]"), "{after}");
        assert_eq!(
            parse(&after).expect("reads").0,
            moved,
            "mm values read back exactly"
        );
    }

    #[test]
    fn errors_name_the_line_and_the_field() {
        let bad = "closed = false\npoints = [\n  { position = [0, 0, 0] },\n  { position = [1, 2] },\n]\n";
        let e = parse(bad).expect_err("2 numbers");
        assert_eq!(e.line, Some(4), "{e}");
        assert!(
            e.message.contains("'points[2].position' must be 3 numbers"),
            "{e}"
        );
        let e = parse("points = [\n { position = [0,0,0] },\n { position = [1,0,0], hande_out = [1,1,1] },\n]\n")
            .expect_err("unknown key");
        assert_eq!(e.line, Some(3), "{e}");
        assert!(e.message.contains("hande_out"), "{e}");
        let e = parse("points = [\n { position = [0,0,0] },\n { position = [0,0,0] },\n]\n")
            .expect_err("zero length");
        assert!(e.message.contains("zero length"), "{e}");
        let e = parse("points = [ { position = [0,0,nan] }, { position = [1,0,0] } ]")
            .expect_err("nan");
        assert!(e.message.contains("finite"), "{e}");
        let e = parse("closed = false\npoints = [\n").expect_err("syntax");
        assert!(e.line.is_some(), "{e}");
        assert!(parse("closed = true")
            .expect_err("no points")
            .message
            .contains("points"));
    }

    #[test]
    fn names_are_plain_words_and_files_live_in_paths() {
        for ok in ["route", "patrol_2", "a-b"] {
            assert!(valid_name(ok), "{ok}");
        }
        for bad in ["", "../x", "a/b", "a.b", "a b", &"x".repeat(65)] {
            assert!(!valid_name(bad), "{bad}");
        }
        assert_eq!(
            name_of(Path::new("paths/route.toml")).as_deref(),
            Some("route")
        );
        assert_eq!(name_of(Path::new("paths/sub/route.toml")), None);
        assert_eq!(name_of(Path::new("route.toml")), None);
        assert_eq!(name_of(Path::new("paths/route.json")), None);
        assert_eq!(relative_file("route"), Path::new("paths/route.toml"));
    }
}
