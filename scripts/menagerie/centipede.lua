-- centipede: 20 legs (10 a side) on a long low body, walking with a metachronal wave.
-- gait.pattern = "wave": on each side the legs step in sequence from the back to the
-- front, every fourth leg together, the two sides half a cycle apart. min_grounded stays
-- absolute (default: half the legs).
local legs = {}
for i = 0, 9 do
  local z = 0.9 - i * 0.2            -- hips from the head back
  for _, side in ipairs({ { "L", 1 }, { "R", -1 } }) do
    table.insert(legs, {
      name = side[1] .. (i + 1),
      hip = vec3(0.07 * side[2], 0, z),
      rest = vec3(0.42 * side[2], -0.18, z - 0.03),
      segments = { 0.22, 0.26 },
    })
  end
end

return creature.define {
  name = "centipede",
  body = {
    size = vec3(0.2, 0.1, 2.0), height = 0.18, mass = 0.5,
    head = { offset = vec3(0, 0.02, 1.05), size = vec3(0.16, 0.09, 0.14), counter_yaw = 0.4 },
  },
  antennae = { length = 0.35, rise = 30, spread = 35 },
  legs = legs,
  gait = { pattern = "wave", step_trigger = 0.12, step_duration = 0.12, step_height = 0.05 },
  lean = { turn = { gain = 0.05, max = 8 } },
  nav = { speed = 0.45, acceleration = 2, turn_rate = 80 },
  -- Twenty hard little feet: a tick each, the ticks of a wave of them one rustle.
  sounds = {
    step = { "assets/sounds/tick1.wav", "assets/sounds/tick2.wav", "assets/sounds/tick3.wav", "assets/sounds/tick4.wav" },
    lift = { "assets/sounds/lift1.wav", "assets/sounds/lift2.wav" },
    land = { "assets/sounds/thud1.wav", "assets/sounds/thud2.wav" },
    ragdoll_impact = { "assets/sounds/thud1.wav", "assets/sounds/thud2.wav" },
  },
  behaviour = "wander",
}
