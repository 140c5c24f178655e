-- (f) Prefer: count=exact on a filtered range: the first 25 of the 1,000
-- books of ten authors, and the exact total in Content-Range.
-- Each wrk thread loads this script into its own Lua state: seed from
-- /dev/urandom so the threads do not draw the same sequence.
local urandom = io.open("/dev/urandom", "rb")
local b1, b2, b3, b4 = urandom:read(4):byte(1, 4)
urandom:close()
math.randomseed(((b1 * 256 + b2) * 256 + b3) * 256 + b4)

request = function()
  local first = math.random(1, 9991)
  return wrk.format("GET", "/books?select=id,title&author_id=gte." .. first .. "&author_id=lt." .. (first + 10) .. "&order=id&limit=25",
    {["Prefer"] = "count=exact"})
end

dofile("deploy/bench/pace.lua")
