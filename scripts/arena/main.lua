-- arena: the level the bundled creatures walk on.
-- Level calls run once when the mod loads and build static geometry.
-- Copy this mod to make your own level; every call is in lua-api.md, "world".

-- Ground: a 40 x 40 m heightfield of seeded noise. `amplitude` is the peak height
-- change in metres, `scale` the size of the hills. Leave out `seed` to follow --seed.
world.ground {
  size = vec3(40, 0, 40),
  noise = { amplitude = 0.35, scale = 9, seed = 7 },
}

-- Stairs rising toward +Z: position is the centre of the bottom edge.
-- Steps of 0.15 m are easy for the spider's 0.12 m lift plus its leg reach.
world.stairs {
  position = vec3(-6, -0.1, 4),
  yaw = 0,
  steps = 6,
  step_height = 0.15,
  step_depth = 0.45,
  width = 3,
}
-- A landing at the top of the stairs.
world.box { position = vec3(-6, 0.35 + 0.45, 8.2), size = vec3(3, 0.9, 1.6) }

-- Two terraces north of the centre, a metre apart and 0.55 m over the ground round them:
-- the spider (its type has `nav.jump`) hops up onto them, leaps the gap between them and
-- drops off their edges. The navmesh bake finds those links by itself (the debug layer
-- "nav", key 7, draws them).
local top = -math.huge
for _, x in ipairs({ -4.4, -1.8, -0.6, 2.2 }) do
  for _, z in ipairs({ 7.1, 9.9 }) do
    local hit = world.raycast(vec3(x, 10, z), vec3(0, -1, 0), 20)
    top = math.max(top, hit and hit.position.y or 0)
  end
end
top += 0.55
world.box { position = vec3(-3.1, top - 0.6, 8.5), size = vec3(2.8, 1.2, 3) }
world.box { position = vec3(0.8, top - 0.6, 8.5), size = vec3(3, 1.2, 3) }

-- A ramp: a long box pitched 15 degrees (rotation = vec3(pitch, yaw, roll)).
world.box { position = vec3(6, -0.3, -4), size = vec3(3, 0.6, 8), rotation = vec3(-15, 30, 0) }

-- Rocks: low boxes turned every which way. The spider's legs find their tops.
local rocks = {
  { vec3( 3, 0.0,  6), vec3(1.2, 0.5, 0.9), vec3( 10,  20, 5) },
  { vec3(-3, 0.0, -5), vec3(0.9, 0.4, 1.4), vec3(-8,  65, 0) },
  { vec3( 9, 0.0,  7), vec3(1.6, 0.6, 1.1), vec3( 0, -30, 12) },
  { vec3(-9, 0.0, -8), vec3(1.0, 0.5, 1.0), vec3( 15, 45, -10) },
  { vec3( 1, 0.0, -9), vec3(2.0, 0.4, 0.8), vec3( 0,  10, 8) },
}
for _, r in ipairs(rocks) do
  -- Sink each rock into the ground under it so it sits, not floats.
  local hit = world.raycast(r[1] + vec3(0, 10, 0), vec3(0, -1, 0), 20)
  local y = hit and hit.position.y or 0
  world.box { position = vec3(r[1].x, y, r[1].z), size = r[2], rotation = r[3] }
end
