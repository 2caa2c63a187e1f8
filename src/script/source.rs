//! Script files as source text: the size cap, the refusal of bytecode, and the one chunk
//! loader that load, reload, `check` and `require` all use.

use std::path::Path;

use mlua::chunk::Chunk;
use mlua::chunk::ChunkMode;
use mlua::Lua;

/// Largest script file a mod may have.
pub const MAX_SCRIPT_BYTES: u64 = 4 << 20;

/// What a mod is told when a script file holds bytecode.
pub(crate) const BYTECODE_REFUSED: &str =
    "bytecode is not allowed: mods are loaded from source text only";

/// Why a script file could not be read as source.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// Over [`MAX_SCRIPT_BYTES`] (checked before reading).
    #[error("the file is {} MiB; scripts may be at most {} MiB", .bytes >> 20, MAX_SCRIPT_BYTES >> 20)]
    TooBig {
        /// The file's size.
        bytes: u64,
    },
    /// Compiled Lua or Luau.
    #[error("{}", BYTECODE_REFUSED)]
    Bytecode,
    /// Not UTF-8 (so not source either).
    #[error("the file is not UTF-8 source text ({})", BYTECODE_REFUSED)]
    NotUtf8,
    /// The file system said no.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// Whether `bytes` start like compiled code rather than source. Lua's bytecode starts with
/// ESC; Luau's with its version byte (this Luau writes 9, a TAB), then its types version
/// (1–3). Source text starts with neither a control character nor whitespace followed by
/// one: a control byte that is not whitespace, first or right after a first control byte,
/// is bytecode. (The VM's text mode refuses binary chunks too: this check names the file
/// before anything is compiled.)
pub(crate) fn looks_like_bytecode(bytes: &[u8]) -> bool {
    let ws = |b: u8| matches!(b, b'\t' | b'\n' | 0x0b | 0x0c | b'\r');
    let control = |b: u8| b < 0x20 && !ws(b);
    match bytes {
        [0x1b, ..] => true,
        [a, ..] if control(*a) => true,
        [a, b, ..] => *a < 0x20 && control(*b),
        _ => false,
    }
}

/// Reads a script, refusing files over [`MAX_SCRIPT_BYTES`] before reading them, and
/// anything that is not source text.
pub fn read_script(path: &Path) -> Result<String, SourceError> {
    let bytes = std::fs::metadata(path)?.len();
    if bytes > MAX_SCRIPT_BYTES {
        return Err(SourceError::TooBig { bytes });
    }
    let data = std::fs::read(path)?;
    if looks_like_bytecode(&data) {
        return Err(SourceError::Bytecode);
    }
    String::from_utf8(data).map_err(|_| SourceError::NotUtf8)
}

/// A chunk of source named `chunk` (`mod/path.lua`, so errors read `mod/path.lua:LINE`),
/// as text only: the VM refuses a binary chunk even if one got past [`read_script`].
pub(crate) fn chunk<'a>(lua: &'a Lua, src: &'a [u8], chunk: &str) -> Chunk<'a> {
    lua.load(src)
        .set_name(format!("={chunk}"))
        .set_mode(ChunkMode::Text)
}

/// Whether an error is the VM refusing a binary chunk.
pub(crate) fn is_binary_chunk_error(e: &mlua::Error) -> bool {
    e.to_string().contains("binary chunk")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn big_binary_and_non_utf8_files_are_refused_by_content() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = |n: &str| dir.path().join(n);
        std::fs::write(p("ok.lua"), "return 1").expect("write");
        std::fs::write(p("esc.lua"), b"\x1bLua").expect("write");
        std::fs::write(p("ver.lua"), b"\x05rest").expect("write");
        std::fs::write(p("latin1.lua"), b"x = '\xe9'").expect("write");
        std::fs::write(p("big.lua"), vec![b' '; MAX_SCRIPT_BYTES as usize + 1]).expect("write");
        assert_eq!(read_script(&p("ok.lua")).expect("reads"), "return 1");
        assert!(matches!(
            read_script(&p("esc.lua")),
            Err(SourceError::Bytecode)
        ));
        assert!(matches!(
            read_script(&p("ver.lua")),
            Err(SourceError::Bytecode)
        ));
        assert!(matches!(
            read_script(&p("latin1.lua")),
            Err(SourceError::NotUtf8)
        ));
        let big = read_script(&p("big.lua")).expect_err("too big");
        assert!(
            big.to_string().contains("scripts may be at most 4 MiB"),
            "{big}"
        );
        assert!(matches!(
            read_script(&p("none.lua")),
            Err(SourceError::Io(_))
        ));
    }

    #[test]
    fn bytecode_is_told_from_source_by_content() {
        for src in ["print('bytecode ran')", "return 1", "local a = 1"] {
            let bc = mlua::chunk::Compiler::new().compile(src).expect("compiles");
            assert!(
                std::str::from_utf8(&bc).is_ok(),
                "this bytecode is valid UTF-8, so only the content check can catch it"
            );
            assert!(looks_like_bytecode(&bc), "{src}: {:?}", &bc[..4]);
        }
        assert!(looks_like_bytecode(b"\x1bLua"));
        assert!(looks_like_bytecode(b"\x00error"));
        for src in [
            "print(1)",
            "\tprint(1)",
            "\t\tlocal a = 1",
            "\n\nreturn 1",
            "\r\nx = 1",
            "-- a comment",
            "",
            "\t",
        ] {
            assert!(!looks_like_bytecode(src.as_bytes()), "{src:?}");
        }
    }

    #[test]
    fn chunks_are_named_for_errors_and_text_only() {
        let lua = Lua::new();
        let e = chunk(&lua, b"error('x')", "m/a.lua")
            .exec()
            .expect_err("raises");
        assert!(e.to_string().contains("m/a.lua:1:"), "{e}");
        let bc = mlua::chunk::Compiler::new()
            .compile("return 1")
            .expect("compiles");
        let e = chunk(&lua, &bc, "m/b.lua").exec().expect_err("refused");
        assert!(is_binary_chunk_error(&e), "{e}");
    }
}
