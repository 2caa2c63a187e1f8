//! A mod's files as a model reads them: every path and glTF `uri` resolved inside the mod's
//! folder (absolute paths, URLs, `..` out of it and links out refused), read within the
//! size limit, `data:` URIs decoded.

use std::path::{Component, Path, PathBuf};

use base64::Engine as _;

use super::load::LoadLimits;

/// Resolves `rel` (a path or a glTF uri, relative to `base` inside the mod folder `root`):
/// refused when absolute, a URL (`http:`, `file:`), leaving the folder (`..`, a link out of
/// it), or not a file. Percent escapes are decoded.
pub(crate) fn resolve(root: &Path, base: &Path, rel: &str) -> Result<PathBuf, String> {
    let decoded = percent_decode(rel);
    if decoded.is_empty() {
        return Err("an empty path".into());
    }
    if let Some(i) = decoded.find(':') {
        // A scheme (`http:`, `file:`) or a drive (`C:`): not a file of the mod.
        return Err(format!(
            "\"{rel}\" is not a file in the mod folder (\"{}:\" is a URL or a drive)",
            &decoded[..i]
        ));
    }
    let p = Path::new(&decoded);
    if p.is_absolute() || decoded.starts_with('/') || decoded.starts_with('\\') {
        return Err(format!(
            "\"{rel}\" is an absolute path: a mod reads only files inside its folder"
        ));
    }
    let mut out = base.to_path_buf();
    for c in p.components() {
        match c {
            Component::Normal(s) => out.push(s),
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return Err(format!("\"{rel}\" leaves the mod folder"));
                }
            }
            _ => return Err(format!("\"{rel}\" leaves the mod folder")),
        }
    }
    let full = root.join(&out);
    let (Ok(canon_root), Ok(canon)) = (root.canonicalize(), full.canonicalize()) else {
        return Err(format!("\"{rel}\" does not exist"));
    };
    if !canon.starts_with(&canon_root) {
        return Err(format!("\"{rel}\" leaves the mod folder"));
    }
    if !canon.is_file() {
        return Err(format!("\"{rel}\" is not a file"));
    }
    Ok(out)
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let hex = std::str::from_utf8(&b[i + 1..i + 3]).unwrap_or("");
            if let Ok(v) = u8::from_str_radix(hex, 16) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Reads a file of the mod (`rel` relative to the mod folder) within the size limit.
pub(super) fn read_in_mod(
    root: &Path,
    rel: &Path,
    limits: &LoadLimits,
    what: &str,
) -> Result<Vec<u8>, String> {
    let full = root.join(rel);
    let meta = std::fs::metadata(&full)
        .map_err(|e| format!("cannot read {what} {}: {e}", rel.display()))?;
    super::cache::note_read(&full, &meta);
    let len = meta.len();
    if len > limits.max_bytes {
        let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
        return Err(format!(
            "{what} {} is {:.2} MiB, over the {:.2} MiB limit (--max-asset-mb)",
            rel.display(),
            mib(len),
            mib(limits.max_bytes)
        ));
    }
    std::fs::read(&full).map_err(|e| format!("cannot read {what} {}: {e}", rel.display()))
}

/// Decodes a `data:` URI's payload (base64 or plain).
pub(super) fn data_uri(uri: &str) -> Option<Result<Vec<u8>, String>> {
    let rest = uri.strip_prefix("data:")?;
    let (head, payload) = match rest.split_once(',') {
        Some(x) => x,
        None => return Some(Err("a data: URI without a ',' before its data".into())),
    };
    Some(if head.ends_with(";base64") {
        base64::engine::general_purpose::STANDARD
            .decode(payload.trim())
            .map_err(|e| format!("a data: URI that is not valid base64: {e}"))
    } else {
        Ok(percent_decode(payload).into_bytes())
    })
}
