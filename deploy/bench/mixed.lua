-- The soak's mix: each request picks one of the workload scripts at random
-- (their own request functions, loaded from the files beside this one), or
-- the view and the set-returning function, which only the soak reads, or a
-- lookup whose shape is new nearly every time.
-- Run from the repository root, as run.sh does.
local urandom = io.open("/dev/urandom", "rb")
local b1, b2, b3, b4 = urandom:read(4):byte(1, 4)
urandom:close()
math.randomseed(((b1 * 256 + b2) * 256 + b3) * 256 + b4)

local requests = {}
for _, kind in ipairs({"lookup", "page", "embed", "insert", "rpc", "count", "csv"}) do
  local env = setmetatable({}, {__index = _G}) -- keeps each script's request apart
  local chunk = assert(loadfile("deploy/bench/" .. kind .. ".lua"))
  setfenv(chunk, env)()
  requests[#requests + 1] = env.request
end
requests[#requests + 1] = function()
  return wrk.format("GET", "/book_listing?id=eq." .. math.random(1, 1000000))
end
requests[#requests + 1] = function()
  return wrk.format("GET", "/rpc/books_of_year?y=" .. math.random(1900, 2024))
end
-- A new request shape nearly every time (the limit is part of the shape):
-- the server keeps 1,024 shapes' statements and evicts beyond that, which
-- this keeps doing for the whole soak, so the RSS shows whether the bound
-- holds.
requests[#requests + 1] = function()
  return wrk.format("GET", "/books?id=eq." .. math.random(1, 1000000) .. "&limit=" .. math.random(1, 100000))
end

request = function()
  return requests[math.random(#requests)]()
end

dofile("deploy/bench/pace.lua")
