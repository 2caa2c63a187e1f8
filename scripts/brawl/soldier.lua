-- A soft soldier: a two-legged creature on the same legs, gait and stepper as every other,
-- whose physics section makes it a deliberately wobbly active ragdoll (seed 003's "soft
-- soldiers"): under-damped muscles, a low hit threshold, quick to get up.
return creature.define {
  name = "soldier",
  body = {
    size = vec3(0.38, 0.5, 0.24), height = 0.98, mass = 30,
    head = { offset = vec3(0, 0.37, 0.02), size = 0.26, counter_yaw = 0.5 },
  },
  legs = {
    { name = "L", hip = vec3( 0.11, -0.24, 0), rest = vec3( 0.13, -0.98, 0.04), segments = { 0.45, 0.43 }, knee = vec3(0, 0, 1) },
    { name = "R", hip = vec3(-0.11, -0.24, 0), rest = vec3(-0.13, -0.98, 0.04), segments = { 0.45, 0.43 }, knee = vec3(0, 0, 1) },
  },
  -- Arms hang from the shoulders and swing against the legs; in physics they flail.
  arms = {
    { name = "LA", shoulder = vec3( 0.24, 0.16, 0), segments = { 0.3, 0.28 } },
    { name = "RA", shoulder = vec3(-0.24, 0.16, 0), segments = { 0.3, 0.28 } },
  },
  gait = {
    groups = { { "L" }, { "R" } },
    min_grounded = 1,               -- a biped: one foot down while the other swings
    step_trigger = 0.16,
    step_duration = 0.32,
    speed_scale = curve { { 0, 1 }, { 1.5, 0.7 } },
    step_height = 0.1,
    lead = 0.5,
  },
  lean = {
    turn = { gain = 0.08, max = 10 },
    accel = { gain = 2.0, max = 8 },
    hit = { gain = 12, max = 30, push = 0.5 },  -- a shove of strength 1 pushes 0.5 m/s
    response = 0.12, damping = 0.5,             -- under-damped: the upper body sways
  },
  nav = { radius = 0.35, speed = 1.3, acceleration = 3, turn_rate = 240 },
  physics = {
    stiffness = 500, damping = 18, max_torque = 900,   -- soft: it wobbles, it does not hold a pose like a statue
    hit_threshold = 3,              -- shoves of 3 and up knock it over
    limp_strength = 0.08,
    getup_delay = 1.2,
    recovery_time = 1.4,
    friction = 0.9,
  },
  -- Boots: a dull thump and a scuff; thuds when it lands, is hit or falls.
  sounds = {
    step = { "assets/sounds/boot1.wav", "assets/sounds/boot2.wav", "assets/sounds/boot3.wav", "assets/sounds/boot4.wav" },
    lift = { "assets/sounds/scuff1.wav", "assets/sounds/scuff2.wav" },
    land = { "assets/sounds/thud1.wav", "assets/sounds/thud2.wav", "assets/sounds/thud3.wav", "assets/sounds/thud4.wav" },
    hit = { "assets/sounds/thud1.wav", "assets/sounds/thud2.wav", "assets/sounds/thud3.wav", "assets/sounds/thud4.wav" },
    ragdoll_impact = { "assets/sounds/thud1.wav", "assets/sounds/thud2.wav", "assets/sounds/thud3.wav", "assets/sounds/thud4.wav" },
  },
}
