-- wander: walk to random spots near home, pause, turn, repeat.
-- A behaviour is a table of callbacks; `self` is the creature handle.
-- self.params holds the params (defaults below, overridden by world.spawn),
-- self.state is yours and survives hot reloads.

return behaviour.define {
  name = "wander",
  params = { radius = 8, speed = 1.2, pause = 1.0, max_climb = 0.35 },

  on_spawn = function(self)
    self.state.home = self:position()
    self.state.goal = nil
    self.state.wait = math.random() * self.params.pause
  end,

  on_update = function(self, dt)
    local s = self.state
    if s.wait > 0 then
      s.wait -= dt
      return
    end
    local here = self:position()
    if s.goal == nil then
      -- Pick a new goal inside the home circle.
      local a = math.random() * 2 * math.pi
      local r = math.sqrt(math.random()) * self.params.radius
      s.goal = s.home + vec3(math.cos(a) * r, 0, math.sin(a) * r)
    end
    local to = s.goal - here
    to = vec3(to.x, 0, to.z)
    local dist = vector.magnitude(to)
    -- Look 1 m ahead: a wall or a ledge taller than a stair step means pick another goal.
    if dist > 0.5 then
      local ahead = here + vector.normalize(to) * 1.0
      local down = world.raycast(ahead + vec3(0, 1.5, 0), vec3(0, -1, 0), 4)
      local under = world.raycast(here, vec3(0, -1, 0), 2)
      if down and under and down.position.y - under.position.y > self.params.max_climb then
        s.goal = nil
        self:face(vec3(-to.x, 0, -to.z))
        s.wait = 0.5
        return
      end
    end
    if dist < 0.4 then
      self:move(to, 0)             -- stop
      s.goal = nil
      s.wait = self.params.pause * (0.5 + math.random())
      return
    end
    -- Slow down for the last metre.
    self:move(to, math.min(self.params.speed, 0.3 + dist))
  end,

  -- Knocked (c:hit, or K in the window): stand still a moment, then pick a new goal.
  on_hit = function(self, dir, strength)
    self:move(dir, 0)
    self.state.goal = nil
    self.state.wait = 0.3 + 0.4 * strength
  end,
}
