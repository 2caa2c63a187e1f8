-- hound: a four-legged walker, trotter and galloper. Its front knees bend back and its rear
-- knees forward (legs[i].knee). Its gait has styles by speed (gait.styles): it walks one
-- foot at a time, trots on diagonal pairs, and gallops hind pair then fore pair; its "romp"
-- brain strolls, trots off now and then, and bolts from whatever comes too near. Its head
-- looks where it goes while the body turns and leans; its tail swings on springs: it trails
-- a turn, and wags past rest when the hound stops.
return creature.define {
  name = "hound",
  body = {
    size = vec3(0.32, 0.28, 0.85), height = 0.5, mass = 20,
    head = { offset = vec3(0, 0.14, 0.45), size = vec3(0.16, 0.16, 0.24), counter_yaw = 0.8 },
    breathe = { rate = 0.3, depth = 0.012 },   -- at rest, a slow breath
  },
  tail = { segments = 4, length = 0.45, rise = 30 },
  legs = {
    { name = "FL", hip = vec3( 0.14, 0,  0.33), rest = vec3( 0.2, -0.5,  0.38), segments = { 0.3, 0.3 }, knee = vec3(0, 0, -1) },
    { name = "FR", hip = vec3(-0.14, 0,  0.33), rest = vec3(-0.2, -0.5,  0.38), segments = { 0.3, 0.3 }, knee = vec3(0, 0, -1) },
    { name = "BL", hip = vec3( 0.14, 0, -0.33), rest = vec3( 0.2, -0.5, -0.38), segments = { 0.3, 0.3 }, knee = vec3(0, 0, 1) },
    { name = "BR", hip = vec3(-0.14, 0, -0.33), rest = vec3(-0.2, -0.5, -0.38), segments = { 0.3, 0.3 }, knee = vec3(0, 0, 1) },
  },
  gait = {
    step_trigger = 0.16, step_duration = 0.24, step_height = 0.09,
    -- Slow, it walks one foot at a time (left hind, left fore, right hind, right fore) with
    -- three feet down, short quick steps; from 0.9 m/s it trots (diagonal pairs); from
    -- 2.2 m/s it gallops: hind pair, fore pair, long quick strides. (Each gives way to the
    -- slower one 15% under the speed it took over at.)
    styles = {
      walk = { step_trigger = 0.04, step_duration = 0.11, step_height = 0.06, min_grounded = 3, lead = 1.0 },
      trot = { speed = 0.9, step_duration = 0.2 },
      gallop = { speed = 2.2, step_trigger = 0.22, step_duration = 0.13, step_height = 0.1, lead = 0.6 },
    },
  },
  lean = { turn = { gain = 0.08, max = 12 }, accel = { gain = 2, max = 6 } },
  nav = { speed = 3.2, acceleration = 3, turn_rate = 160 },
  -- Padded paws: a soft pat a footfall.
  sounds = {
    step = { "assets/sounds/paw1.wav", "assets/sounds/paw2.wav", "assets/sounds/paw3.wav", "assets/sounds/paw4.wav" },
    lift = { "assets/sounds/lift1.wav", "assets/sounds/lift2.wav" },
    land = { "assets/sounds/thud1.wav", "assets/sounds/thud2.wav" },
    ragdoll_impact = { "assets/sounds/thud1.wav", "assets/sounds/thud2.wav" },
  },
  behaviour = "romp",
}
