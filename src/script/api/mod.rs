//! The Lua API of contract v1, installed into each mod's Luau state. The tables below name
//! every Lua function and the Rust handler behind it, grouped by the global that holds it;
//! each handler lives in the module of its concern. Scripts never hold references into the
//! World: handles carry ids, writes become commands.

mod camera;
mod context;
mod def_errors;
mod define;
mod handle;
mod links;
mod log;
mod near;
mod path;
mod registry;
mod require;
mod resolve;
mod sound;
mod tuning;
mod values;
mod world;

use std::rc::Rc;

use mlua::{Function, Lua, Table, Value};

use context::api_fn;
pub(crate) use context::INTERNAL_CHUNK;
pub(crate) use context::{ctx, BatchCaller, ModCtx, Roots};
pub(crate) use handle::{drop_handle, forget_missing_handles, handle};
pub(crate) use near::LuaNearFilter;
pub(crate) use path::{sample_path_userdata, LuaPath};
pub(crate) use registry::{brain_table, handle_methods, handle_mt};
pub(crate) use resolve::resolve_behaviour;

/// Makes one Lua function in a state.
pub(crate) type Ctor = fn(&Lua) -> mlua::Result<Function>;

/// One Lua function: its name, its parameters as the editor definitions must declare them
/// (`"point, radius, type?"`: `?` marks an optional one, `...` any number), its handler.
pub(crate) type Entry = (&'static str, &'static str, Ctor);

/// Functions stored directly as globals.
const TOP: &[Entry] = &[
    ("print", "...", |l| api_fn(l, "print", log::info)),
    ("require", "spec", |l| {
        api_fn(l, "require", require::require)
    }),
];

/// `global.name` functions, by global.
const GLOBALS: &[(&str, &[Entry])] = &[
    (
        "log",
        &[
            ("info", "...", |l| api_fn(l, "log.info", log::info)),
            ("warn", "...", |l| api_fn(l, "log.warn", log::warn)),
            ("error", "...", |l| api_fn(l, "log.error", log::error)),
        ],
    ),
    (
        "curve",
        &[
            ("linear", "points", |l| {
                api_fn(l, "curve.linear", values::curve_linear)
            }),
            ("sine_arc", "", |l| {
                api_fn(l, "curve.sine_arc", values::curve_sine_arc)
            }),
            ("smoothstep", "x0, x1", |l| {
                api_fn(l, "curve.smoothstep", values::curve_smoothstep)
            }),
        ],
    ),
    (
        "creature",
        &[("define", "def", |l| {
            api_fn(l, "creature.define", define::creature)
        })],
    ),
    (
        "behaviour",
        &[("define", "def", |l| {
            api_fn(l, "behaviour.define", define::behaviour)
        })],
    ),
    (
        "world",
        &[
            ("ground", "def", |l| {
                api_fn(l, "world.ground", world::ground)
            }),
            ("box", "def", |l| api_fn(l, "world.box", world::add_box)),
            ("link", "def", |l| api_fn(l, "world.link", links::add_link)),
            ("stairs", "def", |l| {
                api_fn(l, "world.stairs", world::stairs)
            }),
            ("spawn", "type, opts?", |l| {
                api_fn(l, "world.spawn", world::spawn)
            }),
            ("despawn", "c", |l| {
                api_fn(l, "world.despawn", world::despawn)
            }),
            ("creatures", "type?", |l| {
                api_fn(l, "world.creatures", world::creatures)
            }),
            ("creatures_near", "point, radius, filter?", |l| {
                api_fn(l, "world.creatures_near", near::creatures_near)
            }),
            ("nearest_creature", "point, radius, filter?", |l| {
                api_fn(l, "world.nearest_creature", near::nearest_creature)
            }),
            ("near_filter", "filter", |l| {
                api_fn(l, "world.near_filter", near::near_filter)
            }),
            ("raycast", "origin, dir, max_distance?, opts?", |l| {
                api_fn(l, "world.raycast", world::raycast)
            }),
            ("time", "", |l| api_fn(l, "world.time", world::time)),
            ("set_time_scale", "scale", |l| {
                api_fn(l, "world.set_time_scale", world::set_time_scale)
            }),
            ("random_nav_point", "near?, radius?, opts?", |l| {
                api_fn(l, "world.random_nav_point", world::random_nav_point)
            }),
            ("nearest_nav_point", "point", |l| {
                api_fn(l, "world.nearest_nav_point", world::nearest_nav_point)
            }),
        ],
    ),
    (
        "path",
        &[
            ("bezier", "def", |l| api_fn(l, "path.bezier", path::bezier)),
            ("load", "name", |l| api_fn(l, "path.load", path::load)),
        ],
    ),
    (
        "sound",
        &[("play", "name, at, opts?", |l| {
            api_fn(l, "sound.play", sound::play_at)
        })],
    ),
    (
        "camera",
        &[
            ("follow", "c", |l| {
                api_fn(l, "camera.follow", camera::follow)
            }),
            ("look", "from, at", |l| {
                api_fn(l, "camera.look", camera::look)
            }),
            ("path", "p, opts?", |l| {
                api_fn(l, "camera.path", camera::path)
            }),
        ],
    ),
];

/// `curve{...}` itself: the `curve` table's `__call`.
const CURVE_CALL: Entry = ("curve", "points", |l| {
    api_fn(l, "curve", values::curve_call)
});

/// Creature handle methods (`c:name(...)`). `c.gait` and `c.lean` are [`tuning`] proxies.
const HANDLE: &[Entry] = &[
    ("position", "", |l| {
        api_fn(l, "c:position", handle::position)
    }),
    ("velocity", "", |l| {
        api_fn(l, "c:velocity", handle::velocity)
    }),
    ("forward", "", |l| api_fn(l, "c:forward", handle::forward)),
    ("yaw", "", |l| api_fn(l, "c:yaw", handle::yaw)),
    ("move", "direction, speed?, opts?", |l| {
        api_fn(l, "c:move", handle::move_to)
    }),
    ("face", "direction", |l| api_fn(l, "c:face", handle::face)),
    ("pose", "opts?", |l| api_fn(l, "c:pose", handle::pose)),
    ("reach", "arm, target?, opts?", |l| {
        api_fn(l, "c:reach", handle::reach)
    }),
    ("set_facing", "target?", |l| {
        api_fn(l, "c:set_facing", handle::set_facing)
    }),
    ("look_at", "target?", |l| {
        api_fn(l, "c:look_at", handle::look_at)
    }),
    ("feet", "", |l| api_fn(l, "c:feet", handle::feet)),
    ("set_behaviour", "name, params?", |l| {
        api_fn(l, "c:set_behaviour", handle::set_behaviour)
    }),
    ("set_destination", "point, opts?", |l| {
        api_fn(l, "c:set_destination", handle::set_destination)
    }),
    ("clear_destination", "", |l| {
        api_fn(l, "c:clear_destination", handle::clear_destination)
    }),
    ("arrived", "", |l| api_fn(l, "c:arrived", handle::arrived)),
    ("path", "", |l| api_fn(l, "c:path", handle::path)),
    ("hit", "direction, strength", |l| {
        api_fn(l, "c:hit", handle::hit)
    }),
    ("follow_path", "p, opts?", |l| {
        api_fn(l, "c:follow_path", handle::follow_path)
    }),
    ("path_progress", "", |l| {
        api_fn(l, "c:path_progress", handle::path_progress)
    }),
    ("despawn", "", |l| api_fn(l, "c:despawn", handle::despawn)),
    ("ragdoll", "opts?", |l| {
        api_fn(l, "c:ragdoll", handle::ragdoll)
    }),
    ("recover", "", |l| api_fn(l, "c:recover", handle::recover)),
    ("is_ragdoll", "", |l| {
        api_fn(l, "c:is_ragdoll", handle::is_ragdoll)
    }),
    ("ragdoll_state", "", |l| {
        api_fn(l, "c:ragdoll_state", handle::ragdoll_state)
    }),
    ("style", "", |l| api_fn(l, "c:style", handle::style)),
    ("is_climbing", "", |l| {
        api_fn(l, "c:is_climbing", handle::is_climbing)
    }),
    ("surface_normal", "", |l| {
        api_fn(l, "c:surface_normal", handle::surface_normal)
    }),
    ("surface", "", |l| api_fn(l, "c:surface", handle::surface)),
    ("let_go", "", |l| api_fn(l, "c:let_go", handle::let_go)),
    ("jump", "to", |l| api_fn(l, "c:jump", links::jump)),
    ("cross_link", "", |l| {
        api_fn(l, "c:cross_link", links::cross_link)
    }),
    ("link", "", |l| api_fn(l, "c:link", links::link)),
    ("is_jumping", "", |l| {
        api_fn(l, "c:is_jumping", links::is_jumping)
    }),
    ("team", "", |l| api_fn(l, "c:team", links::team)),
    ("set_team", "team?", |l| {
        api_fn(l, "c:set_team", links::set_team)
    }),
    ("tint", "", |l| api_fn(l, "c:tint", links::tint)),
    ("play", "name, opts?", |l| {
        api_fn(l, "c:play", sound::play_on)
    }),
    ("set_tint", "tint?", |l| {
        api_fn(l, "c:set_tint", links::set_tint)
    }),
];

/// Installs the API into a fresh state (before `sandbox(true)` freezes the globals).
pub(crate) fn install(lua: &Lua, mod_ctx: Rc<ModCtx>, seed: u64) -> mlua::Result<()> {
    let g = lua.globals();
    // Code is loaded only by `require`, as text, from inside the allowed folders.
    g.raw_set("loadstring", Value::Nil)?;
    for (name, _, make) in TOP {
        g.raw_set(*name, make(lua)?)?;
    }
    for (global, fns) in GLOBALS {
        let t = lua.create_table()?;
        for (name, _, make) in *fns {
            t.raw_set(*name, make(lua)?)?;
        }
        g.raw_set(*global, t)?;
    }
    let curve: Table = g.raw_get("curve")?;
    let mt = lua.create_table()?;
    mt.raw_set("__call", (CURVE_CALL.2)(lua)?)?;
    curve.set_metatable(Some(mt))?;
    absent_libraries(lua, &g)?;
    values::install_vec3(lua, &g)?;
    values::install_random(lua, &g, seed, &mod_ctx.name)?;
    handle::install(lua, HANDLE)?;
    registry::create(lua)?;
    lua.set_app_data(mod_ctx);
    Ok(())
}

/// What the sandbox leaves out says so when touched (not "attempt to index nil"): `io`
/// (a stand-in whose every field is that error) and the parts of `os` beyond Luau's clock,
/// date, difftime and time.
fn absent_libraries(lua: &Lua, g: &Table) -> mlua::Result<()> {
    for lib in ["io", "os"] {
        let t = match g.raw_get::<Value>(lib)? {
            Value::Table(t) => t,
            _ => lua.create_table()?,
        };
        let mt = lua.create_table()?;
        let index = lua.create_function(move |lua, (_, key): (Value, Value)| -> mlua::Result<Value> {
            let key = match &key {
                Value::String(s) => s.to_string_lossy().to_string(),
                _ => "?".to_string(),
            };
            let what = if lib == "os" {
                "the sandbox's 'os' library has only clock, date, difftime and time".to_string()
            } else {
                format!("the sandbox has no '{lib}' library")
            };
            Err(crate::script::error::located(
                lua,
                format!(
                    "{lib}.{key}: {what} (a mod touches no files or processes of the machine; it reads its own files with require and a model's or sound's file name)"
                ),
            ))
        })?;
        mt.raw_set("__index", index)?;
        t.set_metatable(Some(mt))?;
        g.raw_set(lib, t)?;
    }
    Ok(())
}

/// Every registered Lua function by the name the editor definitions use (`world.spawn`,
/// `Creature:move`, `curve`), with its parameters: `(name, optional)`; `None` for `...`.
pub(crate) fn signatures() -> std::collections::BTreeMap<String, Option<Vec<(String, bool)>>> {
    let params = |p: &str| {
        (p != "...").then(|| {
            p.split(',')
                .map(str::trim)
                .filter(|x| !x.is_empty())
                .map(|x| match x.strip_suffix('?') {
                    Some(n) => (n.to_string(), true),
                    None => (x.to_string(), false),
                })
                .collect()
        })
    };
    let mut out = std::collections::BTreeMap::new();
    for (name, p, _) in TOP {
        out.insert(name.to_string(), params(p));
    }
    for (global, fns) in GLOBALS {
        for (name, p, _) in *fns {
            out.insert(format!("{global}.{name}"), params(p));
        }
    }
    out.insert(CURVE_CALL.0.to_string(), params(CURVE_CALL.1));
    for (name, p, _) in HANDLE {
        out.insert(format!("Creature:{name}"), params(p));
    }
    out
}
