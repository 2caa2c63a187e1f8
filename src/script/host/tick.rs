//! The script half of a tick: brains attached, `on_spawn`/`on_update` before the world
//! steps, `on_step`/`on_hit`/`on_arrive` after, each call under its mod's budget. No borrow
//! of the World is held across a call into Lua.

use std::rc::Rc;

use mlua::{Function, Table, Value};

use super::{Brain, Callback, Callbacks, ScriptHost, BRAIN_BACKOFF, BRAIN_FAILURES};
use crate::locomotion::Intent;
use crate::script::api;
use crate::script::convert::{to_vector, CALLBACKS};
use crate::script::error::ScriptError;
use crate::script::plain::Plain;
use crate::script::shared::{BrainKind, BrainRequest, LogLevel, LogLine};
use crate::sim::{Command, CreatureId, WorldEvent, TICK_DT};

impl ScriptHost {
    /// One tick: on_spawn for new brains, on_update for all, `World::step`, then on_step for
    /// every landed foot. Returns the world events of the tick.
    pub fn tick(&mut self) -> Vec<WorldEvent> {
        if self.replaying {
            self.world.borrow_mut().step(TICK_DT);
            let events = self.world.borrow_mut().drain_events();
            self.forget_gone();
            return events;
        }
        // Off (the usual case) the laps read no clock.
        let mut lap = super::profiling::Laps::start(self.profiler.is_some());
        let mut s = super::profiling::ScriptTimes::default();
        self.migrate_share();
        self.apply_brain_requests();
        self.reset_budgets();
        s.brains += lap.next();
        self.run_updates();
        s.updates += lap.next();
        self.apply_brain_requests();
        s.brains += lap.next();
        self.world.borrow_mut().step(TICK_DT);
        let events = self.world.borrow_mut().drain_events();
        self.start_crowd_updates();
        let stepped = lap.next();
        self.release_manual(&events);
        self.dispatch_steps(&events);
        s.events += lap.next();
        self.forget_gone();
        s.brains += lap.next();
        if let Some(total) = lap.total() {
            self.profile_tick(total, s, stepped);
        }
        events
    }

    /// The crowds' navigation updates the step deferred, started on the world's pool: they
    /// run beside what comes before the next step (the step's callbacks, the frame's
    /// drawing, the next tick's brains), which do not touch the crowds (commands reach them in
    /// the step); a navmesh query does not wait for them, and whatever touches a crowd first
    /// waits for its update. The same updates in the same order as beside locomotion, so
    /// the trace is the same at any thread count.
    fn start_crowd_updates(&self) {
        let mut w = self.world.borrow_mut();
        let Some(pool) = w.pool() else {
            return;
        };
        for update in w.take_crowd_updates() {
            // A panic there would abort the process from the pool; caught, it drops the
            // crowd instead, and the navigator says so at its next use — a panic in the
            // step, as it was when the update ran inside it.
            pool.spawn(move || {
                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| update.run()));
            });
        }
    }

    /// Every mod's tick allowance: the base plus a share per creature its brains drive.
    pub(super) fn reset_budgets(&mut self) {
        let mut drives = vec![0u64; self.mods.len()];
        for b in self.brains.values() {
            if let Some(n) = drives.get_mut(b.mod_idx) {
                *n += 1;
            }
        }
        for (m, n) in self.mods.iter().zip(drives) {
            m.budget.reset(
                self.opts.work_per_tick,
                self.opts.work_per_creature,
                n,
                self.opts.cpu_per_tick,
            );
        }
    }

    /// The script half of a tick: `on_spawn` for new brains, then `on_update` for every brain,
    /// in creature id order. (`tick` calls this; benches call it alone.) `on_update` goes
    /// into Lua once per run of consecutive creatures of one mod (usually once per mod), not
    /// once per creature: a loop in the mod's state calls each brain.
    pub fn run_updates(&mut self) {
        let new: Vec<CreatureId> = self
            .brains
            .iter()
            .filter(|(_, b)| b.spawn_pending)
            .map(|(id, _)| *id)
            .collect();
        for id in &new {
            let Some(b) = self.brains.get_mut(id) else {
                continue;
            };
            b.spawn_pending = false;
            if let Some(f) = b.cb.get(Callback::Spawn).cloned() {
                self.call(*id, &f, Value::Nil);
            }
        }
        self.run_on_update();
    }

    /// Calls `on_step` for every landed foot, and every other event's callback.
    fn dispatch_steps(&mut self, events: &[WorldEvent]) {
        // Most brains have no on_step: a crowd's thousand landings a tick need no lookup then.
        let steps = self.any_on_step();
        for ev in events {
            match ev {
                WorldEvent::Step { .. } | WorldEvent::Lift { .. } if !steps => {}
                WorldEvent::Step {
                    id,
                    leg,
                    position,
                    speed,
                } => self.on_foot(*id, *leg, *position, Some(*speed)),
                WorldEvent::Lift { id, leg, position } => self.on_foot(*id, *leg, *position, None),
                other => self.dispatch_event(other),
            }
        }
    }

    /// A landed foot (`speed`: how fast it came down): its creature's brain's `on_step` with
    /// `{ name, position, speed, piece, surface }` (the level piece under it: its `name` and
    /// `surface`, nil where it has none); a foot that lifted (`None`): `on_lift` with
    /// `{ name, position }`.
    fn on_foot(&mut self, id: CreatureId, leg: usize, position: glam::Vec3, speed: Option<f32>) {
        let Some(b) = self.brains.get(&id) else {
            return;
        };
        let f = if speed.is_some() {
            b.cb.get(Callback::Step).cloned()
        } else {
            b.cb.get(Callback::Lift).cloned()
        };
        let Some(f) = f else { return };
        let lua = &self.mods[b.mod_idx].lua;
        let (leg_name, tag) = {
            let mut w = self.world.borrow_mut();
            let name = w
                .creature(id)
                .and_then(|c| c.def.legs.get(leg).map(|l| l.name.clone()))
                .unwrap_or_default();
            // What it landed on (a landing only: a lift says where it left from).
            let tag = speed.and_then(|_| w.surface_under(position));
            (name, tag)
        };
        let arg = (|| -> mlua::Result<Value> {
            let t = lua.create_table_with_capacity(0, 5)?;
            t.raw_set("name", leg_name)?;
            t.raw_set("position", to_vector(position))?;
            if let Some(v) = speed {
                t.raw_set("speed", v)?;
            }
            if let Some(tag) = tag {
                t.raw_set("piece", tag.name)?;
                t.raw_set("surface", tag.surface)?;
            }
            Ok(Value::Table(t))
        })();
        if let Ok(arg) = arg {
            self.call(id, &f, arg);
        }
    }

    /// Any event but a step: the callback its brain has for it, or a log line.
    fn dispatch_event(&mut self, ev: &WorldEvent) {
        match ev {
            WorldEvent::Step { .. }
            | WorldEvent::Lift { .. }
            | WorldEvent::Impact { .. }
            | WorldEvent::Land { .. } => {}
            WorldEvent::Arrive { id } => {
                if let Some(f) = self.callback(*id, Callback::Arrive) {
                    self.call(*id, &f, Value::Nil);
                }
            }
            WorldEvent::NavWarning { id, message } => {
                self.log_about(*id, LogLevel::Warn, message.clone());
            }
            WorldEvent::Despawn { id } => {
                // The creature is gone from the world; its brain still has its handle
                // (`state`, `params`) until the end of this tick.
                if let Some(f) = self.callback(*id, Callback::Despawn) {
                    self.call(*id, &f, Value::Nil);
                }
            }
            WorldEvent::Ragdoll { id, cause } => {
                if let Some(f) = self.callback(*id, Callback::Ragdoll) {
                    self.call_with(*id, &f, cause.name());
                }
            }
            WorldEvent::Recover { id } => {
                if let Some(f) = self.callback(*id, Callback::Recover) {
                    self.call(*id, &f, Value::Nil);
                }
            }
            WorldEvent::RecoverFailed { id, tries } => {
                self.log_about(
                    *id,
                    LogLevel::Warn,
                    format!(
                        "gave up getting up after {tries} tries (it stays limp until c:recover())"
                    ),
                );
                if let Some(f) = self.callback(*id, Callback::RecoverFailed) {
                    self.call_with(*id, &f, *tries as f64);
                }
            }
            WorldEvent::Link { id, kind, from, to } => {
                let Some(f) = self.callback(*id, Callback::Link) else {
                    return;
                };
                let args = (kind.as_str(), to_vector(*from), to_vector(*to));
                if self.call_for(*id, &f, args) {
                    // The brain takes the crossing: the built-in one stops before the
                    // take-off, and the creature waits at the link.
                    self.world.borrow_mut().push(Command::HoldLink(*id));
                }
            }
            WorldEvent::Surface {
                id,
                normal,
                surface,
            } => {
                if let Some(f) = self.callback(*id, Callback::Surface) {
                    self.call_with(*id, &f, (to_vector(*normal), surface.name()));
                }
            }
            WorldEvent::Refused { id, message } => {
                self.log_about(*id, LogLevel::Error, message.clone());
            }
            WorldEvent::Hit { id, dir, strength } => {
                let Some(f) = self.callback(*id, Callback::Hit) else {
                    return;
                };
                let args = (to_vector(*dir), *strength as f64);
                self.call_with(*id, &f, args);
            }
        }
    }

    /// Creature `id`'s brain's callback `which`, if it has a brain with one.
    pub(super) fn callback(&self, id: CreatureId, which: Callback) -> Option<Function> {
        self.brains.get(&id).and_then(|b| b.cb.get(which).cloned())
    }

    /// Whether any brain has an `on_step` (worked out again only when brains change).
    fn any_on_step(&mut self) -> bool {
        let (gen, any) = self.on_step_seen;
        if gen == self.brains_gen {
            return any;
        }
        let any = self
            .brains
            .values()
            .any(|b| b.cb.get(Callback::Step).is_some() || b.cb.get(Callback::Lift).is_some());
        self.on_step_seen = (self.brains_gen, any);
        any
    }

    /// A console line about a creature, under the mod that drives it.
    fn log_about(&mut self, id: CreatureId, level: LogLevel, message: String) {
        let mod_name = self
            .brains
            .get(&id)
            .map(|b| self.mods[b.mod_idx].manifest.name.clone())
            .unwrap_or_else(|| "world".into());
        self.shared.borrow_mut().logs.push(LogLine {
            mod_name,
            level,
            text: format!("creature {}: {message}", id.0),
        });
    }

    /// Forgets the brains of creatures that are gone.
    fn forget_gone(&mut self) {
        let removals = self.world.borrow().removals();
        if removals == self.removals_seen {
            // No creature left the world since the last look.
            return;
        }
        self.removals_seen = removals;
        let gone: Vec<CreatureId> = {
            // Both in id order: one walk down each.
            let w = self.world.borrow();
            let mut alive = w.creatures().iter().map(|c| c.id).peekable();
            self.brains
                .keys()
                .filter(|id| {
                    while alive.next_if(|a| a < *id).is_some() {}
                    alive.peek() != Some(*id)
                })
                .copied()
                .collect()
        };
        for id in gone {
            if let Some(b) = self.brains.remove(&id) {
                let _ = api::drop_handle(&self.mods[b.mod_idx].lua, id);
            }
        }
    }

    /// Attaches the brains scripts asked for (spawns, `c:set_behaviour`, reloads).
    pub(super) fn apply_brain_requests(&mut self) {
        let requests = std::mem::take(&mut self.shared.borrow_mut().brain_requests);
        // Callbacks and default params, once per (mod, brain kind).
        let mut templates: Vec<((usize, BrainKind), BrainTemplate)> = Vec::new();
        for req in requests {
            let Some(mod_idx) = self
                .mods
                .iter()
                .position(|m| m.manifest.name == req.mod_name)
            else {
                continue;
            };
            let type_name = {
                let w = self.world.borrow();
                match w.creature(req.id) {
                    Some(c) => w
                        .creature_type(c.type_id)
                        .map(|t| t.name.clone())
                        .unwrap_or_default(),
                    None => continue,
                }
            };
            let lua = &self.mods[mod_idx].lua;
            let key = (mod_idx, req.kind.clone());
            let template = match templates.iter().find(|(k, _)| *k == key) {
                Some((_, t)) => Ok(t),
                None => brain_template(lua, &req).map(|t| {
                    templates.push((key, t));
                    &templates[templates.len() - 1].1
                }),
            };
            match template.and_then(|t| build_brain(lua, mod_idx, &req, &type_name, t)) {
                Ok(b) => {
                    self.brains_gen += 1;
                    self.brains.insert(req.id, b);
                }
                Err(e) => {
                    let err = self.error_from(&req.mod_name, &self.mods[mod_idx].budget, &e);
                    self.report(err);
                }
            }
        }
    }

    /// Calls `f(handle, arg)` in mod `mod_idx` under its budget. On failure: a budget overrun
    /// suspends the mod (its creatures stop); any other error detaches this creature's brain.
    pub(super) fn call(&mut self, id: CreatureId, f: &Function, arg: Value) {
        self.call_with(id, f, arg);
    }

    /// Calls `f(self_handle, args...)` for creature `id` under its mod's budget.
    pub(super) fn call_with(
        &mut self,
        id: CreatureId,
        f: &Function,
        args: impl mlua::IntoLuaMulti,
    ) {
        self.call_for(id, f, args);
    }

    /// As [`Self::call_with`], and whether the call returned a value other than `nil` or
    /// `false` (`false` too when it did not run or failed).
    pub(super) fn call_for(
        &mut self,
        id: CreatureId,
        f: &Function,
        args: impl mlua::IntoLuaMulti,
    ) -> bool {
        let frame = self.world.borrow().frame();
        let Some(brain) = self.brains.get_mut(&id) else {
            return false;
        };
        if let Some(at) = brain.resume_at {
            if frame < at {
                return false;
            }
            brain.resume_at = None;
        }
        let brain = &*brain;
        let mod_idx = brain.mod_idx;
        let rt = &self.mods[mod_idx];
        if rt.suspended.is_some() {
            return false;
        }
        let mut argv = match args.into_lua_multi(&rt.lua) {
            Ok(a) => a,
            Err(_) => return false,
        };
        argv.push_front(Value::Table(brain.handle.clone()));
        self.shared.borrow_mut().calling = Some(id);
        let profiled = self
            .profiler
            .is_some()
            .then(|| (std::time::Instant::now(), rt.budget.units_used()));
        rt.budget.begin();
        let r = f.call::<Value>(argv);
        rt.budget.end();
        self.shared.borrow_mut().calling = None;
        if let Some(start) = profiled {
            self.profile_call(id, f, start);
        }
        match r {
            Ok(v) => !matches!(v, Value::Nil | Value::Boolean(false)),
            Err(e) => {
                self.fail(id, mod_idx, frame, &e, Some(f));
                false
            }
        }
    }

    /// A callback of creature `id` (mod `mod_idx`) failed with `e` at `frame`. A budget
    /// overrun suspends the mod (its creatures stop); any other error stands the creature,
    /// and its brain backs off and is detached after repeated errors.
    pub(super) fn fail(
        &mut self,
        id: CreatureId,
        mod_idx: usize,
        frame: u64,
        e: &mlua::Error,
        cb: Option<&Function>,
    ) {
        let overrun = self.mods[mod_idx].budget.overrun.get().is_some()
            || matches!(e, mlua::Error::MemoryError(_));
        let err = self.callback_error(
            &self.mods[mod_idx].manifest.name.clone(),
            &self.mods[mod_idx].budget,
            e,
            cb,
        );
        if overrun {
            let name = self.mods[mod_idx].manifest.name.clone();
            self.mods[mod_idx].suspended = Some(err.to_string());
            let ids: Vec<CreatureId> = self
                .brains
                .iter()
                .filter(|(_, b)| b.mod_idx == mod_idx)
                .map(|(id, _)| *id)
                .collect();
            let mut w = self.world.borrow_mut();
            for cid in ids {
                w.push(Command::SetIntent(cid, Intent::Idle));
            }
            drop(w);
            self.report(ScriptError {
                message: format!(
                    "{} (mod \"{name}\" suspended; the world goes on)",
                    err.message
                ),
                ..err
            });
            // Free what a memory bomb left behind.
            let _ = self.mods[mod_idx].lua.gc_collect();
        } else {
            // The creature stands; its brain backs off and tries again, and is detached
            // only after repeated errors. The error is reported (once per distinct text).
            self.world
                .borrow_mut()
                .push(Command::SetIntent(id, Intent::Idle));
            let mod_name = self.mods[mod_idx].manifest.name.clone();
            self.report(err);
            let Some(b) = self.brains.get_mut(&id) else {
                return;
            };
            b.failures += 1;
            if b.failures >= BRAIN_FAILURES {
                if let Some(b) = self.brains.remove(&id) {
                    let params = b.handle.raw_get::<Value>("params").unwrap_or(Value::Nil);
                    self.detached.insert(
                        id,
                        BrainRequest {
                            id,
                            mod_name: mod_name.clone(),
                            kind: b.kind.clone(),
                            params: Plain::from_lua(&params),
                        },
                    );
                }
                self.shared.borrow_mut().logs.push(LogLine {
                    mod_name,
                    level: LogLevel::Warn,
                    text: format!(
                        "creature {}: brain detached after {BRAIN_FAILURES} errors; it stands until its mod reloads",
                        id.0
                    ),
                });
            } else {
                b.resume_at = Some(frame + (BRAIN_BACKOFF << (b.failures - 1)));
            }
        }
    }

    /// Forgets hand-sent creatures that arrived, were given another order, or are gone:
    /// their brains run again.
    fn release_manual(&mut self, events: &[WorldEvent]) {
        let w = self.world.borrow();
        self.manual.retain(|id, _| {
            let arrived = events
                .iter()
                .any(|e| matches!(e, WorldEvent::Arrive { id: a } if a == id));
            !arrived && w.creature(*id).is_some_and(|c| c.nav.is_some())
        });
    }
}

/// What every brain of one kind shares in its mod's state: the callbacks and the default
/// params (looked up once per kind when many brains are built together, as a reload does).
struct BrainTemplate {
    defaults: Option<Plain>,
    lod: bool,
    callbacks: Rc<Callbacks>,
}

fn brain_template(lua: &mlua::Lua, req: &BrainRequest) -> mlua::Result<BrainTemplate> {
    let Some(table) = api::brain_table(lua, &req.kind)? else {
        let (what, key) = match &req.kind {
            BrainKind::Behaviour(n) => ("behaviour", n),
            BrainKind::Type(t) => ("creature type", t),
        };
        return Err(mlua::Error::runtime(format!(
            "{what} \"{key}\" no longer exists in mod \"{}\": creature {} stands without a brain",
            req.mod_name, req.id.0
        )));
    };
    let defaults = match table.raw_get::<Value>("params")? {
        v @ Value::Table(_) => Some(Plain::from_lua(&v)),
        _ => None,
    };
    let mut callbacks: [Option<Function>; CALLBACKS.len()] = Default::default();
    for (slot, name) in callbacks.iter_mut().zip(CALLBACKS) {
        if let Value::Function(f) = table.raw_get::<Value>(*name)? {
            *slot = Some(f);
        }
    }
    let lod = table.raw_get::<Value>(crate::script::convert::BRAIN_LOD)? == Value::Boolean(true);
    Ok(BrainTemplate {
        defaults,
        lod,
        callbacks: Rc::new(Callbacks(callbacks)),
    })
}

fn build_brain(
    lua: &mlua::Lua,
    mod_idx: usize,
    req: &BrainRequest,
    type_name: &str,
    template: &BrainTemplate,
) -> mlua::Result<Brain> {
    let handle = api::handle(lua, req.id, type_name)?;
    // The handle comes with an empty params table: the defaults, then the request's.
    let params: Table = handle.raw_get("params")?;
    if let Some(d) = &template.defaults {
        d.write_into(lua, &params)?;
    }
    req.params.write_into(lua, &params)?;
    Ok(Brain {
        mod_idx,
        kind: req.kind.clone(),
        handle,
        cb: Rc::clone(&template.callbacks),
        failures: 0,
        resume_at: None,
        spawn_pending: true,
        lod: template.lod,
    })
}
