-- (e) A scalar function called by GET: one book's average rating.
-- Each wrk thread loads this script into its own Lua state: seed from
-- /dev/urandom so the threads do not draw the same sequence.
local urandom = io.open("/dev/urandom", "rb")
local b1, b2, b3, b4 = urandom:read(4):byte(1, 4)
urandom:close()
math.randomseed(((b1 * 256 + b2) * 256 + b3) * 256 + b4)

request = function()
  return wrk.format("GET", "/rpc/book_rating?book_id=" .. math.random(1, 1000000))
end

dofile("deploy/bench/pace.lua")
