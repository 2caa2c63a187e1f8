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

pub(crate) use context::{ModCtx, Roots};
pub(crate) use handle::{drop_handle, handle};
pub(crate) use path::sample_path_userdata;
pub(crate) use registry::{brain_table, handle_mt};

/// Makes one Lua function in a state.
pub(crate) type Ctor = fn(&Lua) -> mlua::Result<Function>;

/// Functions stored directly as globals.
const TOP: &[(&str, Ctor)] = &[
    ("print", |l| l.create_function(log::info)),
    ("require", |l| l.create_function(require::require)),
];

/// `global.name` functions, by global.
const GLOBALS: &[(&str, &[(&str, Ctor)])] = &[
    (
        "log",
        &[
            ("info", |l| l.create_function(log::info)),
            ("warn", |l| l.create_function(log::warn)),
            ("error", |l| l.create_function(log::error)),
        ],
    ),
    (
        "curve",
        &[
            ("linear", |l| l.create_function(values::curve_linear)),
            ("sine_arc", |l| l.create_function(values::curve_sine_arc)),
            ("smoothstep", |l| {
                l.create_function(values::curve_smoothstep)
            }),
        ],
    ),
    (
        "creature",
        &[("define", |l| l.create_function(define::creature))],
    ),
    (
        "behaviour",
        &[("define", |l| l.create_function(define::behaviour))],
    ),
    (
        "world",
        &[
            ("ground", |l| l.create_function(world::ground)),
            ("box", |l| l.create_function(world::add_box)),
            ("stairs", |l| l.create_function(world::stairs)),
            ("spawn", |l| l.create_function(world::spawn)),
            ("creatures", |l| l.create_function(world::creatures)),
            ("raycast", |l| l.create_function(world::raycast)),
            ("time", |l| l.create_function(world::time)),
            ("random_nav_point", |l| {
                l.create_function(world::random_nav_point)
            }),
            ("nearest_nav_point", |l| {
                l.create_function(world::nearest_nav_point)
            }),
        ],
    ),
    ("path", &[("bezier", |l| l.create_function(path::bezier))]),
    (
        "camera",
        &[
            ("follow", |l| l.create_function(camera::follow)),
            ("look", |l| l.create_function(camera::look)),
            ("path", |l| l.create_function(camera::path)),
        ],
    ),
];

/// `curve{...}` itself: the `curve` table's `__call`.
const CURVE_CALL: Ctor = |l| l.create_function(values::curve_call);

/// Creature handle methods (`c:name(...)`). `c.gait` and `c.lean` are [`tuning`] proxies.
const HANDLE: &[(&str, Ctor)] = &[
    ("position", |l| l.create_function(handle::position)),
    ("velocity", |l| l.create_function(handle::velocity)),
    ("forward", |l| l.create_function(handle::forward)),
    ("yaw", |l| l.create_function(handle::yaw)),
    ("move", |l| l.create_function(handle::move_to)),
    ("face", |l| l.create_function(handle::face)),
    ("feet", |l| l.create_function(handle::feet)),
    ("set_behaviour", |l| {
        l.create_function(handle::set_behaviour)
    }),
    ("set_destination", |l| {
        l.create_function(handle::set_destination)
    }),
    ("clear_destination", |l| {
        l.create_function(handle::clear_destination)
    }),
    ("arrived", |l| l.create_function(handle::arrived)),
    ("path", |l| l.create_function(handle::path)),
    ("hit", |l| l.create_function(handle::hit)),
    ("follow_path", |l| l.create_function(handle::follow_path)),
    ("ragdoll", |l| l.create_function(handle::ragdoll)),
    ("recover", |l| l.create_function(handle::recover)),
    ("is_ragdoll", |l| l.create_function(handle::is_ragdoll)),
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
