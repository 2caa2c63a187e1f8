-- NAME: runs once at load, and again on every save (hot reload).
-- Creatures spawned here are matched on reload by (type, order of the spawn call):
-- they keep their place, feet and `state`; add or remove a spawn and the world follows.
require("./brains/roam")

world.ground { size = vec3(30, 0, 30), noise = { amplitude = 0.15, scale = 6 } }

-- Legs front to back, left (+X) then right (-X); hip and rest spot in body space.
local legs = {}
for i, z in ipairs({ 0.25, 0, -0.25 }) do
  for _, side in ipairs({ { "L", 1 }, { "R", -1 } }) do
    table.insert(legs, {
      name = side[1] .. i,
      hip = vec3(0.12 * side[2], 0, z),
      rest = vec3(0.5 * side[2], -0.3, z * 1.6),
      segments = { 0.32, 0.4 },
    })
  end
end

creature.define {
  name = "critter",
  body = { size = vec3(0.36, 0.16, 0.6), height = 0.3 },
  legs = legs,
  gait = {
    step_trigger = 0.18,
    step_duration = 0.18,
    step_height = 0.1,
    groups = { { "L1", "R2", "L3" }, { "R1", "L2", "R3" } },  -- tripod gait
  },
  lean = { turn = { gain = 0.12 }, damping = 0.8 },
  nav = { speed = 1.4, acceleration = 5 },
  behaviour = "roam",
}

for i = 1, 3 do
  world.spawn("critter", { position = vec3(i * 2 - 4, 0, 0), yaw = i * 40 })
end
camera.look(vec3(0, 4, -7), vec3(0, 0, 0))
