-- spider: an 8-legged creature type and the brain it walks with.
-- This mod only *defines*; the demo mod spawns. Other mods can spawn "spider/spider"
-- (add "spider" to their depends), or require("@spider/body") to define their own copy.
require("./body")
require("./brains/wander")
