-- paths: creatures that follow cubic Bezier paths at a constant speed.
-- path.bezier builds a path through points; leave out handle_in/handle_out and the
-- handles are made smooth (Catmull-Rom). s in p:point(s) is arc length in metres.

-- A legless flyer: no legs, hovering. On a path it flies the path's full 3D shape.
creature.define {
  name = "flyer",
  body = { size = vec3(0.7, 0.25, 1.1), hover = 3 },
  legs = {},
  nav = { speed = 4, turn_rate = 180 },
}

-- A closed loop around the arena, rising and falling: an altitude wobble of +-0.8 m.
local ring = {}
for i = 0, 7 do
  local a = i / 8 * 2 * math.pi
  ring[#ring + 1] = { position = vec3(math.sin(a) * 13, 3.2 + math.sin(a * 3) * 0.8, math.cos(a) * 13) }
end
local loop = path.bezier { points = ring, closed = true }

local flyer = world.spawn("flyer", { position = loop:point(0) })
flyer:follow_path(loop, { speed = 4, loop = true, rotation = "look_forward" })

-- A patrol loop for a spider, with explicit handles on one corner for a sharp turn.
local patrol = path.bezier {
  closed = true,
  points = {
    { position = vec3(4, 0, -9) },
    { position = vec3(9, 0, -6) },
    { position = vec3(9, 0, 2), handle_in = vec3(10, 0, -1), handle_out = vec3(8, 0, 4) },
    { position = vec3(3, 0, 3) },
  },
}

-- A behaviour that follows whatever path the params give it.
behaviour.define {
  name = "patrol",
  params = { speed = 1.0 },
  on_spawn = function(self)
    self:follow_path(patrol, { speed = self.params.speed, loop = true, rotation = "smooth" })
  end,
}

world.spawn("spider/spider", { position = patrol:point(0), behaviour = "patrol", params = { speed = 1.1 } })
log.info(string.format("patrol loop %.1f m, flight loop %.1f m", patrol:length(), loop:length()))
