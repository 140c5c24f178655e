-- pREST's form of lookup.lua: one book by primary key, a random id per
-- request (pREST's path is /DATABASE/SCHEMA/TABLE; run.sh serves database
-- postgres).
local urandom = io.open("/dev/urandom", "rb")
local b1, b2, b3, b4 = urandom:read(4):byte(1, 4)
urandom:close()
math.randomseed(((b1 * 256 + b2) * 256 + b3) * 256 + b4)

request = function()
  return wrk.format("GET", "/postgres/bench/books?id=$eq." .. math.random(1, 1000000))
end

dofile("deploy/bench/pace.lua")
