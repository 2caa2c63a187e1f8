//! `skitter new NAME`: a mod folder that runs as it is — level, a creature type, a
//! behaviour, three spawns — with editor definitions for luau-lsp and LuaLS wired in.

use std::path::{Path, PathBuf};

/// The files of a new mod: (path in the mod, contents with `NAME` for the mod name).
const FILES: &[(&str, &str)] = &[
    ("mod.toml", include_str!("../templates/new/mod.toml")),
    ("main.lua", include_str!("../templates/new/main.lua")),
    (
        "brains/roam.lua",
        include_str!("../templates/new/brains/roam.lua"),
    ),
    ("README.md", include_str!("../templates/new/README.md")),
    (".luarc.json", include_str!("../templates/new/.luarc.json")),
    (
        ".vscode/settings.json",
        include_str!("../templates/new/.vscode/settings.json"),
    ),
    (
        "defs/skitter.d.luau",
        include_str!("../defs/skitter.d.luau"),
    ),
    ("defs/skitter.lua", include_str!("../defs/skitter.lua")),
];

/// Whether `name` can name a mod: a lowercase letter, then lowercase letters, digits, `_`, `-`.
pub fn valid_mod_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
}

/// Why `skitter new` cannot create a mod there.
#[derive(Debug, thiserror::Error)]
pub enum NewModError {
    /// The path ends in no name.
    #[error("{}: no mod name at the end of the path", .0.display())]
    NoName(PathBuf),
    /// The name is not a mod name.
    #[error("\"{0}\" cannot name a mod: use a lowercase letter, then lowercase letters, digits, '_' or '-'")]
    BadName(String),
    /// Something is already there.
    #[error("{}: already exists and is not empty", .0.display())]
    NotEmpty(PathBuf),
    /// Writing failed.
    #[error("{}: {source}", .path.display())]
    Write {
        /// The file or folder.
        path: PathBuf,
        /// What the file system said.
        source: std::io::Error,
    },
}

/// Creates the mod folder `dir` (its last component is the mod's name). Refuses a bad name
/// or a folder that exists and is not empty. Returns the files written.
pub fn new_mod(dir: &Path) -> Result<Vec<PathBuf>, NewModError> {
    let name = dir
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| NewModError::NoName(dir.to_path_buf()))?;
    if !valid_mod_name(name) {
        return Err(NewModError::BadName(name.to_string()));
    }
    if dir.exists()
        && std::fs::read_dir(dir)
            .map(|mut d| d.next().is_some())
            .unwrap_or(true)
    {
        return Err(NewModError::NotEmpty(dir.to_path_buf()));
    }
    let mut written = Vec::new();
    for (rel, text) in FILES {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|source| NewModError::Write {
                path: parent.to_path_buf(),
                source,
            })?;
        }
        let text = if rel.starts_with("defs/") {
            text.to_string()
        } else {
            text.replace("NAME", name)
        };
        std::fs::write(&path, text).map_err(|source| NewModError::Write {
            path: path.clone(),
            source,
        })?;
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_existing_folders_are_checked() {
        assert!(valid_mod_name("my_mod-2"));
        for bad in ["", "My", "2x", "a b", "a/b", "é"] {
            assert!(!valid_mod_name(bad), "{bad}");
        }
        let dir = tempfile::tempdir().expect("tmp");
        let m = dir.path().join("bugs");
        let files = new_mod(&m).expect("created");
        assert!(files.len() >= 8);
        let toml = std::fs::read_to_string(m.join("mod.toml")).expect("toml");
        assert!(toml.contains("name = \"bugs\""));
        assert!(new_mod(&m).is_err(), "an existing mod is never overwritten");
        assert!(new_mod(&dir.path().join("Bad Name")).is_err());
    }
}
