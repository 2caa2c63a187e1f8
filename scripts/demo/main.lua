-- demo: puts six spiders in the arena. A scene mod like this one only spawns;
-- the level comes from "arena" and the creature from "spider" (see mod.toml).

for i = 1, 6 do
  local a = (i - 1) / 6 * 2 * math.pi
  local at = vec3(math.sin(a) * 4, 0, math.cos(a) * 4)
  world.spawn("spider/spider", {
    position = at,
    yaw = math.deg(a),                -- face away from the centre (yaw 0 faces +Z)
    params = { radius = 6 + i % 3 },  -- overrides the wander brain's default radius
  })
end
log.info(#world.creatures() .. " spiders spawned")
