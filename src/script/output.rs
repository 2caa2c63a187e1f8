//! What a host has to say between ticks — log lines, errors, reloads — as one type that the
//! headless runner, the window and the screenshot runner all drain the same way, in one
//! console format.

use std::fmt;

use super::error::ScriptError;
use super::host::ReloadReport;
use super::shared::{LogLevel, LogLine};

/// One thing the host reports.
#[derive(Clone, Debug, PartialEq)]
pub enum HostOutput {
    /// A mod's log line (`log.*`, `print`) or a warning the host gives about a mod.
    Log(LogLine),
    /// A script error (reported once per distinct error; a failed save every time).
    Error(ScriptError),
    /// A reload, good or failed.
    Reload(ReloadReport),
}

impl HostOutput {
    /// Whether a console shows it on stderr.
    pub fn is_error(&self) -> bool {
        match self {
            HostOutput::Log(l) => l.level == LogLevel::Error,
            HostOutput::Error(_) => true,
            HostOutput::Reload(r) => !r.ok,
        }
    }
}

/// The console line: `[mod] text`, `[mod] warn: text`, `error: mod/file.lua:LINE: what`,
/// `[mod] reloaded in 6.1 ms (main.lua)`, `[mod] reload failed: ...`.
impl fmt::Display for HostOutput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HostOutput::Log(l) if l.level == LogLevel::Info => {
                write!(f, "[{}] {}", l.mod_name, l.text)
            }
            HostOutput::Log(l) => write!(f, "[{}] {}: {}", l.mod_name, l.level.as_str(), l.text),
            HostOutput::Error(e) => write!(f, "error: {e}"),
            HostOutput::Reload(r) if r.ok => write!(
                f,
                "[{}] reloaded in {:.1} ms ({})",
                r.mod_name,
                r.ms,
                r.files.join(", ")
            ),
            HostOutput::Reload(r) => write!(
                f,
                "[{}] reload failed: running the last good version",
                r.mod_name
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(level: LogLevel) -> HostOutput {
        HostOutput::Log(LogLine {
            mod_name: "m".into(),
            level,
            text: "hi".into(),
        })
    }

    #[test]
    fn one_console_format() {
        assert_eq!(log(LogLevel::Info).to_string(), "[m] hi");
        assert_eq!(log(LogLevel::Warn).to_string(), "[m] warn: hi");
        assert!(log(LogLevel::Error).is_error() && !log(LogLevel::Warn).is_error());
        let e = HostOutput::Error(ScriptError::from_text("m", "m/main.lua:3: boom"));
        assert_eq!(e.to_string(), "error: m/main.lua:3: boom");
        let r = ReloadReport {
            mod_name: "m".into(),
            ok: true,
            files: vec!["main.lua".into()],
            ms: 6.12,
            error: None,
            frame: 9,
        };
        assert_eq!(
            HostOutput::Reload(r.clone()).to_string(),
            "[m] reloaded in 6.1 ms (main.lua)"
        );
        let failed = HostOutput::Reload(ReloadReport { ok: false, ..r });
        assert!(failed.is_error());
        assert_eq!(
            failed.to_string(),
            "[m] reload failed: running the last good version"
        );
    }
}
