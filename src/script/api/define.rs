//! `creature.define` and `behaviour.define`: validate a table, register it with the world
//! and the host, keep the table (its callbacks) in this state's registry.

use mlua::{Lua, Table, Value};

use super::context::{caller_location, ctx, def_err, located, soft};
use super::def_errors::more_def_errors;
use super::registry;
use crate::locomotion::DefError;
use crate::script::convert::{self, type_name, Reader, CALLBACKS};
use crate::script::shared::{LogLevel, LogLine, TypeMeta};

/// `creature.define{...}` (in `skitter check`, an error is noted and the table returned).
/// A type whose define failed is remembered, so that spawning it says why it is unknown.
pub(super) fn creature(lua: &Lua, v: Value) -> mlua::Result<Value> {
    let fallback = v.clone();
    let name = match &v {
        Value::Table(t) => t.raw_get::<Option<String>>("name").ok().flatten(),
        _ => None,
    };
    let c = ctx(lua)?;
    let noted = c.shared.borrow().check_errors.len();
    let r = define_creature(lua, v);
    if let (Err(_), Some(name)) = (&r, name) {
        let here = caller_location(lua).unwrap_or_else(|| c.name.clone());
        c.defined
            .borrow_mut()
            .entry(failed_key(&name))
            .or_insert(here);
    }
    let r = soft(lua, r, fallback);
    // In `skitter check` the first error (noted last, by `soft`) goes before the others
    // the define found.
    let mut sh = c.shared.borrow_mut();
    if sh.check_errors.len() > noted + 1 {
        sh.check_errors[noted..].rotate_right(1);
    }
    r
}

/// The key under which a mod's context remembers where the define of type `name` failed.
pub(super) fn failed_key(name: &str) -> String {
    format!("failed:{name}")
}

/// The first definition error of a creature table; in `skitter check` every other bad
/// field of it is noted too, each at its own line.
fn bad_define(lua: &Lua, t: &Table, e: DefError) -> mlua::Error {
    const WHAT: &str = "creature.define";
    if let Ok(c) = ctx(lua) {
        if c.shared.borrow().check_mode {
            let more = more_def_errors(lua, WHAT, t, &e, |lua, t| {
                let (def, _, model) = convert::creature_def(lua, t)?;
                if model.is_some() {
                    return Ok(()); // a model's binding fills the rest: no more to say
                }
                def.validate().map(|_| ())
            });
            let mut sh = c.shared.borrow_mut();
            for m in more {
                sh.check_errors.push((c.name.clone(), m));
            }
        }
    }
    def_err(lua, WHAT, e)
}

/// `behaviour.define{...}` (in `skitter check`, an error is noted and the table returned).
pub(super) fn behaviour(lua: &Lua, v: Value) -> mlua::Result<Value> {
    let fallback = v.clone();
    soft(lua, define_behaviour(lua, v), fallback)
}

/// `creature.define`.
fn define_creature(lua: &Lua, t: Value) -> mlua::Result<Value> {
    let Value::Table(t) = t else {
        return Err(located(
            lua,
            format!("creature.define: expects a table, got {}", type_name(&t)),
        ));
    };
    let c = ctx(lua)?;
    let (mut def, behaviour, model) =
        convert::creature_def(lua, t.clone()).map_err(|e| bad_define(lua, &t, e))?;
    let (model, source) = match model {
        Some(spec) => {
            let (m, src) = load_model(lua, &c, &t, &mut def, &spec)?;
            (Some(m), Some(std::sync::Arc::new(src)))
        }
        None => (None, None),
    };
    let sounds = load_sounds(lua, &c, &t)?;
    let valid = def.validate().map_err(|e| match &model {
        Some(m) if binder_wrote(&t, &e.field) => located(lua, unwalkable(m, &e)),
        _ => bad_define(lua, &t, e),
    })?;
    let here = caller_location(lua).unwrap_or_else(|| c.name.clone());
    let key = format!("type:{}", def.name);
    if let Some(prev) = c.defined.borrow().get(&key) {
        return Err(located(
            lua,
            format!(
                "creature.define: creature type \"{}\" is already defined in this mod (at {prev})",
                def.name
            ),
        ));
    }
    let qualified = format!("{}/{}", c.name, def.name);
    {
        let shared = c.shared.borrow();
        if let Some(other) = shared
            .types
            .values()
            .find(|m| m.bare == def.name && m.mod_name != c.name)
        {
            return Err(located(
                        lua,
                        format!(
                            "creature.define: creature type \"{}\" is also defined by mod \"{}\"; a bare name must be unique among loaded mods",
                            def.name, other.mod_name
                        ),
                    ));
        }
    }
    c.defined.borrow_mut().insert(key, here.clone());
    let callbacks: Vec<&str> = CALLBACKS
        .iter()
        .copied()
        .filter(|k| matches!(t.raw_get::<Value>(*k), Ok(Value::Function(_))))
        .collect();
    let has_callbacks = !callbacks.is_empty();
    if let (Some(b), true) = (&behaviour, has_callbacks) {
        // One brain per creature: the behaviour's callbacks, else the type's. Say so where
        // the type's own can never run.
        c.shared.borrow_mut().logs.push(LogLine {
            mod_name: c.name.clone(),
            level: LogLevel::Warn,
            text: format!(
                "{here}: creature.define: {} of \"{}\" never run{}: its behaviour \"{b}\" is its brain (a creature runs its behaviour's callbacks, else its type's)",
                callbacks.join(", "),
                def.name,
                if callbacks.len() == 1 { "s" } else { "" }
            ),
        });
    }
    {
        let mut w = c.world.borrow_mut();
        let id = w.register_type(&qualified, valid);
        if model.is_some() {
            w.set_type_model(id, model);
        }
        w.set_type_source(id, source);
        w.set_type_sounds(id, sounds);
    }
    c.shared.borrow_mut().types.insert(
        qualified.clone(),
        TypeMeta {
            mod_name: c.name.clone(),
            bare: def.name.clone(),
            default_behaviour: behaviour,
            has_callbacks,
            defined_at: Some(here.clone()),
        },
    );
    registry::types(lua)?.raw_set(qualified, t.clone())?;
    Ok(Value::Table(t))
}

/// Whether definition field `field` (`legs[2].rest`, `body.height`) is one the binder
/// filled in from a model (the define left it out).
fn binder_wrote(t: &mlua::Table, field: &str) -> bool {
    let absent = |k: &str| matches!(t.raw_get::<Value>(k), Ok(Value::Nil) | Err(_));
    let root = field.split(['.', '[']).next().unwrap_or("");
    match root {
        "legs" | "arms" => absent(root),
        "body" => {
            let key = field.split('.').nth(1).unwrap_or("");
            let key = key.split('[').next().unwrap_or(key);
            match t.raw_get::<Value>("body") {
                Ok(Value::Table(b)) => matches!(b.raw_get::<Value>(key), Ok(Value::Nil) | Err(_)),
                _ => true,
            }
        }
        _ => false,
    }
}

/// The one error for a model whose body plan makes no creature its definition accepts
/// (`e`, about a field the modder did not write): what was found, and what to add.
fn unwalkable(m: &crate::model::BoundModel, e: &crate::locomotion::DefError) -> String {
    let j = &m.model.joints;
    let legs: Vec<String> = m
        .binding
        .legs
        .iter()
        .map(|l| {
            let names: Vec<&str> = l.bones.iter().map(|b| j[*b].name.as_str()).collect();
            format!("{} = {}", l.name, names.join(" > "))
        })
        .collect();
    let example = m
        .binding
        .legs
        .first()
        .map(|l| format!("{} = {{ \"{}\", … }}", l.name, j[l.bones[0]].name))
        .unwrap_or_else(|| "L1 = { \"UpperLeg.L\", … }".into());
    format!(
        "creature.define: model {}: the body plan found in its bones makes no creature that can walk ({}: {}); found {} leg(s): {}. Name the legs' bones in model.bind.legs = {{ {example}, … }}, or write legs and body.height in the define",
        m.model.source,
        e.field,
        e.message,
        legs.len(),
        legs.join("; ")
    )
}

/// A warning line for each thing loading repaired in the model (exporters' habits), and
/// one for a model whose size is far from a creature's (0.05–20 m across as scaled), with
/// the `model.scale` that would fix it.
fn warn_repairs(
    lua: &Lua,
    c: &super::context::ModCtx,
    m: &crate::model::Model,
    spec: &convert::model::ModelSpec,
) {
    let here = caller_location(lua)
        .map(|l| format!("{l}: "))
        .unwrap_or_default();
    let mut lines: Vec<String> = m.repairs.clone();
    let scale = if spec.bind.scale > 0.0 {
        spec.bind.scale
    } else {
        1.0
    };
    let across = (m.bounds.1 - m.bounds.0).max_element() * scale;
    // A model fitted to a height (`model.height`) is the size it was asked to be.
    let fitted = spec.bind.height.is_some();
    if !fitted && across.is_finite() && across > 0.0 && !(0.05..=20.0).contains(&across) {
        // The power of ten that brings it nearest a metre (a file in centimetres: 0.01).
        let fix = scale * 10f32.powf(-across.log10().round());
        lines.push(format!(
            "the model is {across:.3} m across at model.scale {scale} (a creature is 0.05–20 m): model.scale = {fix} makes it {:.2} m (or fit it to a height: model.height = …)",
            across / scale * fix
        ));
    }
    let mut shared = c.shared.borrow_mut();
    for l in lines {
        shared.logs.push(LogLine {
            mod_name: c.name.clone(),
            level: LogLevel::Warn,
            text: format!("{here}creature.define: {}: {l}", m.source),
        });
    }
}

/// Where a mod's asset files are read from (its folder) and within what size
/// (`--max-asset-mb`; 0: the default).
fn asset_place(
    lua: &Lua,
    c: &super::context::ModCtx,
) -> Result<(std::path::PathBuf, crate::model::LoadLimits), String> {
    // The mod whose file makes the call: a definition another mod runs
    // (`require("@spider/body")`) reads the files beside it, in its own mod's folder.
    let of_file = super::require::calling_file(lua)
        .map(|(m, _)| m)
        .filter(|m| c.roots.contains_key(m));
    let name = of_file.as_ref().unwrap_or(&c.name);
    let root = c
        .roots
        .get(name)
        .map(|(dir, _)| dir.clone())
        .ok_or_else(|| format!("mod \"{name}\" has no folder"))?;
    let limits = match c.shared.borrow().max_asset_bytes {
        0 => crate::model::LoadLimits::default(),
        max_bytes => crate::model::LoadLimits { max_bytes },
    };
    Ok((root, limits))
}

/// The kinds of sound a type may bring, as `sounds` names them.
const SOUND_KINDS: [&str; 5] = ["step", "lift", "land", "hit", "ragdoll_impact"];

/// `sounds = { step = { "assets/a.wav", "assets/b.ogg" }, lift = "assets/c.flac", …,
/// by_surface = { stone = { step = … }, … }, volume = curve, pitch = curve }`: each file read inside the mod's folder
/// (within `--max-asset-mb`) and decoded; an error names the kind, the file and what is wrong
/// with it.
fn load_sounds(
    lua: &Lua,
    c: &super::context::ModCtx,
    t: &mlua::Table,
) -> mlua::Result<Option<std::sync::Arc<crate::sim::TypeSounds>>> {
    let fail = |e: String| located(lua, format!("creature.define: {e}"));
    let v: Value = t.raw_get("sounds")?;
    let table = match v {
        Value::Nil => return Ok(None),
        Value::Table(s) => s,
        other => {
            return Err(fail(format!(
                "field 'sounds' must be a table of sound files by kind ({}), got {}",
                SOUND_KINDS.join(", "),
                type_name(&other)
            )))
        }
    };
    let (root, limits) = asset_place(lua, c).map_err(|e| fail(format!("sounds: {e}")))?;
    let max = limits.max_bytes;
    let files = SoundFiles {
        lua,
        c,
        root: &root,
        max,
    };
    Ok(Some(std::sync::Arc::new(
        files.kinds(&table, "sounds", true)?,
    )))
}

/// Where a type's sound files are read from, and how.
struct SoundFiles<'a> {
    lua: &'a Lua,
    c: &'a super::context::ModCtx,
    root: &'a std::path::Path,
    max: u64,
}

impl SoundFiles<'_> {
    fn fail(&self, e: String) -> mlua::Error {
        located(self.lua, format!("creature.define: {e}"))
    }

    /// A `{ step = …, lift = …, … }` table at `at` (`sounds`, `sounds.by_surface.stone`);
    /// `by_surface` only at the top.
    fn kinds(
        &self,
        table: &mlua::Table,
        at: &str,
        top: bool,
    ) -> mlua::Result<crate::sim::TypeSounds> {
        let mut out = crate::sim::TypeSounds::default();
        for pair in table.pairs::<Value, Value>() {
            let (k, v) = pair?;
            let key = match &k {
                Value::String(s) => s.to_string_lossy(),
                other => {
                    return Err(self.fail(format!(
                        "{at}: a key must be a kind, got {}",
                        type_name(other)
                    )))
                }
            };
            if top && key == "by_surface" {
                let Value::Table(surfaces) = v else {
                    return Err(self.fail(format!(
                        "{at}.by_surface must be a table of sounds by surface name, got {}",
                        type_name(&v)
                    )));
                };
                for pair in surfaces.pairs::<String, Value>() {
                    let (name, v) = pair?;
                    let Value::Table(kinds) = v else {
                        return Err(self.fail(format!(
                            "{at}.by_surface.{name} must be a table of sound files by kind, got {}",
                            type_name(&v)
                        )));
                    };
                    let sounds = self.kinds(&kinds, &format!("{at}.by_surface.{name}"), false)?;
                    out.by_surface.push((name, sounds));
                }
                out.by_surface.sort_by(|a, b| a.0.cmp(&b.0));
                continue;
            }
            if top && (key == "volume" || key == "pitch") {
                let curve = convert::curve_from_value(&v)
                    .map_err(|e| self.fail(format!("{at}.{key} {e}")))?;
                match key.as_str() {
                    "volume" => out.volume = curve,
                    _ => out.pitch = curve,
                }
                continue;
            }
            let list = match key.as_str() {
                "step" => &mut out.step,
                "lift" => &mut out.lift,
                "hit" => &mut out.hit,
                "ragdoll_impact" => &mut out.ragdoll_impact,
                "land" => &mut out.land,
                _ => {
                    return Err(self.fail(format!(
                        "{at}: unknown kind '{key}' (one of {}{})",
                        SOUND_KINDS.join(", "),
                        if top {
                            ", by_surface, volume, pitch"
                        } else {
                            ""
                        }
                    )))
                }
            };
            let files: Vec<Value> = match v {
                Value::Table(list) => list
                    .sequence_values::<Value>()
                    .collect::<mlua::Result<_>>()?,
                other => vec![other],
            };
            for (i, f) in files.iter().enumerate() {
                let here = format!("{at}.{key}[{}]", i + 1);
                let Value::String(rel) = f else {
                    return Err(
                        self.fail(format!("{here} must be a file name, got {}", type_name(f)))
                    );
                };
                let rel = rel.to_string_lossy();
                let sound = read_sound(self.root, &rel, self.max)
                    .map_err(|e| self.fail(format!("{here}: {rel}: {e}")))?;
                self.c.shared.borrow_mut().assets.insert((
                    self.c.name.clone(),
                    rel.to_string(),
                    "sound",
                ));
                list.push(sound);
            }
        }
        Ok(out)
    }
}

/// One of a mod's sound files, read and decoded.
fn read_sound(
    root: &std::path::Path,
    rel: &str,
    max: u64,
) -> Result<std::sync::Arc<[f32]>, String> {
    // Inside the mod folder, relative to it (a relative `root` — `skitter run scripts/x` —
    // joined once, not twice).
    let path = root.join(crate::model::files::resolve(
        root,
        std::path::Path::new(""),
        rel,
    )?);
    let len = std::fs::metadata(&path).map_err(|e| e.to_string())?.len();
    if len > max {
        return Err(format!(
            "{:.1} MB, over the {:.1} MB limit (--max-asset-mb)",
            len as f64 / 1e6,
            max as f64 / 1e6
        ));
    }
    let bytes = std::fs::read(&path).map_err(|e| e.to_string())?;
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    crate::audio::decode::decode(bytes, &ext)
}

/// Loads and binds a type's model (inside its mod's folder) and fills what the define left
/// out from the body plan found: the legs (bones' chains; given legs are matched to chains
/// by name), the body's size and ride height, the head, the arms.
fn load_model(
    lua: &Lua,
    c: &super::context::ModCtx,
    t: &mlua::Table,
    def: &mut crate::locomotion::CreatureDef,
    spec: &convert::model::ModelSpec,
) -> mlua::Result<(
    std::sync::Arc<crate::model::BoundModel>,
    crate::model::ModelSource,
)> {
    use crate::model::{self, BoundModel, Source};
    let fail = |e: String| located(lua, format!("creature.define: {e}"));
    for (key, given) in [
        ("tail", def.body.tail.is_some()),
        ("antennae", def.body.antennae.is_some()),
    ] {
        if given {
            return Err(fail(format!(
                "field '{key}' draws a {key} on a creature made from its definition; a model swings its own free bones (model.springs tunes them)"
            )));
        }
    }
    let (root, limits) = asset_place(lua, c).map_err(|e| fail(format!("model: {e}")))?;
    // A script-only save reloads with the model it had (parsed again only if a file changed).
    let loaded = model::load_shared(
        &Source {
            root: &root,
            mod_name: &c.name,
            file: &spec.file,
            texture: spec.texture.as_deref(),
            hide: &spec.hide,
        },
        &limits,
    )
    .map_err(|e| fail(e.to_string()))?;
    warn_repairs(lua, c, &loaded, spec);
    {
        let mut sh = c.shared.borrow_mut();
        sh.assets
            .insert((c.name.clone(), spec.file.clone(), "model"));
        if let Some(tex) = &spec.texture {
            sh.assets.insert((c.name.clone(), tex.clone(), "texture"));
        }
    }
    let body: Option<mlua::Table> = t.raw_get("body").ok();
    let given = |k: &str| {
        body.as_ref()
            .is_some_and(|b| !matches!(b.raw_get::<Value>(k), Ok(Value::Nil) | Err(_)))
    };
    // A define that says `body.hover` and no legs makes a flyer of any model; one that
    // gives legs, a walker.
    let bind = crate::model::BindSpec {
        fly: match (given("hover"), def.legs.is_empty()) {
            (_, false) => Some(false),
            (true, true) => Some(true),
            (false, true) => None,
        },
        ..spec.bind.clone()
    };
    let mut bound = BoundModel::new(loaded, &bind, spec.idle.clone())
        .map_err(|e| fail(format!("{}: {e}", spec.file)))?;
    let source = crate::model::ModelSource {
        mod_name: c.name.clone(),
        file: spec.file.clone(),
        texture: spec.texture.clone(),
        hide: spec.hide.clone(),
        bind,
        idle: spec.idle.clone(),
        order: (!def.legs.is_empty()).then(|| def.legs.iter().map(|l| l.name.clone()).collect()),
    };
    let plan = bound.plan.clone();
    if def.legs.is_empty() {
        def.legs = plan
            .legs
            .iter()
            .map(|l| crate::locomotion::def::LegDef {
                name: l.name.clone(),
                hip: l.hip,
                rest: l.rest,
                segments: l.segments.clone(),
                knee: l.knee,
                phase: None,
            })
            .collect();
    } else {
        let names: Vec<String> = def.legs.iter().map(|l| l.name.clone()).collect();
        bound
            .ordered_as(&names)
            .map_err(|e| fail(format!("{}: {e}", spec.file)))?;
    }
    if !given("size") {
        def.body.size = plan.size;
    }
    if !given("height") {
        def.body.height = plan.height;
    }
    if let Some(h) = plan
        .hover
        .filter(|_| !given("hover") && def.legs.is_empty())
    {
        def.body.hover = Some(h);
    }
    if !given("head") {
        if let Some((offset, size)) = plan.head {
            def.body.head = Some(crate::locomotion::HeadDef {
                offset,
                size,
                counter_yaw: 0.0,
                look: Default::default(),
            });
        }
    }
    // The ragdoll's limb capsules as thick as the model's legs (unless the define says).
    if def.physics.limb_radius.is_none() {
        def.physics.limb_radius = plan.limb_radius;
        def.physics.limb_radii = plan.limb_radii.clone();
    }
    if def.arms.is_empty() {
        def.arms = plan
            .arms
            .iter()
            .map(|(name, shoulder, segments)| crate::locomotion::ArmDef {
                hand: crate::locomotion::Hand::Plain,
                name: name.clone(),
                shoulder: *shoulder,
                segments: segments.clone(),
                rest: None,
                pole: None,
            })
            .collect();
    }
    Ok((std::sync::Arc::new(bound), source))
}

/// `behaviour.define`.
fn define_behaviour(lua: &Lua, t: Value) -> mlua::Result<Value> {
    let Value::Table(t) = t else {
        return Err(located(
            lua,
            format!("behaviour.define: expects a table, got {}", type_name(&t)),
        ));
    };
    let c = ctx(lua)?;
    let keys: Vec<&'static str> = ["name", "params", crate::script::convert::BRAIN_LOD]
        .into_iter()
        .chain(CALLBACKS.iter().copied())
        .collect();
    let r = Reader::new(t.clone(), "", &keys);
    let check = || -> Result<String, DefError> {
        let name = r
            .string("name")?
            .ok_or_else(|| DefError::new("name", "is required (a string)"))?;
        if name.is_empty() || name.contains('/') {
            return Err(DefError::new(
                "name",
                format!("must be a non-empty name without '/', got \"{name}\""),
            ));
        }
        r.table("params")?;
        for cb in CALLBACKS {
            r.function(cb)?;
        }
        r.boolean(crate::script::convert::BRAIN_LOD)?;
        Ok(name)
    };
    let name = check().map_err(|e| def_err(lua, "behaviour.define", e))?;
    r.finish()
        .map_err(|e| def_err(lua, "behaviour.define", e))?;
    let key = format!("behaviour:{name}");
    if let Some(prev) = c.defined.borrow().get(&key) {
        return Err(located(
            lua,
            format!(
                "behaviour.define: behaviour \"{name}\" is already defined in this mod (at {prev})"
            ),
        ));
    }
    if let Some((other, _)) = c
        .shared
        .borrow()
        .behaviours
        .iter()
        .find(|(m, n)| *n == name && *m != c.name)
    {
        return Err(located(
                    lua,
                    format!("behaviour.define: behaviour \"{name}\" is also defined by mod \"{other}\"; a bare name must be unique among loaded mods"),
                ));
    }
    let here = caller_location(lua).unwrap_or_else(|| c.name.clone());
    c.defined.borrow_mut().insert(key, here);
    c.shared
        .borrow_mut()
        .behaviours
        .insert((c.name.clone(), name.clone()));
    registry::behaviours(lua)?.raw_set(name, t.clone())?;
    Ok(Value::Table(t))
}
