//! Record and replay: everything the World receives from outside after the mods have loaded
//! (script commands, spawns, level edits, clicks, hits), tick by tick, as JSON Lines.
//!
//! A replay loads the same mods (their level, types and load-time spawns come from the
//! files, so a tuning change shows) but runs no callbacks: the recorded inputs are fed to
//! the World instead, each before the tick it arrived in. With unchanged files a replay
//! reproduces the run's trace byte for byte.

use std::io::{self, BufRead, Write};

use glam::Vec3;
use serde::{Deserialize, Serialize};

use super::level::{BoxDesc, GroundDesc, StairsDesc};
use super::paths::Adopt;
use super::world::{Command, CreatureId, World};
use crate::math::bezier::BezierPath;

/// Format version written in the header.
pub(crate) const RECORD_VERSION: u32 = 1;

/// One input, as the World received it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Input {
    /// A queued command.
    Command {
        /// The command.
        cmd: Command,
    },
    /// A spawn (and the id it got).
    Spawn {
        /// Qualified type name.
        type_name: String,
        /// Where.
        position: Vec3,
        /// Heading, radians.
        yaw: f32,
        /// The id it got.
        id: CreatureId,
    },
    /// The ground was replaced.
    Ground {
        /// The new ground.
        desc: GroundDesc,
    },
    /// A box was added.
    Box {
        /// The box.
        desc: BoxDesc,
    },
    /// Stairs were added.
    Stairs {
        /// The stairs.
        desc: StairsDesc,
    },
    /// A link was added.
    Link {
        /// The link.
        desc: super::LinkDesc,
    },
    /// Brains whose state changed in the tick that starts at this frame, as the trace
    /// names them (`"running"`, …; `None`: no brain). The script host's, not the World's:
    /// a replay runs no brain, and shows these instead.
    Brains {
        /// (creature, its brain's state after the tick).
        changed: Vec<(CreatureId, Option<String>)>,
    },
    /// A named path got a new shape (a file saved, the path editor).
    Path {
        /// `"mod/name"`.
        key: String,
        /// The new shape.
        path: BezierPath,
        /// Inline followers it took over.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        adopt: Option<Adopt>,
    },
}

/// One line of a record file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// The World's frame when the input arrived (it takes effect in the tick from there).
    pub frame: u64,
    /// What arrived.
    #[serde(flatten)]
    pub input: Input,
}

/// The first line of a record file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// Format version.
    pub skitter_record: u32,
    /// The run's seed.
    pub seed: u64,
    /// Mods loaded, in load order.
    pub mods: Vec<String>,
}

/// Writes a record file line by line.
pub struct Recorder<W: Write> {
    out: W,
}

impl<W: Write> Recorder<W> {
    /// Starts a record: writes the header.
    pub fn new(mut out: W, header: &Header) -> io::Result<Recorder<W>> {
        serde_json::to_writer(&mut out, header)?;
        out.write_all(b"\n")?;
        Ok(Recorder { out })
    }

    /// Appends what the world received since the last call.
    pub fn write(&mut self, entries: &[Entry]) -> io::Result<()> {
        for e in entries {
            serde_json::to_writer(&mut self.out, e)?;
            self.out.write_all(b"\n")?;
        }
        Ok(())
    }

    /// Flushes the output.
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// A loaded record, fed back to a World tick by tick.
#[derive(Clone, Debug)]
pub struct Replay {
    /// The header.
    pub header: Header,
    entries: Vec<Entry>,
    next: usize,
    /// Brain states fed and not yet taken (see [`Replay::take_brains`]).
    brains: Vec<(CreatureId, Option<String>)>,
}

/// Why a record could not be read or replayed.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// Not readable.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// A line that is not a record entry.
    #[error("line {line}: {message}")]
    Parse {
        /// 1-based line.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The world no longer matches the record.
    #[error("replay diverged at frame {frame}: {message}")]
    Diverged {
        /// Frame.
        frame: u64,
        /// What differs.
        message: String,
    },
}

impl Replay {
    /// Reads a record file.
    pub fn read(input: impl BufRead) -> Result<Replay, ReplayError> {
        let mut lines = input.lines().enumerate();
        let header: Header = match lines.next() {
            Some((_, l)) => serde_json::from_str(&l?).map_err(|e| ReplayError::Parse {
                line: 1,
                message: format!("not a skitter record header: {e}"),
            })?,
            None => {
                return Err(ReplayError::Parse {
                    line: 1,
                    message: "empty file".into(),
                })
            }
        };
        if header.skitter_record != RECORD_VERSION {
            return Err(ReplayError::Parse {
                line: 1,
                message: format!(
                    "record version {} (this skitter reads {RECORD_VERSION})",
                    header.skitter_record
                ),
            });
        }
        let mut entries = Vec::new();
        for (i, l) in lines {
            let l = l?;
            if l.trim().is_empty() {
                continue;
            }
            let e: Entry = serde_json::from_str(&l).map_err(|e| ReplayError::Parse {
                line: i + 1,
                message: e.to_string(),
            })?;
            entries.push(e);
        }
        Ok(Replay {
            header,
            entries,
            next: 0,
            brains: Vec::new(),
        })
    }

    /// Entries not yet fed.
    pub fn remaining(&self) -> usize {
        self.entries.len() - self.next
    }

    /// The brain states fed since the last call (the host shows them: see `Input::Brains`).
    pub fn take_brains(&mut self) -> Vec<(CreatureId, Option<String>)> {
        std::mem::take(&mut self.brains)
    }

    /// Feeds `world` every input recorded for its current frame (call before each tick).
    pub fn feed(&mut self, world: &mut World) -> Result<(), ReplayError> {
        let frame = world.frame();
        while let Some(e) = self.entries.get(self.next) {
            if e.frame > frame {
                break;
            }
            self.next += 1;
            let diverged = |message: String| ReplayError::Diverged { frame, message };
            match &e.input {
                Input::Command { cmd } => world.push(cmd.clone()),
                Input::Spawn {
                    type_name,
                    position,
                    yaw,
                    id,
                } => {
                    let t = world
                        .type_by_name(type_name)
                        .ok_or_else(|| diverged(format!("no creature type \"{type_name}\"")))?;
                    let got = world
                        .spawn(t, *position, *yaw)
                        .ok_or_else(|| diverged(format!("could not spawn \"{type_name}\"")))?;
                    if got != *id {
                        return Err(diverged(format!(
                            "a spawn got id {} where the record has {} (did the mods' load-time spawns change?)",
                            got.0, id.0
                        )));
                    }
                }
                Input::Ground { desc } => world
                    .set_ground(desc)
                    .map_err(|err| diverged(err.to_string()))?,
                Input::Box { desc } => world
                    .add_box(desc.clone())
                    .map_err(|err| diverged(err.to_string()))?,
                Input::Stairs { desc } => world
                    .add_stairs(desc.clone())
                    .map_err(|err| diverged(err.to_string()))?,
                Input::Link { desc } => world
                    .add_link(desc.clone())
                    .map_err(|err| diverged(err.to_string()))?,
                Input::Path { key, path, adopt } => {
                    world.set_path(key, std::sync::Arc::new(path.clone()), adopt.clone());
                }
                Input::Brains { changed } => self.brains.extend(changed.iter().cloned()),
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::locomotion::Intent;

    #[test]
    fn entries_round_trip_exactly() {
        let entries = vec![
            Entry {
                frame: 3,
                input: Input::Command {
                    cmd: Command::SetIntent(
                        CreatureId(2),
                        Intent::Move {
                            dir: Vec3::new(0.1f32.sin(), 0.0, 0.1f32.cos()),
                            speed: 1.0 / 3.0,
                            drop: false,
                        },
                    ),
                },
            },
            Entry {
                frame: 4,
                input: Input::Command {
                    cmd: Command::Hit(CreatureId(2), Vec3::X, 0.7),
                },
            },
            Entry {
                frame: 4,
                input: Input::Spawn {
                    type_name: "spider/spider".into(),
                    position: Vec3::new(1.0, 0.0, std::f32::consts::PI),
                    yaw: 0.3,
                    id: CreatureId(9),
                },
            },
        ];
        let mut buf = Vec::new();
        let mut r = Recorder::new(
            &mut buf,
            &Header {
                skitter_record: RECORD_VERSION,
                seed: 7,
                mods: vec!["a".into()],
            },
        )
        .expect("header");
        r.write(&entries).expect("write");
        let back = Replay::read(io::Cursor::new(buf)).expect("read");
        assert_eq!(back.header.seed, 7);
        assert_eq!(
            back.entries, entries,
            "f32 values survive the text round trip"
        );
        let bad = Replay::read(io::Cursor::new(b"{\"x\":1}\n".to_vec()));
        assert!(matches!(bad, Err(ReplayError::Parse { line: 1, .. })));
    }
}
