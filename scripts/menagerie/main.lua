-- menagerie: the range a mod reaches with the same API as the spider.
-- This mod only defines; the demo spawns them (with the spider's "wander" brain).
require("./centipede")
require("./hound")
