//! `skitter run --profile FILE.json`: the profiler's figures written out.

use std::io::{self, Write};

/// Writes a run's profile as pretty JSON.
pub(super) fn write_profile(
    path: &std::path::Path,
    figures: &crate::script::profile::ProfileReport,
) -> io::Result<()> {
    let file = std::fs::File::create(path)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
    let mut out = io::BufWriter::new(file);
    serde_json::to_writer_pretty(&mut out, figures)?;
    out.write_all(b"\n")?;
    out.flush()
}
