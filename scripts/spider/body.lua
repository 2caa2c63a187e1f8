-- The spider's body: a creature type, named "spider" here and "spider/spider" from
-- other mods (which add "spider" to their depends in mod.toml).

-- Legs are listed front to back, left (+X) then right (-X).
-- hip: where the leg joins the body; rest: where the foot sits when standing,
-- both in body space (+Z forward, +X left, y = -height is the ground under the body).
local legs = {}
local rows = {  -- hip z, rest z, rest x (sideways reach)
  { 0.25,  0.65, 0.62 },
  { 0.09,  0.22, 0.72 },
  { -0.09, -0.22, 0.72 },
  { -0.25, -0.65, 0.62 },
}
for i, row in ipairs(rows) do
  for _, side in ipairs({ { "L", 1 }, { "R", -1 } }) do
    table.insert(legs, {
      name = side[1] .. i,
      hip = vec3(0.14 * side[2], 0, row[1]),
      rest = vec3(row[3] * side[2], -0.35, row[2]),
      segments = { 0.45, 0.55 },      -- femur, tibia (m): two segments use analytic IK
    })
  end
end

return creature.define {
  name = "spider",
  body = {
    size = vec3(0.45, 0.22, 0.7), height = 0.35, mass = 2.0,
    -- The head keeps looking where the spider goes while the body turns and leans.
    head = { offset = vec3(0, 0.01, 0.37), size = vec3(0.15, 0.13, 0.19), counter_yaw = 0.7 },
  },
  legs = legs,
  gait = {
    step_trigger = 0.22,            -- a planted foot steps when its spot drifts 22 cm
    step_duration = 0.22,           -- seconds per step at rest...
    speed_scale = curve { { 0, 1 }, { 2, 0.55 } },  -- ...shorter when running
    step_height = 0.12,
    step_arc = curve.sine_arc(),
    -- Two alternating groups of four: the classic tetrapod gait.
    groups = { { "L1", "R2", "L3", "R4" }, { "R1", "L2", "R3", "L4" } },
    min_grounded = 4,
    lead = 0.6,                     -- land ahead, where the foot will be needed
    -- Its gait tightens as it runs: past 1.2 m/s, quicker and lower steps (the same two
    -- groups of four; `c:style()` says which).
    styles = {
      walk = {},
      run = { speed = 1.2, step_duration = 0.17, step_height = 0.09 },
    },
  },
  lean = {
    turn = { gain = 0.12, max = 18, speed = curve.smoothstep(0.2, 1.2) },  -- roll into turns
    accel = { gain = 2.5, max = 8 },   -- dip when speeding up, rear up when braking
    hit = { gain = 15, max = 35, push = 1.0 },
    response = 0.1, damping = 0.8,     -- a little overshoot: alive, not mechanical
  },
  -- jump: the navmesh bake finds links it can leap (gaps up to 1.2 m between ledges, hops
  -- up to 0.6 m, drops up to 1.5 m); its agents cross them with a crouch and a jump.
  nav = { speed = 1.6, acceleration = 4, turn_rate = 200, jump = { gap = 1.2, up = 0.6, down = 1.5 } },
  -- A click on each footfall (a gait group's feet together are one), a scrape on each lift,
  -- a thud when it comes down from a jump or hits the ground as a ragdoll: files in this
  -- mod's assets/sounds/ (made by skitter's own generator), one picked per voice.
  sounds = {
    step = { "assets/sounds/step1.wav", "assets/sounds/step2.wav", "assets/sounds/step3.wav", "assets/sounds/step4.wav" },
    lift = { "assets/sounds/lift1.wav", "assets/sounds/lift2.wav", "assets/sounds/lift3.wav", "assets/sounds/lift4.wav" },
    land = { "assets/sounds/thud1.wav", "assets/sounds/thud2.wav" },
    hit = { "assets/sounds/thud1.wav", "assets/sounds/thud2.wav" },
    ragdoll_impact = { "assets/sounds/thud1.wav", "assets/sounds/thud2.wav" },
  },
  behaviour = "wander",
}
