-- brawl: two teams of soft soldiers meet in the arena's north-east corner and shove each
-- other over (seed 003, TABS). Space in the window raises/lowers every muscle; K knocks
-- the selected creature over.
require("./soldier")
require("./brawler")

local centre = vec3(12, 0, 12)
for team = 1, 2 do
  local side = team == 1 and -1 or 1
  for i = 1, 4 do
    local at = centre + vec3((i - 2.5) * 1.2, 0, side * 3.5)
    world.spawn("soldier", {
      position = at,
      yaw = team == 1 and 0 or 180,
      behaviour = "brawler",
      team = team,                -- what world.creatures_near filters foes by
      params = { team = team },
    })
  end
end
