-- (b) 100 rows filtered and ordered: one author's books (each author has
-- 100, scattered over the table), newest first.
-- Each wrk thread loads this script into its own Lua state: seed from
-- /dev/urandom so the threads do not draw the same sequence.
local urandom = io.open("/dev/urandom", "rb")
local b1, b2, b3, b4 = urandom:read(4):byte(1, 4)
urandom:close()
math.randomseed(((b1 * 256 + b2) * 256 + b3) * 256 + b4)

request = function()
  return wrk.format("GET", "/books?author_id=eq." .. math.random(1, 10000) .. "&order=year.desc,id.desc&limit=100")
end

dofile("deploy/bench/pace.lua")
