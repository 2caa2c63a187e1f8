-- wander: walk to random spots of the navmesh near home, pause, repeat.
-- A behaviour is a table of callbacks; `self` is the creature handle.
-- self.params holds the params (defaults below, overridden by world.spawn),
-- self.state is yours and survives hot reloads.

return behaviour.define {
  name = "wander",
  params = { radius = 8, pause = 1.0, give_up = 20 },
  -- Far from the camera (level of detail on), on_update runs on the spider's own turns
  -- (every few ticks, dt their time) instead of every tick: timers add up the same.
  lod = true,

  on_spawn = function(self)
    self.state.home = self:position()
    self.state.wait = math.random() * self.params.pause
  end,

  on_update = function(self, dt)
    local s = self.state
    if s.walking then
      -- The navmesh takes it round walls and up stairs; on_arrive ends the walk.
      s.walked = (s.walked or 0) + dt
      if s.walked < self.params.give_up then
        return
      end
      s.walking = false   -- taking too long (crowded?): pick somewhere else
    end
    s.wait -= dt
    if s.wait > 0 then
      return
    end
    local goal = world.random_nav_point(s.home, self.params.radius)
    if goal then
      self:set_destination(goal)
      self:look_at(goal + vec3(0, 0.15, 0))   -- the head on where it is going
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

  -- Knocked (c:hit, or K in the window): stand still a moment, then pick a new goal.
  on_hit = function(self, dir, strength)
    self:clear_destination()
    self:look_at(nil)
    self.state.walking = false
    self.state.wait = 0.3 + 0.4 * strength
  end,
}
