-- demo: puts six spiders, a centipede and a hound in the arena. A scene mod like this one
-- only spawns; the level comes from "arena", the creatures from "spider" and "menagerie"
-- (see mod.toml). The "paths" mod adds a flyer and a patrolling spider of its own.

for i = 1, 6 do
  local a = (i - 1) / 6 * 2 * math.pi
  local at = vec3(math.sin(a) * 4, 0, math.cos(a) * 4)
  world.spawn("spider/spider", {
    position = at,
    yaw = math.deg(a),                -- face away from the centre (yaw 0 faces +Z)
    params = { radius = 6 + i % 3 },  -- overrides the wander brain's default radius
  })
end
-- The wider range: a 20-legged centipede (wave gait, the spider's wander brain) and a hound
-- that walks, trots and gallops by speed (its own romp brain: it bolts from whoever comes
-- near).
world.spawn("menagerie/centipede", { position = vec3(-8, 0, -2), yaw = 90, params = { radius = 6 } })
world.spawn("menagerie/hound", { position = vec3(8, 0, 2), yaw = -90, params = { radius = 9 } })
log.info(#world.creatures() .. " creatures spawned")
