-- (c) Ten parents with their children embedded (one-to-many): ten authors,
-- each with its 100 books.
-- Each wrk thread loads this script into its own Lua state: seed from
-- /dev/urandom so the threads do not draw the same sequence.
local urandom = io.open("/dev/urandom", "rb")
local b1, b2, b3, b4 = urandom:read(4):byte(1, 4)
urandom:close()
math.randomseed(((b1 * 256 + b2) * 256 + b3) * 256 + b4)

request = function()
  local first = math.random(1, 9991)
  return wrk.format("GET", "/authors?select=id,name,books(id,title,year)&id=gte." .. first .. "&id=lt." .. (first + 10) .. "&order=id")
end

dofile("deploy/bench/pace.lua")
