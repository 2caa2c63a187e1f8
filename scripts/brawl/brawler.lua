-- The brawler brain: walk at the nearest soldier of the other team, shove it when in reach,
-- wait a moment, go again. A shove below the soldier's hit threshold makes the target
-- stagger in physics with its muscles at half strength (it struggles to stay up, the
-- balance help holding it); a hard one knocks it over and it gets up by itself.
-- The question each brawler asks every tick — its nearest foe on its feet — read once for
-- each kind of brawler (`world.near_filter`) and asked with `world.nearest_creature`: no
-- table is made for the question or for the answer (a battle's thousand brains ask it
-- every tick).
local asked = {}
local function foes(p)
  local of_kind = asked[p.foes]
  if of_kind == nil then
    of_kind = {}
    asked[p.foes] = of_kind
  end
  local f = of_kind[p.team]
  if f == nil then
    f = world.near_filter {
      type = p.foes ~= "any" and p.foes or nil, not_team = p.team, animated = true,
    }
    of_kind[p.team] = f
  end
  return f
end

return behaviour.define {
  name = "brawler",
  -- foes: the type it picks fights with ("any": every type; a battle's spiders too).
  params = { team = 1, reach = 0.95, sight = 14, shove = { 1.5, 4.5 }, rest = 1.4, foes = "brawl/soldier" },
  on_spawn = function(self)
    self.state.cool = math.random() * self.params.rest
  end,
  on_update = function(self, dt)
    if self:is_ragdoll() then return end
    self.state.cool = math.max(0, (self.state.cool or 0) - dt)
    local me = self:position()
    -- The nearest soldier of another team still on its feet, from the world's grid: a
    -- battle's thousand brains each look at a few cells, not at every soldier.
    local foe = world.nearest_creature(me, self.params.sight, foes(self.params))
    -- The head on the foe (told once a foe, not every tick).
    if self.state.looking ~= (foe and foe.id) then
      self:look_at(foe)
      self.state.looking = foe and foe.id
    end
    if foe == nil then
      self:move(vec3(0, 0, 0), 0)
      return
    end
    local to = foe:position() - me
    local best = vector.magnitude(to)
    local flat = vector.normalize(vec3(to.x, 0, to.z))
    if best > self.params.reach then
      self:move(flat, self.params.team == 1 and 1.1 or 1.2)
    elseif self.state.cool <= 0 then
      local lo, hi = self.params.shove[1], self.params.shove[2]
      local strength = lo + (hi - lo) * math.random()
      foe:hit(flat + vec3(0, 0.25, 0), strength)
      if strength < 3 then
        foe:ragdoll({ muscle = 0.65, duration = 0.7 })   -- stagger: wobble, then walk again
      end
      self.state.cool = self.params.rest
      self:face(flat)
    else
      self:face(flat)
    end
  end,
  on_ragdoll = function(self, why) self.state.down = (self.state.down or 0) + 1 end,
}
