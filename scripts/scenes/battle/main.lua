-- battle: two armies of soft soldiers (the brawl mod's), each with a pack of spiders, charge
-- each other across the south of the arena and brawl: shoves stagger, hard ones and the
-- spiders' rams knock soldiers over, and they get up and go again.
--
-- Not part of the default demo (it lives one folder down). Run it with the mods it needs:
--   cargo run --release -- run scripts/arena scripts/spider scripts/brawl scripts/scenes/battle
--
-- Every soldier asks `world.nearest_creature` for its nearest foe (answered in Rust from a
-- grid), and soldiers in physics are stepped in interaction groups, each its own physics
-- world, on every core — the same run at any thread count.

local PER_ARMY = 100   -- soldiers a side (raise it for a bigger battle; above ~120 a side
                       -- more than the default 256 go down at once: run with --max-ragdolls)
local SPIDERS = 6      -- spiders a side, behind the ranks
local FILES = 20       -- soldiers abreast in a rank
local GAP = 0.8        -- metres between neighbours
local FRONT = 3        -- each front rank starts this far from the middle line (x = 0)
local COLOURS = {      -- each army's colour: its soldiers and spiders recoloured in it
  vec3(1.5, 0.3, 0.25),  -- red
  vec3(0.3, 0.55, 1.6),  -- blue
}

require("./charger")

for team = 1, 2 do
  local side = team == 1 and -1 or 1
  local yaw = team == 1 and 90 or -90          -- facing the other army (yaw 90 faces +X)
  for i = 0, PER_ARMY - 1 do
    local rank, file = i // FILES, i % FILES
    local at = vec3(side * (FRONT + rank * GAP), 0, -10 + (file - (FILES - 1) / 2) * GAP)
    world.spawn("brawl/soldier", {
      position = at,
      yaw = yaw,
      behaviour = "brawl/brawler",
      team = team,
      tint = COLOURS[team],
      params = { team = team, sight = 40, foes = "any" },
    })
  end
  local behind = FRONT + (PER_ARMY // FILES + 1) * GAP
  for i = 0, SPIDERS - 1 do
    local at = vec3(side * behind, 0, -10 + (i - (SPIDERS - 1) / 2) * 2.5)
    world.spawn("spider/spider", {
      position = at,
      yaw = yaw,
      behaviour = "battle/charger",
      team = team,
      tint = COLOURS[team],
      params = { team = team },
    })
  end
end

camera.look(vec3(0, 14, -28), vec3(0, 0, -10))
log.info(#world.creatures() .. " creatures: two armies of " .. PER_ARMY .. " soldiers and " .. SPIDERS .. " spiders")
