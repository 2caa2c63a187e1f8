-- menagerie: the range a mod reaches with the same API as the spider.
-- This mod only defines; the demo spawns them. The centipede uses the spider's "wander"
-- brain, the hound its own "romp" (romp.lua): it walks, trots and gallops by speed.
require("./centipede")
require("./romp")
require("./hound")
