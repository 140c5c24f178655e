-- pREST's form of insert.lua: one review, the same body. pREST always
-- answers with the inserted row (it has no return=minimal), so its answer
-- is larger than SVC's empty 201.
local urandom = io.open("/dev/urandom", "rb")
local b1, b2, b3, b4 = urandom:read(4):byte(1, 4)
urandom:close()
math.randomseed(((b1 * 256 + b2) * 256 + b3) * 256 + b4)

request = function()
  local body = '{"book_id":' .. math.random(1, 1000000) .. ',"rating":' .. math.random(1, 5) .. ',"body":"load test"}'
  return wrk.format("POST", "/postgres/bench/reviews", {["Content-Type"] = "application/json"}, body)
end

dofile("deploy/bench/pace.lua")
