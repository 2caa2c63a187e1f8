-- romp: the hound's brain. It strolls between spots near home at a walk, now and then trots
-- to one, and bolts (a gallop) away from any other creature that comes within `wary`
-- metres, looking back at it as it runs. Speeds are asked of set_destination; the gait's
-- styles (walk, trot, gallop) follow from the speed.

return behaviour.define {
  name = "romp",
  params = { radius = 9, stroll = 0.6, trot = 1.6, bolt = 3.2, wary = 2.5, pause = 1.0 },
  lod = true,

  on_spawn = function(self)
    self.state.home = self:position()
    self.state.wait = math.random() * self.params.pause
    self.state.fled = 0
  end,

  on_update = function(self, dt)
    local s, p = self.state, self.params
    s.fled = math.max(0, s.fled - dt)
    if s.fled == 0 then
      local near = world.creatures_near(self:position(), p.wary, { exclude = self, limit = 1 })
      if near[1] then
        -- Away from it, as far as the radius allows, at full speed.
        local away = self:position() - near[1]:position()
        away = vec3(away.x, 0, away.z)
        away = if vector.magnitude(away) > 0.01 then vector.normalize(away) else self:forward()
        local goal = world.nearest_nav_point(self:position() + away * p.radius * 0.8)
        if goal then
          self:set_destination(goal, { speed = p.bolt })
          self:look_at(near[1])
          s.walking, s.walked, s.fled = true, 0, 3
          return
        end
      end
    end
    if s.walking then
      s.walked += dt
      if s.walked < 20 then
        return
      end
      s.walking = false
    end
    s.wait -= dt
    if s.wait > 0 then
      return
    end
    local goal = world.random_nav_point(s.home, p.radius)
    if goal then
      local pace = if math.random() < 0.3 then p.trot else p.stroll
      self:set_destination(goal, { speed = pace })
      self:look_at(goal + vec3(0, 0.15, 0))
      s.walking, s.walked = true, 0
    else
      s.wait = 1
    end
  end,

  on_arrive = function(self)
    self:look_at(nil)
    self.state.walking = false
    self.state.wait = self.params.pause * (0.5 + math.random())
  end,

  on_hit = function(self, dir, strength)
    self:clear_destination()
    self:look_at(nil)
    self.state.walking = false
    self.state.wait = 0.3 + 0.4 * strength
  end,
}
