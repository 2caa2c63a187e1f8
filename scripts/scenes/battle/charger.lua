-- The charger brain, for a battle's spiders: run at the nearest foe on its feet (any type,
-- the other team) and ram it when in reach — a blow over a soldier's hit threshold knocks
-- it over — then wait a moment and go again.
-- Its question, the nearest creature of another team on its feet, read once a team
-- (`world.near_filter`) and asked every tick with `world.nearest_creature`.
local foes = {}

return behaviour.define {
  name = "charger",
  params = { team = 1, sight = 40, reach = 1.0, speed = 1.6, ram = { 3.5, 5.5 }, rest = 1.6 },
  on_spawn = function(self)
    self.state.cool = math.random() * self.params.rest
  end,
  on_update = function(self, dt)
    if self:is_ragdoll() then return end
    self.state.cool = math.max(0, (self.state.cool or 0) - dt)
    local me = self:position()
    local team = self.params.team
    foes[team] = foes[team] or world.near_filter { not_team = team, animated = true }
    local foe = world.nearest_creature(me, self.params.sight, foes[team])
    if foe == nil then
      self:move(vec3(0, 0, 0), 0)
      return
    end
    local to = foe:position() - me
    local flat = vector.normalize(vec3(to.x, 0, to.z))
    if vector.magnitude(vec3(to.x, 0, to.z)) > self.params.reach then
      self:move(flat, self.params.speed)
    elseif self.state.cool <= 0 then
      local lo, hi = self.params.ram[1], self.params.ram[2]
      foe:hit(flat + vec3(0, 0.4, 0), lo + (hi - lo) * math.random())
      self.state.cool = self.params.rest
      self:face(flat)
    else
      self:face(flat)
    end
  end,
}
