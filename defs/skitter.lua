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

---@param x number
---@return number
function Curve:eval(x) end

---@class Path
local Path = {}

---@return number
function Path:length() end

---@param s number
---@return vector
function Path:point(s) end

---@param s number
---@return vector
function Path:tangent(s) end

---@param v vector
---@return number s
---@return vector point
function Path:closest(v) end

---@param n integer
---@return vector[]
function Path:sample(n) end

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

---@return vector
function Creature:position() end

---@return vector
function Creature:velocity() end

---@return vector
function Creature:forward() end

---@return number degrees
function Creature:yaw() end

---@param direction vector
---@param speed number?
---@param opts? { drop: boolean? } drop = true walks off an edge deeper than nav.step_height (and falls)
function Creature:move(direction, speed, opts) end

---@param direction vector
function Creature:face(direction) end

--- Face `target` while going wherever the intent, destination or path takes it: a direction
--- (vector), a creature, { point = vec3 } or { offset = degrees } (turned that far from where
--- it goes); nil faces where it goes again.
---@param target? vector|Creature|{ point: vector?, offset: number? }
function Creature:set_facing(target) end

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

---@param p Path
---@param opts? { speed?: number, loop?: boolean|string, rotation?: string, speed_curve?: CurveLike }
function Creature:follow_path(p, opts) end

---@param direction vector
---@param strength number
function Creature:hit(direction, strength) end

--- Removes this creature (one this mod spawned) at the next tick; on_despawn runs then.
function Creature:despawn() end

--- How far along its path the creature is, 0..1; nil when it follows none.
---@return number?
function Creature:path_progress() end

---@return { name: string, position: vector, grounded: boolean }[]
function Creature:feet() end

---@param name string
---@param params? table
function Creature:set_behaviour(name, params) end

--- Walk to a point along the navmesh (avoiding other agents); on_arrive when there.
---@param v vector
function Creature:set_destination(v) end

--- Forget the destination and stop.
function Creature:clear_destination() end

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

---@return "animated"|"limp"|"recovering"
function Creature:ragdoll_state() end

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

---@param x number
---@param y number
---@param z number
---@return vector
function vec3(x, y, z) end

---@class CurveLib
---@overload fun(points: number[][]): Curve
curve = {}

---@param points number[][]
---@return Curve
function curve.linear(points) end

---@return Curve
function curve.sine_arc() end

---@param x0 number
---@param x1 number
---@return Curve
function curve.smoothstep(x0, x1) end

creature = {}

---@param def table name, model, body, legs, arms, gait, lean, nav, physics, climb, behaviour and callbacks
---@return table
function creature.define(def) end

behaviour = {}

---@param def table name, params and callbacks (on_spawn, on_update, on_arrive, on_step, on_hit, on_reload, on_despawn, on_ragdoll, on_recover, on_recover_failed, on_surface, on_link)
---@return table
function behaviour.define(def) end

world = {}

---@param def { size?: vector, position?: vector, heights?: number[][], noise?: { amplitude?: number, scale?: number, seed?: number } }
function world.ground(def) end

---@param def { position: vector, size: vector, rotation?: vector }
function world.box(def) end

--- A link on the navmesh from `from` to `to` (agents whose type's `nav.links` names its kind
--- take it; `on_link` runs when one reaches it). Default kind "jump", width 1, both ways.
---@param def { from: vector, to: vector, kind?: string, width?: number, bidirectional?: boolean, cost?: number }
function world.link(def) end

---@param def { position: vector, yaw?: number, steps?: integer, step_height?: number, step_depth?: number, width?: number }
function world.stairs(def) end

---@param type string|table
---@param opts? { position?: vector, yaw?: number, behaviour?: string, params?: table, team?: integer, tint?: vector }
---@return Creature
function world.spawn(type, opts) end

---@param type? string
---@return Creature[]
function world.creatures(type) end

--- Creatures whose bodies are within radius of point, nearest first (ties by id). The third
--- argument is a type name, or a filter: only that `type`, only `team`, none of `not_team`,
--- only `animated` ones (none in physics), without `exclude` (a handle), at most `limit`.
---@param point vector
---@param radius number
---@param filter? string|{ type?: string, team?: integer, not_team?: integer, animated?: boolean, exclude?: Creature, limit?: integer }
---@return Creature[]
function world.creatures_near(point, radius, filter) end

--- Removes a creature this mod spawned (as c:despawn()).
---@param c Creature
function world.despawn(c) end

---@param origin vector
---@param dir vector
---@param max_distance number?
---@param opts? { creatures: boolean? } creatures = true also hits creature bodies (the hit's creature)
---@return { position: vector, normal: vector, distance: number, creature: Creature? }?
function world.raycast(origin, dir, max_distance, opts) end

---@return number seconds
function world.time() end

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

---@param def { points: { position: vector, handle_in?: vector, handle_out?: vector }[], closed?: boolean }
---@return Path
function path.bezier(def) end

--- The mod's `paths/NAME.toml` (written by hand or by the window's path editor, `E`). Its
--- followers follow every later save of the file without a jump.
---@param name string
---@return Path
function path.load(name) end

camera = {}

---@param c Creature
function camera.follow(c) end

---@param p Path
---@param opts? { duration?: number, ease?: CurveLike, look_at?: Creature|vector }
function camera.path(p, opts) end

---@param from vector
---@param at vector
function camera.look(from, at) end

log = {}

---@param ... any
function log.info(...) end

---@param ... any
function log.warn(...) end

---@param ... any
function log.error(...) end
