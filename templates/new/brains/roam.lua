-- roam: walk to random spots near home. `self` is the creature; `self.state` is yours and
-- survives hot reloads (plain data: numbers, strings, vectors, tables).
return behaviour.define {
  name = "roam",
  params = { radius = 6, speed = 1.0 },

  on_spawn = function(self)
    self.state.home = self:position()
  end,

  on_update = function(self, dt)
    local s = self.state
    if s.goal == nil then
      local a = math.random() * 2 * math.pi
      s.goal = s.home + vec3(math.cos(a), 0, math.sin(a)) * (math.random() * self.params.radius)
    end
    local to = s.goal - self:position()
    to = vec3(to.x, 0, to.z)
    if vector.magnitude(to) < 0.4 then
      s.goal = nil
      return
    end
    self:move(to, self.params.speed)
  end,

  on_hit = function(self, dir, strength)
    self.state.goal = nil
  end,

  on_reload = function(self)
    log.info("critter " .. self.id .. " picked up the new code")
  end,
}
