---@meta skitter
-- skitter Lua API (contract v1 and skitter's additions): definitions for LuaLS
-- (lua-language-server). Add this folder to "workspace.library"; `skitter new` does.
-- Every function the runtime registers is declared here, and nothing else
-- (tests/editor_defs.rs checks it). Angles are degrees; +Y is up; creatures face +Z.
-- Luau's `vector` type is written `vector` (x, y, z fields).

---@class vector
---@field x number
---@field y number
---@field z number

---@alias CurveLike Curve|number|number[][]

---@class Curve
local Curve = {}

--- The curve's value at `x` (clamped to its first and last points).
---@param x number
---@return number
function Curve:eval(x) end

---@class NearFilter
--- A filter read once by world.near_filter, to pass to world.creatures_near or
--- world.nearest_creature every tick (tostring shows its fields).

---@alias NearFilterDef { type?: string, team?: integer, not_team?: integer, animated?: boolean, exclude?: Creature, limit?: integer }

---@class Path
local Path = {}

--- The path's length along its curve, m.
---@return number
function Path:length() end

--- The point `s` metres along the path.
---@param s number
---@return vector
function Path:point(s) end

--- The unit direction of the path `s` metres along it.
---@param s number
---@return vector
function Path:tangent(s) end

--- The point of the path nearest `v`: how far along it (m) and the point.
---@param v vector
---@return number s
---@return vector point
function Path:closest(v) end

--- `n` points spread evenly along the path.
---@param n integer
---@return vector[]
function Path:sample(n) end

--- A path of fewer points within `tolerance` m of this one.
---@param tolerance number
---@return Path
function Path:simplify(tolerance) end

---@class Creature
---@field id integer
---@field type string
---@field params table
---@field state table kept across hot reloads (plain data only)
---@field gait table this instance's gait; assigning a field changes it live
---@field lean table this instance's lean; assigning a field changes it live
---@field muscle number live muscle strength 0..1 of a ragdoll (1 while animated); assign to change it
local Creature = {}

--- Where its body is (a ragdoll's body part).
---@return vector
function Creature:position() end

--- Its body's velocity, m/s.
---@return vector
function Creature:velocity() end

--- The unit direction its body faces, level.
---@return vector
function Creature:forward() end

--- Its heading, degrees (0 faces +Z).
---@return number degrees
function Creature:yaw() end

--- Walk (or fly) along `direction` at `speed` (default `nav.speed`) this tick, turning the body to it (unless `c:set_facing` says otherwise); ends a destination or a path.
---@param direction vector
---@param speed number?
---@param opts? { drop: boolean? } drop = true walks off an edge deeper than nav.step_height (and falls)
function Creature:move(direction, speed, opts) end

--- Turn in place toward `direction` (at `nav.turn_rate`), standing.
---@param direction vector
function Creature:face(direction) end

--- Face `target` while going wherever the intent, destination or path takes it: a direction
--- (vector), a creature, { point = vec3 } or { offset = degrees } (turned that far from where
--- it goes); nil faces where it goes again.
---@param target? vector|Creature|{ point: vector?, offset: number? }
function Creature:set_facing(target) end

--- Turn the head (and only the head) to look at `target`: a point (vector) or a creature
--- (its head, while it lives), within `body.head.look`'s limits (`max_yaw`, `max_pitch`
--- degrees, `speed` degrees a second: 70, 35, 240 by default), eased; past them it turns as
--- far as it may and no farther. nil: the head looks where it goes again (its counter-yaw).
--- A creature without a head ignores it.
---@param target? vector|Creature
function Creature:look_at(target) end

--- Ease the body to a posture on its planted feet over `time` seconds (0.3): ride height
--- × `height` (0.3..2), `pitch` degrees (negative rears up, on the rear hips), `roll`
--- degrees (positive leans right). No argument: back to the defined posture.
---@param opts? { height: number?, pitch: number?, roll: number?, time: number? }
function Creature:pose(opts) end

--- Reach arm `arm` (its name or number) toward `target` (a point or a creature) by `weight`
--- (0..1, default 1) at `speed` (weight a second, default 4); nil eases it back to rest.
---@param arm string|number
---@param target? vector|Creature
---@param opts? { weight: number?, speed: number? }
function Creature:reach(arm, target, opts) end

--- Follow path `p` from its point nearest the creature: `speed` (default `nav.speed`), `loop` (false, true or "ping_pong"), `rotation` ("look_forward", "smooth", "none"), `speed_curve` over progress 0..1; starts and stops at `nav.acceleration`; on_arrive at the end of a path followed once.
---@param p Path
---@param opts? { speed?: number, loop?: boolean|string, rotation?: string, speed_curve?: CurveLike }
function Creature:follow_path(p, opts) end

--- A blow along `direction` (any but zero) of `strength` 0..100: the lean kicks away from it and the body is pushed; past `physics.hit_threshold` it goes into physics. on_hit runs after the tick.
---@param direction vector
---@param strength number
function Creature:hit(direction, strength) end

--- Removes this creature (one this mod spawned) at the next tick; on_despawn runs then.
function Creature:despawn() end

--- How far along its path the creature is, 0..1; nil when it follows none.
---@return number?
function Creature:path_progress() end

--- Each foot: its leg's name, where it is, whether it is planted.
---@return { name: string, position: vector, grounded: boolean }[]
function Creature:feet() end

--- Gives it the brain `name` (this mod's, or `mod/name`) with `params`, from the next tick.
---@param name string
---@param params? table
function Creature:set_behaviour(name, params) end

--- Walk to a point along the navmesh (avoiding other agents); on_arrive when there. `speed`
--- (m/s) is how fast to go there: at most its type's `nav.speed`, which is the default.
---@param v vector
---@param opts? { speed?: number }
function Creature:set_destination(v, opts) end

--- Forget the destination and stop.
function Creature:clear_destination() end

--- Whether it reached its destination (or the end of its path).
---@return boolean
function Creature:arrived() end

--- Corner points from where the creature is to where it goes (empty once arrived).
---@return vector[]
function Creature:path() end

--- Into physics at the next tick: limp at `muscle` (default physics.limp_strength) for
--- `duration` seconds (default physics.getup_delay), then it gets up by itself (from any
--- orientation: it rolls onto its feet first). `turn` (pitch, yaw, roll degrees) throws it
--- in turned about its body's centre: vec3(0, 0, 180) lands it on its back.
---@param opts? { muscle?: number, duration?: number, turn?: vector }
function Creature:ragdoll(opts) end

--- A ragdoll starts getting up now (a creature that gave up tries afresh).
function Creature:recover() end

--- In physics (limp or recovering).
---@return boolean
function Creature:is_ragdoll() end

--- Whether it walks (animated), lies limp in physics, or is getting up (recovering).
---@return "animated"|"limp"|"recovering"
function Creature:ragdoll_state() end

--- The gait style it steps in now (a name from its type's `gait.styles`: "walk", "trot", …;
--- chosen by its speed), nil for a type without styles.
---@return string?
function Creature:style() end

--- A climbing type (`climb` in its definition) holding on to a surface.
---@return boolean
function Creature:is_climbing() end

--- The up of the surface the body stands on (a climber's body up).
---@return vector
function Creature:surface_normal() end

--- A climber's surface: "floor", "wall" or "ceiling"; nil for a walker or while falling.
---@return "floor"|"wall"|"ceiling"|nil
function Creature:surface() end

--- A climber lets go of its surface at the next tick and falls (lands as a walker does).
function Creature:let_go() end

--- Jumps to the ground at `to` (crouch, ballistic flight, landing). Raises an error when it
--- cannot: in the air or in physics, no ground within 0.75 m of `to`, beyond its type's
--- `nav.jump` limits (or the defaults gap 1, up 0.5, down 1.5), or the arc blocked.
---@param to vector
function Creature:jump(to) end

--- The built-in crossing of the link it waits at (after `on_link` returned a value).
function Creature:cross_link() end

--- The kind of the link it is crossing or waiting at, or nil.
---@return string|nil
function Creature:link() end

--- Crouching for a jump or in its flight.
---@return boolean
function Creature:is_jumping() end

--- Its team (world.spawn's `team`, c:set_team), or nil.
---@return integer|nil
function Creature:team() end

--- Puts it in a team (a whole number 0..1000000; nil: none) from the next tick.
---@param team integer?
function Creature:set_team(team) end

--- Its colour tint (world.spawn's `tint`, c:set_tint), or nil: drawn as made.
---@return vector|nil
function Creature:tint() end

--- Recolours its model (or sticks) in `tint`, keeping their lightness (a mid-grey part takes
--- the colour; each 0..4; nil: as made), from the next tick: an army's colours.
---@param tint vector?
function Creature:set_tint(tint) end

--- Plays a bundled sound ("step", "lift" or "thud") at its body, for whoever listens
--- (`skitter run --headless --audio-out`): `volume` (0..8) and `pitch` (0.25..4) times its own.
---@param name "step"|"lift"|"thud"
---@param opts? { volume?: number, pitch?: number }
function Creature:play(name, opts) end

--- A vector of three numbers (anything else is an error that says what it got).
---@param x number
---@param y number
---@param z number
---@return vector
function vec3(x, y, z) end

---@class CurveLib
---@overload fun(points: number[][]): Curve
curve = {}

--- A curve through `{ {x, y}, … }` points, straight between them.
---@param points number[][]
---@return Curve
function curve.linear(points) end

--- The arc sin(πx) over 0..1: a step's lift.
---@return Curve
function curve.sine_arc() end

--- 0 before `x0`, 1 after `x1`, a smooth S between.
---@param x0 number
---@param x1 number
---@return Curve
function curve.smoothstep(x0, x1) end

creature = {}

--- Defines a creature type of this mod (see docs/lua-api-notes.md for every field). Returns the table.
---@param def table name, model, body, legs, arms, gait, lean, nav, physics, climb, sounds, behaviour and callbacks
---@return table
function creature.define(def) end

behaviour = {}

--- Defines a brain: its `params` and callbacks (docs/api.md lists when each runs). Returns the table.
---@param def table name, params and callbacks (on_spawn, on_update, on_arrive, on_step, on_lift, on_hit, on_reload, on_despawn, on_ragdoll, on_recover, on_recover_failed, on_surface, on_link)
---@return table
function behaviour.define(def) end

world = {}

--- The level's ground: flat, from `heights`, or `noise` hills (docs/api.md: the level's tables).
---@param def { size?: vector, position?: vector, heights?: number[][], noise?: { amplitude?: number, scale?: number, seed?: number }, name?: string, surface?: string }
function world.ground(def) end

--- A solid box of the level, turned by `rotation` (pitch, yaw, roll).
---@param def { position: vector, size: vector, rotation?: vector, name?: string, surface?: string }
function world.box(def) end

--- A link on the navmesh from `from` to `to` (agents whose type's `nav.links` names its kind
--- take it; `on_link` runs when one reaches it). Default kind "jump", width 1, both ways.
---@param def { from: vector, to: vector, kind?: string, width?: number, bidirectional?: boolean, cost?: number }
function world.link(def) end

--- Stairs rising from `position` along `yaw`.
---@param def { position: vector, yaw?: number, steps?: integer, step_height?: number, step_depth?: number, width?: number, name?: string, surface?: string }
function world.stairs(def) end

--- A new creature of `type` (this mod's, or `mod/type` of a mod in `depends`); its handle.
---@param type string|table
---@param opts? { position?: vector, yaw?: number, behaviour?: string, params?: table, team?: integer, tint?: vector }
---@return Creature
function world.spawn(type, opts) end

--- Every creature, or those of `type`, by id.
---@param type? string
---@return Creature[]
function world.creatures(type) end

--- Creatures whose bodies are within radius of point, nearest first (ties by id). The third
--- argument is a type name, or a filter: only that `type`, only `team`, none of `not_team`,
--- only `animated` ones (none in physics), without `exclude` (a handle), at most `limit` —
--- a table, or one read already by world.near_filter.
---@param point vector
---@param radius number
---@param filter? string|NearFilterDef|NearFilter
---@return Creature[]
function world.creatures_near(point, radius, filter) end

--- The nearest creature world.creatures_near would give first (same arguments), or nil: no
--- table is made for the answer.
---@param point vector
---@param radius number
---@param filter? string|NearFilterDef|NearFilter
---@return Creature?
function world.nearest_creature(point, radius, filter) end

--- A creatures_near filter table read and checked once, to ask with as often as wanted
--- (a brain asking every tick makes and reads no table for it).
---@param filter NearFilterDef
---@return NearFilter
function world.near_filter(filter) end

--- Removes a creature this mod spawned (as c:despawn()).
---@param c Creature
function world.despawn(c) end

--- The first surface of the level (and with `creatures = true`, of a creature's body) along `dir` from `origin` within `max_distance` (default 1000); nil when none.
---@param origin vector
---@param dir vector
---@param max_distance number?
---@param opts? { creatures: boolean? } creatures = true also hits creature bodies (the hit's creature)
---@return { position: vector, normal: vector, distance: number, creature: Creature? }?
function world.raycast(origin, dir, max_distance, opts) end

--- Seconds of simulation since the world started.
---@return number seconds
function world.time() end

--- Run the window's world at `scale` times real time (0.25 to 4; the overlay's and the
--- `[`/`]` keys' choices are 0.25, 0.5, 1, 2, 4). The ticks are the same at any scale, so a
--- trace is too; headless runs tick as fast as they go (or at real time) whatever it is.
---@param scale number
function world.set_time_scale(scale) end

--- A random point on the navmesh, within `radius` (default 5) of `near` when given.
--- With `{ surfaces = true }` (and `near`): a point on any surface of the level — walls and
--- tops too — that the calling climber can stand on.
---@param near? vector
---@param radius? number
---@param opts? { surfaces?: boolean }
---@return vector?
function world.random_nav_point(near, radius, opts) end

--- The closest point on the navmesh within 10 m.
---@param v vector
---@return vector?
function world.nearest_nav_point(v) end

path = {}

--- A Bézier path through `points` (each with optional handles; without them, a smooth curve through the points); `closed` joins its ends.
---@param def { points: { position: vector, handle_in?: vector, handle_out?: vector }[], closed?: boolean }
---@return Path
function path.bezier(def) end

--- The mod's `paths/NAME.toml` (written by hand or by the window's path editor, `E`). Its
--- followers follow every later save of the file without a jump.
---@param name string
---@return Path
function path.load(name) end

camera = {}

--- The window's camera keeps `c` in view (until the user moves it).
---@param c Creature
function camera.follow(c) end

--- The camera flies along `p` over `duration` seconds, eased by `ease`, looking at `look_at` (else along the path).
---@param p Path
---@param opts? { duration?: number, ease?: CurveLike, look_at?: Creature|vector }
function camera.path(p, opts) end

--- Places the camera at `from`, looking at `at` (and makes it the view Home returns to).
---@param from vector
---@param at vector
function camera.look(from, at) end

sound = {}

--- Plays a bundled sound ("step", "lift" or "thud") at `at`, for whoever listens
--- (`skitter run --headless --audio-out`): `volume` (0..8) and `pitch` (0.25..4) times its own.
---@param name "step"|"lift"|"thud"
---@param at vector
---@param opts? { volume?: number, pitch?: number }
function sound.play(name, at, opts) end

log = {}

--- A line in the console (and the window's log) from this mod.
---@param ... any
function log.info(...) end

--- A warning line from this mod.
---@param ... any
function log.warn(...) end

--- An error line from this mod (the mod goes on).
---@param ... any
function log.error(...) end
