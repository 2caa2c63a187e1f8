//! The Lua API of contract v1, installed into each mod's Luau state. The tables below name
//! every Lua function and the Rust handler behind it, grouped by the global that holds it;
//! each handler lives in the module of its concern. Scripts never hold references into the
//! World: handles carry ids, writes become commands.

mod camera;
mod context;
mod define;
mod handle;
mod log;
mod path;
mod registry;
mod require;
mod resolve;
mod tuning;
mod values;
mod world;

use std::rc::Rc;

use mlua::{Function, Lua, Table, Value};

use context::api_fn;
pub(crate) use context::INTERNAL_CHUNK;
pub(crate) use context::{ModCtx, Roots};
pub(crate) use handle::{drop_handle, handle};
pub(crate) use path::{sample_path_userdata, LuaPath};
pub(crate) use registry::{brain_table, handle_methods};
pub(crate) use resolve::resolve_behaviour;

/// Makes one Lua function in a state.
pub(crate) type Ctor = fn(&Lua) -> mlua::Result<Function>;

/// Functions stored directly as globals.
const TOP: &[(&str, Ctor)] = &[
    ("print", |l| api_fn(l, "print", log::info)),
    ("require", |l| api_fn(l, "require", require::require)),
];

/// `global.name` functions, by global.
const GLOBALS: &[(&str, &[(&str, Ctor)])] = &[
    (
        "log",
        &[
            ("info", |l| api_fn(l, "log.info", log::info)),
            ("warn", |l| api_fn(l, "log.warn", log::warn)),
            ("error", |l| api_fn(l, "log.error", log::error)),
        ],
    ),
    (
        "curve",
        &[
            ("linear", |l| {
                api_fn(l, "curve.linear", values::curve_linear)
            }),
            ("sine_arc", |l| {
                api_fn(l, "curve.sine_arc", values::curve_sine_arc)
            }),
            ("smoothstep", |l| {
                api_fn(l, "curve.smoothstep", values::curve_smoothstep)
            }),
        ],
    ),
    (
        "creature",
        &[("define", |l| api_fn(l, "creature.define", define::creature))],
    ),
    (
        "behaviour",
        &[("define", |l| {
            api_fn(l, "behaviour.define", define::behaviour)
        })],
    ),
    (
        "world",
        &[
            ("ground", |l| api_fn(l, "world.ground", world::ground)),
            ("box", |l| api_fn(l, "world.box", world::add_box)),
            ("stairs", |l| api_fn(l, "world.stairs", world::stairs)),
            ("spawn", |l| api_fn(l, "world.spawn", world::spawn)),
            ("despawn", |l| api_fn(l, "world.despawn", world::despawn)),
            ("creatures", |l| {
                api_fn(l, "world.creatures", world::creatures)
            }),
            ("creatures_near", |l| {
                api_fn(l, "world.creatures_near", world::creatures_near)
            }),
            ("raycast", |l| api_fn(l, "world.raycast", world::raycast)),
            ("time", |l| api_fn(l, "world.time", world::time)),
            ("random_nav_point", |l| {
                api_fn(l, "world.random_nav_point", world::random_nav_point)
            }),
            ("nearest_nav_point", |l| {
                api_fn(l, "world.nearest_nav_point", world::nearest_nav_point)
            }),
        ],
    ),
    (
        "path",
        &[("bezier", |l| api_fn(l, "path.bezier", path::bezier))],
    ),
    (
        "camera",
        &[
            ("follow", |l| api_fn(l, "camera.follow", camera::follow)),
            ("look", |l| api_fn(l, "camera.look", camera::look)),
            ("path", |l| api_fn(l, "camera.path", camera::path)),
        ],
    ),
];

/// `curve{...}` itself: the `curve` table's `__call`.
const CURVE_CALL: Ctor = |l| api_fn(l, "curve", values::curve_call);

/// Creature handle methods (`c:name(...)`). `c.gait` and `c.lean` are [`tuning`] proxies.
const HANDLE: &[(&str, Ctor)] = &[
    ("position", |l| api_fn(l, "c:position", handle::position)),
    ("velocity", |l| api_fn(l, "c:velocity", handle::velocity)),
    ("forward", |l| api_fn(l, "c:forward", handle::forward)),
    ("yaw", |l| api_fn(l, "c:yaw", handle::yaw)),
    ("move", |l| api_fn(l, "c:move", handle::move_to)),
    ("face", |l| api_fn(l, "c:face", handle::face)),
    ("feet", |l| api_fn(l, "c:feet", handle::feet)),
    ("set_behaviour", |l| {
        api_fn(l, "c:set_behaviour", handle::set_behaviour)
    }),
    ("set_destination", |l| {
        api_fn(l, "c:set_destination", handle::set_destination)
    }),
    ("clear_destination", |l| {
        api_fn(l, "c:clear_destination", handle::clear_destination)
    }),
    ("arrived", |l| api_fn(l, "c:arrived", handle::arrived)),
    ("path", |l| api_fn(l, "c:path", handle::path)),
    ("hit", |l| api_fn(l, "c:hit", handle::hit)),
    ("follow_path", |l| {
        api_fn(l, "c:follow_path", handle::follow_path)
    }),
    ("path_progress", |l| {
        api_fn(l, "c:path_progress", handle::path_progress)
    }),
    ("despawn", |l| api_fn(l, "c:despawn", handle::despawn)),
    ("ragdoll", |l| api_fn(l, "c:ragdoll", handle::ragdoll)),
    ("recover", |l| api_fn(l, "c:recover", handle::recover)),
    ("is_ragdoll", |l| {
        api_fn(l, "c:is_ragdoll", handle::is_ragdoll)
    }),
];

/// Installs the API into a fresh state (before `sandbox(true)` freezes the globals).
pub(crate) fn install(lua: &Lua, mod_ctx: Rc<ModCtx>, seed: u64) -> mlua::Result<()> {
    let g = lua.globals();
    // Code is loaded only by `require`, as text, from inside the allowed folders.
    g.raw_set("loadstring", Value::Nil)?;
    for (name, make) in TOP {
        g.raw_set(*name, make(lua)?)?;
    }
    for (global, fns) in GLOBALS {
        let t = lua.create_table()?;
        for (name, make) in *fns {
            t.raw_set(*name, make(lua)?)?;
        }
        g.raw_set(*global, t)?;
    }
    let curve: Table = g.raw_get("curve")?;
    let mt = lua.create_table()?;
    mt.raw_set("__call", CURVE_CALL(lua)?)?;
    curve.set_metatable(Some(mt))?;
    values::install_vec3(&g)?;
    values::install_random(lua, &g, seed, &mod_ctx.name)?;
    handle::install(lua, HANDLE)?;
    registry::create(lua)?;
    lua.set_app_data(mod_ctx);
    Ok(())
}
