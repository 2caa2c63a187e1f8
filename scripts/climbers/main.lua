-- climbers: spiders that walk on walls — up the arena's stairs' side wall, onto the
-- landing's face, over the ramp and the rocks, and up two tall rocks of their own.
-- `climb = {}` in a type's definition is all it takes: the body's up follows the
-- surfaces under and ahead of it, feet are cast along its own down, and set_destination
-- takes it over whatever is in the way (up a wall, across the top, down the far side)
-- instead of round it. See docs/lua-api-notes.md, "Climbing".

-- Two tall rocks in the arena's southern corners, too tall for a walker's step: the
-- climbers go up and over them.
for _, r in ipairs({
  { at = vec3(-16, 0, -16), size = vec3(1.8, 3.2, 1.5), turn = -15 },
  { at = vec3(16, 0, -16), size = vec3(1.6, 2.6, 1.8), turn = 25 },
}) do
  local hit = world.raycast(r.at + vec3(0, 10, 0), vec3(0, -1, 0), 20)
  local y = (hit and hit.position.y or 0) + r.size.y / 2 - 0.1
  world.box { position = vec3(r.at.x, y, r.at.z), size = r.size, rotation = vec3(0, r.turn, 0) }
end

-- The climbing spider: the bundled spider's proportions, a little smaller.
local legs = {}
local rows = { { 0.22, 0.58, 0.55 }, { 0.08, 0.2, 0.64 }, { -0.08, -0.2, 0.64 }, { -0.22, -0.58, 0.55 } }
for i, row in ipairs(rows) do
  for _, side in ipairs({ { "L", 1 }, { "R", -1 } }) do
    table.insert(legs, {
      name = side[1] .. i,
      hip = vec3(0.12 * side[2], 0, row[1]),
      rest = vec3(row[3] * side[2], -0.3, row[2]),
      segments = { 0.4, 0.5 },
    })
  end
end
creature.define {
  name = "climber",
  body = { size = vec3(0.4, 0.2, 0.62), height = 0.3, mass = 1.5 },
  legs = legs,
  gait = {
    step_trigger = 0.2, step_duration = 0.2, step_height = 0.1, lead = 0.6,
    groups = { { "L1", "R2", "L3", "R4" }, { "R1", "L2", "R3", "L4" } },
    min_grounded = 4,
  },
  nav = { speed = 1.3, acceleration = 3, turn_rate = 220 },
  -- Up to ceilings; its up turns at most 200°/s, easing in over 0.12 s.
  climb = { max_angle = 180, turn_rate = 200, smoothing = 0.12 },
}

-- A tour of points on walls, tops and the floor, each put on the level by a ray: the first
-- hit from above (a top, the floor), or from the side (a wall). Each climber starts at its
-- own stop.
local function from_above(x, z)
  local hit = world.raycast(vec3(x, 20, z), vec3(0, -1, 0), 40)
  return hit and hit.position or vec3(x, 0, z)
end
local function on_wall(from, dir)
  local hit = world.raycast(from, dir, 5)
  return hit and hit.position or from
end
local tour = {
  on_wall(vec3(-9, 0.4, 6.0), vec3(1, 0, 0)),    -- the stairs' west side wall
  from_above(-6, 6.5),                            -- the stairs' top step
  on_wall(vec3(-6, 0.9, 10), vec3(0, 0, -1)),     -- the landing's north face
  from_above(3, 6),                               -- the top of a rock
  from_above(6, -1),                              -- up the ramp
  from_above(-3, -5),                             -- the top of another rock
  from_above(1, -9),                              -- and another
  from_above(-16, -16),                           -- the top of the south-west tall rock
  from_above(16, -16),                            -- the top of the south-east tall rock
}
behaviour.define {
  name = "tour",
  params = { start = 1, pause = 1.5, give_up = 35 },
  on_spawn = function(self)
    self.state.stop = self.params.start
    self.state.wait = 0.5
  end,
  on_update = function(self, dt)
    local s = self.state
    if s.going then
      -- Taking too long (knocked off and fallen somewhere odd?): on to the next stop.
      s.took += dt
      if s.took < self.params.give_up then return end
      s.going, s.stop = false, s.stop % #tour + 1
    end
    s.wait -= dt
    if s.wait > 0 then return end
    self:set_destination(tour[s.stop])
    s.going, s.took = true, 0
  end,
  on_arrive = function(self)
    self.state.going = false
    self.state.wait = self.params.pause
    self.state.stop = self.state.stop % #tour + 1
  end,
  -- Knocked off a wall: pick the tour up where it was once it stands again.
  on_hit = function(self) self.state.going = false; self.state.wait = 1 end,
  on_surface = function(self, normal, kind)
    if kind == "ceiling" then log.info("a climber is upside down") end
  end,
}

for i, at in ipairs({ vec3(-3, 0, 3), vec3(9, 0, -5), vec3(-10, 0, 4) }) do
  world.spawn("climber", { position = at, behaviour = "tour", params = { start = (i - 1) * 2 + 1 } })
end
