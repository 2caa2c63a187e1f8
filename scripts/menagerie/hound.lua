-- hound: a four-legged trotter. Its front knees bend back and its rear knees forward
-- (legs[i].knee); the default gait trots (diagonal pairs, whatever order the legs are
-- listed in), and its head keeps looking where it goes while the body turns and leans.
-- Its tail swings on springs: it trails a turn, and wags past rest when the hound stops.
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
  gait = { step_trigger = 0.16, step_duration = 0.24, step_height = 0.09 },
  lean = { turn = { gain = 0.08, max = 12 }, accel = { gain = 2, max = 6 } },
  nav = { speed = 1.3, acceleration = 3, turn_rate = 160 },
  behaviour = "wander",
}
