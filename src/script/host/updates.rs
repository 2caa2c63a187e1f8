//! `on_update` for a crowd: one call into Lua per run of consecutive creatures of one mod
//! (usually one per mod per tick) instead of one per creature. A small loop in the mod's
//! own state calls each brain; it writes the index of the creature it is calling where the
//! host API can read it (`ModCtx::caller`), so queries that depend on the caller still see
//! the right creature. A failing brain stops the loop: the host handles the error exactly as
//! for a single call, then goes on from the next creature. The lists of handles and
//! callbacks live in the mod's state and are rebuilt only when the set of brains changes.
//!
//! Order and budgets are as before: brains run in creature id order across mods, under
//! their mod's budget (the loop's own back-edge costs each creature one more work unit).

use std::rc::Rc;

use mlua::{Function, Lua, Table, Value};

use super::{Callback, ScriptHost};
use crate::script::api::{self, BatchCaller, INTERNAL_CHUNK};
use crate::sim::{CreatureId, TICK_DT};

/// The loop that calls a run of brains: `(handles, callbacks, from, to, dt, dts)`, 1-based,
/// inclusive; `ctl[1]` holds the index being called (0 when none). `dts`, when given, is a
/// buffer of one f32 per brain of the batch: that brain's `dt` this tick, 0 to skip it (a
/// far creature between its turns whose brain follows the level of detail).
const DISPATCH: &str = "local ctl = ...\n\
return function(hs, fs, from, to, dt, dts)\n\
  if dts then\n\
    for i = from, to do\n\
      local d = buffer.readf32(dts, i * 4 - 4)\n\
      if d > 0 then\n\
        ctl[1] = i\n\
        fs[i](hs[i], d)\n\
      end\n\
    end\n\
  else\n\
    for i = from, to do\n\
      ctl[1] = i\n\
      fs[i](hs[i], dt)\n\
    end\n\
  end\n\
  ctl[1] = 0\n\
end\n";

/// Where a state keeps the chunk that makes its [`DISPATCH`] loop.
const DISPATCH_KEY: &str = "skitter.dispatch";

/// Compiles the [`DISPATCH`] chunk into a fresh state before it is sandboxed and before any
/// mod code runs, so the loop sees the real globals (`buffer`), never a mod's own.
pub(super) fn install_dispatch(lua: &Lua) -> mlua::Result<()> {
    let maker = lua
        .load(DISPATCH)
        .set_name(format!("={INTERNAL_CHUNK}update"))
        .into_function()?;
    lua.set_named_registry_value(DISPATCH_KEY, maker)
}

/// A mod's batched `on_update`: the loop, and the creatures it calls with their handles
/// and callbacks as Lua arrays.
pub(super) struct UpdateBatch {
    dispatch: Function,
    ctl: Table,
    handles: Table,
    callbacks: Table,
    /// This tick's `dt` per brain (a buffer of f32, see [`DISPATCH`]), or nil.
    dts: Value,
    pub(super) ids: Rc<[CreatureId]>,
    /// `ScriptHost::brains_gen` when the arrays were built.
    gen: u64,
}

impl UpdateBatch {
    fn new(lua: &Lua) -> mlua::Result<UpdateBatch> {
        let ctl = lua.create_table()?;
        ctl.raw_set(1, 0)?;
        let dispatch = lua
            .named_registry_value::<Function>(DISPATCH_KEY)?
            .call::<Function>(ctl.clone())?;
        Ok(UpdateBatch {
            dispatch,
            ctl,
            handles: lua.create_table()?,
            callbacks: lua.create_table()?,
            dts: Value::Nil,
            ids: Rc::from(Vec::new()),
            gen: u64::MAX,
        })
    }
}

impl ScriptHost {
    /// `on_update` for every brain that runs this tick, in creature id order.
    pub(super) fn run_on_update(&mut self) {
        let frame = self.world.borrow().frame();
        let (lists, lod, runs) = self.update_runs(frame);
        let turns = self.lod_turns(&lists, &lod);
        let mut ready = vec![false; lists.len()];
        for (m, list) in lists.into_iter().enumerate() {
            if list.is_empty() {
                continue;
            }
            match self.prepare_batch(m, list, turns[m].as_deref()) {
                Ok(()) => ready[m] = true,
                // (Its state is out of memory: its brains miss this tick; the error says why.)
                Err(e) => {
                    let err = self.error_from(
                        &self.mods[m].manifest.name.clone(),
                        &self.mods[m].budget,
                        &e,
                    );
                    self.report(err);
                }
            }
        }
        for (m, from, to) in runs {
            if !ready[m] {
                continue;
            }
            if self.profiler.is_some() {
                self.run_batch_profiled(m, from, to, frame);
            } else {
                self.run_batch(m, from, to, frame);
            }
        }
    }

    /// For each mod's list of brains to call (see `update_runs`), the `dt` of each this
    /// tick when some follow the level of detail (`lod[m]`) and one is in effect (0: a far
    /// creature between its turns, skipped; else the time its body advances by on this
    /// turn); `None` when every brain of the mod runs with the tick's `dt`.
    fn lod_turns(&self, lists: &[Vec<CreatureId>], lod: &[Vec<bool>]) -> Vec<Option<Vec<f32>>> {
        let mut turns = vec![None; lists.len()];
        let wanted: Vec<bool> = lod.iter().map(|l| l.contains(&true)).collect();
        if !wanted.contains(&true) || !self.world.borrow_mut().plan_turns() {
            return turns;
        }
        let world = self.world.borrow();
        let creatures = world.creatures();
        for (m, (list, lod)) in lists.iter().zip(lod).enumerate() {
            if !wanted[m] {
                continue;
            }
            // Both in id order: one walk.
            let mut at = 0;
            let dts = list
                .iter()
                .zip(lod)
                .map(|(id, lod)| {
                    while creatures.get(at).is_some_and(|c| c.id < *id) {
                        at += 1;
                    }
                    match creatures.get(at).filter(|c| c.id == *id) {
                        Some(c) if *lod && !c.due => 0.0,
                        Some(c) if *lod => c.step_dt(TICK_DT),
                        _ => TICK_DT,
                    }
                })
                .collect();
            turns[m] = Some(dts);
        }
        turns
    }

    /// Who runs `on_update` this tick: each mod's creatures in id order, and the runs of
    /// consecutive creatures of one mod as `(mod, from, to)` (0-based, end exclusive, into
    /// that mod's list), with whether each brain follows the level of detail.
    #[allow(clippy::type_complexity)]
    fn update_runs(
        &mut self,
        frame: u64,
    ) -> (
        Vec<Vec<CreatureId>>,
        Vec<Vec<bool>>,
        Vec<(usize, usize, usize)>,
    ) {
        let mut lists: Vec<Vec<CreatureId>> = vec![Vec::new(); self.mods.len()];
        let mut lod: Vec<Vec<bool>> = vec![Vec::new(); self.mods.len()];
        let mut runs: Vec<(usize, usize, usize)> = Vec::new();
        for (id, b) in self.brains.iter_mut() {
            if b.cb.get(Callback::Update).is_none()
                || self.manual.contains_key(id)
                || self.mods[b.mod_idx].suspended.is_some()
            {
                continue;
            }
            if let Some(at) = b.resume_at {
                if frame < at {
                    continue;
                }
                b.resume_at = None;
            }
            let list = &mut lists[b.mod_idx];
            match runs.last_mut() {
                Some(r) if r.0 == b.mod_idx => r.2 += 1,
                _ => runs.push((b.mod_idx, list.len(), list.len() + 1)),
            }
            list.push(*id);
            lod[b.mod_idx].push(b.lod);
        }
        (lists, lod, runs)
    }

    /// Makes mod `m`'s batch call `ids`' brains (rebuilding its arrays only if they changed).
    /// `dts`: this tick's `dt` of each (see `lod_turns`), when they differ.
    fn prepare_batch(
        &mut self,
        m: usize,
        ids: Vec<CreatureId>,
        dts: Option<&[f32]>,
    ) -> mlua::Result<()> {
        let rt = &mut self.mods[m];
        if rt.updates.is_none() {
            rt.updates = Some(UpdateBatch::new(&rt.lua)?);
        }
        let Some(batch) = rt.updates.as_mut() else {
            return Ok(());
        };
        batch.dts = match dts {
            Some(d) => {
                let bytes: Vec<u8> = d.iter().flat_map(|x| x.to_le_bytes()).collect();
                Value::Buffer(rt.lua.create_buffer(bytes)?)
            }
            None => Value::Nil,
        };
        if batch.gen == self.brains_gen && *batch.ids == *ids {
            return Ok(());
        }
        let handles = rt.lua.create_table_with_capacity(ids.len(), 0)?;
        let callbacks = rt.lua.create_table_with_capacity(ids.len(), 0)?;
        for (i, id) in ids.iter().enumerate() {
            let b = &self.brains[id];
            handles.raw_set(i + 1, b.handle.clone())?;
            let f =
                b.cb.get(Callback::Update)
                    .cloned()
                    .map_or(Value::Nil, Value::Function);
            callbacks.raw_set(i + 1, f)?;
        }
        batch.handles = handles;
        batch.callbacks = callbacks;
        batch.ids = Rc::from(ids);
        batch.gen = self.brains_gen;
        Ok(())
    }

    /// Calls the brains `from..to` of mod `m`'s batch; a failing brain is handled as a failed
    /// single call and the loop goes on after it, unless its mod was suspended.
    pub(super) fn run_batch(&mut self, m: usize, from: usize, to: usize, frame: u64) {
        let mut next = from;
        while next < to {
            let rt = &self.mods[m];
            let Some(batch) = rt.updates.as_ref() else {
                return;
            };
            if rt.suspended.is_some() {
                return;
            }
            let Ok(ctx) = api::ctx(&rt.lua) else { return };
            *ctx.batch.borrow_mut() = Some(BatchCaller {
                ids: batch.ids.clone(),
                ctl: batch.ctl.clone(),
            });
            rt.budget.begin();
            let r = batch.dispatch.call::<()>((
                &batch.handles,
                &batch.callbacks,
                next + 1,
                to,
                TICK_DT as f64,
                &batch.dts,
            ));
            rt.budget.end();
            *ctx.batch.borrow_mut() = None;
            let Err(e) = r else { return };
            // Which brain failed: the loop's index (1-based), or the last one it called if
            // the loop itself was stopped (a spent budget stops the next interrupt).
            let at: usize = batch.ctl.raw_get(1).unwrap_or(0);
            let _ = batch.ctl.raw_set(1, 0);
            let failed = at.clamp(next + 1, to) - 1;
            let id = batch.ids[failed];
            let cb: Option<Function> = batch.callbacks.raw_get(failed + 1).ok();
            self.fail(id, m, frame, &e, cb.as_ref());
            next = failed + 1;
        }
    }
}
