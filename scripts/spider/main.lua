-- spider: defines the spider and its wander brain, then spawns a few.
require("./body")
require("./brains/wander")

-- Six spiders in a ring around the centre, facing outwards.
for i = 1, 6 do
  local a = (i - 1) / 6 * 2 * math.pi
  world.spawn("spider", {
    position = vec3(math.cos(a) * 4, 0, math.sin(a) * 4),
    yaw = math.deg(a),
    params = { radius = 6 + i % 3 },
  })
end
log.info("six spiders spawned")
