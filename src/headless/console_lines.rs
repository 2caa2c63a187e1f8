//! `skitter run --headless --console`: lines typed on stdin (read on a thread of their own,
//! so the world never waits for them) run in the console between ticks; what they show goes
//! to the run's console output.

use std::io::{self, BufRead, Write};
use std::sync::mpsc::{self, Receiver, TryRecvError};

use crate::script::console::{Console, ConsoleKind};
use crate::script::ScriptHost;

/// Lines from stdin as they arrive.
pub(super) struct StdinLines {
    rx: Receiver<String>,
    open: bool,
}

impl StdinLines {
    /// Starts reading stdin on a thread.
    pub(super) fn spawn() -> StdinLines {
        let (tx, rx) = mpsc::channel();
        std::thread::Builder::new()
            .name("console stdin".into())
            .spawn(move || {
                for line in io::stdin().lock().lines() {
                    let Ok(line) = line else { break };
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            })
            .ok();
        StdinLines { rx, open: true }
    }

    /// Runs every line that arrived in `console`, writing what it shows to `out` (results
    /// as they are, errors after `error: `, unfinished entries' prompts). Returns whether
    /// stdin is still open.
    pub(super) fn run(
        &mut self,
        host: &mut ScriptHost,
        console: &mut Console,
        out: &mut dyn Write,
    ) -> io::Result<bool> {
        while self.open {
            let line = match self.rx.try_recv() {
                Ok(l) => l,
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    self.open = false;
                    break;
                }
            };
            for shown in console.submit(host, &line) {
                match shown.kind {
                    ConsoleKind::Input => {}
                    ConsoleKind::Result | ConsoleKind::Note | ConsoleKind::Log => {
                        writeln!(out, "{}", shown.text)?
                    }
                    ConsoleKind::Error => writeln!(out, "error: {}", shown.text)?,
                }
            }
            if console.prompt() != "> " {
                writeln!(out, "{}", console.prompt().trim_end())?;
            }
        }
        Ok(self.open)
    }
}
