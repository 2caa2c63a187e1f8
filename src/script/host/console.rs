//! Console lines in the host: which state runs them (a mod's, or the console's own scratch
//! state that may `require` from every loaded mod), under that state's sandbox and budget; a
//! line that fails leaves the world as it was (and out of a recording).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::rc::Rc;

use mlua::{Function, Lua, MultiValue};

use super::ScriptHost;
use crate::script::budget::Budget;
use crate::script::console::{self, ConsoleReply};
use crate::script::error::root_message;
use crate::script::manifest::{Dependency, Manifest};

/// The console's own state's mod name (no mod may take it: see `CONSOLE_DIR`).
pub const CONSOLE_MOD: &str = "console";
/// Chunk name of console lines: errors read `console.lua:LINE: …`.
const CHUNK: &str = "console.lua";
/// The console state's own folder: none (a relative `require` finds nothing; `@mod/x` works).
const CONSOLE_DIR: &str = "<console>";

/// The console's own state, and the mods loaded when it was made.
pub(super) struct ConsoleState {
    lua: Lua,
    budget: Rc<Budget>,
    mods: Vec<String>,
}

/// Why a line does not compile: unfinished, or wrong.
enum Compile {
    Incomplete,
    Wrong(String),
}

/// A `local` that starts an entry declares a global of the state instead, so the next line
/// can use it (`local c = world.spawn(…)`, then `c:move(…)`), as a modder typing expects.
fn keep_locals(src: &str) -> Option<String> {
    let lead = src.len() - src.trim_start().len();
    let rest = src[lead..].strip_prefix("local ")?;
    Some(format!("{}{}", &src[..lead], rest.trim_start()))
}

/// The line as a function: `return LINE` when it is an expression (its value is shown),
/// else the line as statements (a leading `local` kept as a global where that compiles:
/// `local x: number = 1` keeps its `local`).
fn compile(lua: &Lua, src: &str) -> Result<Function, Compile> {
    let chunk =
        |text: &str| crate::script::source::chunk(lua, text.as_bytes(), CHUNK).into_function();
    if let Ok(f) = chunk(&format!("return {src}")) {
        return Ok(f);
    }
    if let Some(Ok(f)) = keep_locals(src).map(|g| chunk(&g)) {
        return Ok(f);
    }
    chunk(src).map_err(|e| match e {
        mlua::Error::SyntaxError {
            incomplete_input: true,
            ..
        } => Compile::Incomplete,
        other => Compile::Wrong(root_message(&other)),
    })
}

impl ScriptHost {
    /// The console's own state, made (again) when the loaded mods changed.
    fn console_state(&mut self) -> mlua::Result<(Lua, Rc<Budget>)> {
        let mods = self.loaded_mods();
        if let Some(c) = self.console.as_ref().filter(|c| c.mods == mods) {
            return Ok((c.lua.clone(), c.budget.clone()));
        }
        let mut all: BTreeMap<String, Manifest> = self
            .mods
            .iter()
            .map(|m| (m.manifest.name.clone(), m.manifest.clone()))
            .collect();
        let mut me = Manifest::parse(
            &format!("name = \"{CONSOLE_MOD}\"\nversion = \"0.0.0\"\n"),
            &PathBuf::from(CONSOLE_DIR),
        )
        .map_err(|e| mlua::Error::runtime(e.to_string()))?;
        me.depends = mods
            .iter()
            .filter_map(|n| Dependency::parse(n).ok())
            .collect();
        all.insert(CONSOLE_MOD.to_string(), me.clone());
        let (lua, budget) = self.new_state(&me, &all)?;
        self.console = Some(ConsoleState {
            lua: lua.clone(),
            budget: budget.clone(),
            mods,
        });
        Ok((lua, budget))
    }

    /// The state (and its budget, and mod name) a console line for `target` runs in.
    fn console_lua(&mut self, target: Option<&str>) -> Result<(Lua, Rc<Budget>, String), String> {
        match target {
            None => self
                .console_state()
                .map(|(l, b)| (l, b, CONSOLE_MOD.to_string()))
                .map_err(|e| format!("cannot make the console's state: {e}")),
            Some(name) => match self.mods.iter().find(|m| m.manifest.name == name) {
                Some(m) if m.suspended.is_some() => Err(format!(
                    "mod \"{name}\" is suspended; its state runs nothing until it reloads"
                )),
                Some(m) => Ok((m.lua.clone(), m.budget.clone(), name.to_string())),
                None => Err(format!("no mod \"{name}\" is loaded")),
            },
        }
    }

    /// Runs console line(s) `src` in mod `target`'s state (`None`: the console's own), with
    /// that mod's sandbox, memory cap and a tick's work allowance. An expression's values
    /// come back pretty-printed. A line that fails is reported and undone: the world (and a
    /// recording) as before it. Off during a replay.
    pub fn console_eval(&mut self, target: Option<&str>, src: &str) -> ConsoleReply {
        if self.replaying {
            return ConsoleReply::Err("a replay runs no scripts: the console is off".into());
        }
        let (lua, budget, mod_name) = match self.console_lua(target) {
            Ok(s) => s,
            Err(e) => return ConsoleReply::Err(e),
        };
        let f = match compile(&lua, src) {
            Ok(f) => f,
            Err(Compile::Incomplete) => return ConsoleReply::Incomplete,
            Err(Compile::Wrong(e)) => return ConsoleReply::Err(e),
        };
        let (cp, shared_cp, inputs, recorded, types) = {
            let w = self.world.borrow();
            (
                w.checkpoint(),
                self.shared.borrow().clone(),
                w.inputs(),
                w.recorded_len(),
                w.types().len(),
            )
        };
        budget.reset(self.opts.work_per_tick, 0, 0, self.opts.cpu_per_tick);
        budget.begin();
        let r = f.call::<MultiValue>(());
        budget.end();
        match r {
            Ok(values) => {
                self.apply_brain_requests();
                ConsoleReply::Ok(values.iter().map(|v| console::pretty(&lua, v)).collect())
            }
            Err(e) => {
                let err = self.error_from(&mod_name, &budget, &e);
                let mut w = self.world.borrow_mut();
                if w.inputs() != inputs || w.types().len() != types {
                    w.restore(cp);
                    w.truncate_recorded(recorded);
                }
                drop(w);
                let mut sh = self.shared.borrow_mut();
                let logs = std::mem::take(&mut sh.logs);
                *sh = shared_cp;
                sh.logs = logs;
                drop(sh);
                let _ = crate::script::api::forget_missing_handles(&lua, &self.world.borrow());
                ConsoleReply::Err(err.to_string())
            }
        }
    }

    /// Completions of the name at the end of `text` in `target`'s state: where the name
    /// starts in `text`, and the candidates.
    pub fn console_complete(&mut self, target: Option<&str>, text: &str) -> (usize, Vec<String>) {
        match self.console_lua(target) {
            Ok((lua, _, _)) => console::complete(&lua, text),
            Err(_) => (text.len(), Vec::new()),
        }
    }

    /// Mod names a console line may run in (besides the console's own state), in load order:
    /// the running mods.
    pub fn console_targets(&self) -> Vec<String> {
        self.running_mods()
    }
}
