//! The console a modder types Luau into while the world runs (the window's `` ` `` panel,
//! `skitter run --console` on stdin): history, multi-line entries, completion, a chosen
//! mod's state. Lines run through [`ScriptHost::console_eval`] — the mod's sandbox and
//! budget, results pretty-printed, a failed line undone — between ticks, so what they do to
//! the world is recorded like any input and a replay reproduces it.

mod complete;
mod pretty;

use std::collections::VecDeque;

pub(crate) use complete::complete;
pub(crate) use pretty::pretty;

use super::ScriptHost;

/// What a console line did.
#[derive(Clone, Debug, PartialEq)]
pub enum ConsoleReply {
    /// It ran: its results, pretty-printed (empty: it returned nothing).
    Ok(Vec<String>),
    /// Not a whole chunk yet (an open `do`, `function`, table or string): more lines follow.
    Incomplete,
    /// It failed (or could not run): why. The world is as it was before the line.
    Err(String),
}

/// What a line in the console's scrollback is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConsoleKind {
    /// What was typed.
    Input,
    /// A result.
    Result,
    /// An error, or a directive's complaint.
    Error,
    /// What the console says about itself (a directive's answer, help).
    Note,
    /// A mod's log line (`print` in a console line, a brain's `log.info`).
    Log,
}

/// One line of the console's scrollback.
#[derive(Clone, Debug, PartialEq)]
pub struct ConsoleLine {
    /// What it is.
    pub kind: ConsoleKind,
    /// Its text (may span lines).
    pub text: String,
}

/// A completion: the input with the name completed as far as the candidates agree, and the
/// candidates when more than one remain.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Completion {
    /// The new input.
    pub text: String,
    /// Names that would fit (empty: one fitted, or none).
    pub options: Vec<String>,
}

/// The most entries kept in history and lines in the scrollback.
const HISTORY: usize = 500;
const SCROLLBACK: usize = 2000;

/// Console directives (lines starting with `:`).
const HELP: &str = "Luau runs in the chosen mod's state (default: the console's own, which may \
require \"@mod/module\" from every loaded mod). An expression's value is printed; an \
unfinished chunk continues on the next line.\n  :mod NAME   run lines in mod NAME's state\n  \
:mod        back to the console's own state\n  :mods       the states a line may run in\n  \
:help       this";

/// A console session: history, the unfinished entry, the chosen state, the scrollback.
#[derive(Debug, Default)]
pub struct Console {
    history: Vec<String>,
    pending: Vec<String>,
    browse: Option<usize>,
    target: Option<String>,
    scrollback: VecDeque<ConsoleLine>,
}

impl Console {
    /// A new session running lines in the console's own state.
    pub fn new() -> Console {
        Console::default()
    }

    /// The mod whose state runs lines (`None`: the console's own).
    pub fn target(&self) -> Option<&str> {
        self.target.as_deref()
    }

    /// Runs lines in mod `name`'s state from now on (`None`: the console's own).
    pub fn set_target(&mut self, name: Option<String>) {
        self.target = name;
    }

    /// `"> "`, or `">> "` while an entry is unfinished.
    pub fn prompt(&self) -> &'static str {
        if self.pending.is_empty() {
            "> "
        } else {
            ">> "
        }
    }

    /// What the console has shown, oldest first.
    pub fn scrollback(&self) -> &VecDeque<ConsoleLine> {
        &self.scrollback
    }

    /// Entries run so far, oldest first.
    pub fn history(&self) -> &[String] {
        &self.history
    }

    fn say(&mut self, out: &mut Vec<ConsoleLine>, kind: ConsoleKind, text: String) {
        let line = ConsoleLine { kind, text };
        if self.scrollback.len() == SCROLLBACK {
            self.scrollback.pop_front();
        }
        self.scrollback.push_back(line.clone());
        out.push(line);
    }

    /// Takes one typed line: runs it (or the entry it completes) in the chosen state, or
    /// keeps it when the entry is unfinished, or answers a `:` directive. Returns what the
    /// console shows for it (also kept in the scrollback).
    pub fn submit(&mut self, host: &mut ScriptHost, line: &str) -> Vec<ConsoleLine> {
        let mut out = Vec::new();
        self.browse = None;
        let prompt = self.prompt();
        self.say(&mut out, ConsoleKind::Input, format!("{prompt}{line}"));
        if self.pending.is_empty() && line.trim_start().starts_with(':') {
            self.directive(host, line.trim(), &mut out);
            return out;
        }
        self.pending.push(line.to_string());
        let entry = self.pending.join("\n");
        if entry.trim().is_empty() {
            self.pending.clear();
            return out;
        }
        let reply = host.console_eval(self.target.as_deref(), &entry);
        if reply == ConsoleReply::Incomplete {
            return out;
        }
        self.pending.clear();
        if self.history.last() != Some(&entry) {
            if self.history.len() == HISTORY {
                self.history.remove(0);
            }
            self.history.push(entry);
        }
        match reply {
            ConsoleReply::Ok(values) => {
                for v in values {
                    self.say(&mut out, ConsoleKind::Result, v);
                }
            }
            ConsoleReply::Err(e) => self.say(&mut out, ConsoleKind::Error, e),
            ConsoleReply::Incomplete => {}
        }
        out
    }

    /// Shows a mod's log line in the scrollback (as the run's output prints it).
    pub fn note_log(&mut self, line: &super::LogLine) {
        let text = super::HostOutput::Log(line.clone()).to_string();
        self.say(&mut Vec::new(), ConsoleKind::Log, text);
    }

    /// Drops an unfinished entry (Escape, Ctrl-C).
    pub fn cancel(&mut self) {
        self.pending.clear();
        self.browse = None;
    }

    fn directive(&mut self, host: &ScriptHost, line: &str, out: &mut Vec<ConsoleLine>) {
        let mut words = line[1..].split_whitespace();
        match (words.next(), words.next()) {
            (Some("mod"), None) => {
                self.target = None;
                self.say(
                    out,
                    ConsoleKind::Note,
                    "lines run in the console's own state".into(),
                );
            }
            (Some("mod"), Some(name)) if host.loaded_mods().iter().any(|m| m == name) => {
                self.target = Some(name.to_string());
                self.say(
                    out,
                    ConsoleKind::Note,
                    format!("lines run in mod \"{name}\"'s state"),
                );
            }
            (Some("mod"), Some(name)) => {
                let text = format!(
                    ":mod: no mod \"{name}\" is loaded (loaded: {})",
                    host.loaded_mods().join(", ")
                );
                self.say(out, ConsoleKind::Error, text);
            }
            (Some("mods"), _) => {
                let text = format!("console (own), {}", host.loaded_mods().join(", "));
                self.say(out, ConsoleKind::Note, text);
            }
            (Some("help"), _) => self.say(out, ConsoleKind::Note, HELP.into()),
            _ => self.say(
                out,
                ConsoleKind::Error,
                format!("unknown directive \"{line}\" (:help lists them)"),
            ),
        }
    }

    /// The entry before the one shown (Up), starting from the newest.
    pub fn history_back(&mut self) -> Option<&str> {
        let i = match self.browse {
            None => self.history.len().checked_sub(1)?,
            Some(i) => i.saturating_sub(1),
        };
        self.browse = Some(i);
        self.history.get(i).map(String::as_str)
    }

    /// The entry after the one shown (Down); `None` past the newest (a new line).
    pub fn history_forward(&mut self) -> Option<&str> {
        let i = self.browse? + 1;
        if i >= self.history.len() {
            self.browse = None;
            return None;
        }
        self.browse = Some(i);
        self.history.get(i).map(String::as_str)
    }

    /// Completes the name at the end of `input` in the chosen state.
    pub fn complete(&self, host: &mut ScriptHost, input: &str) -> Completion {
        let (start, names) = host.console_complete(self.target.as_deref(), input);
        match names.as_slice() {
            [] => Completion {
                text: input.to_string(),
                options: Vec::new(),
            },
            [one] => Completion {
                text: format!("{}{one}", &input[..start]),
                options: Vec::new(),
            },
            many => Completion {
                text: format!("{}{}", &input[..start], complete::common_prefix(many)),
                options: names,
            },
        }
    }
}
