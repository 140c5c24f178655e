-- pREST's form of page.lua: one author's 100 books, newest first (_order,
-- and the first page of 100 for SVC's limit).
local urandom = io.open("/dev/urandom", "rb")
local b1, b2, b3, b4 = urandom:read(4):byte(1, 4)
urandom:close()
math.randomseed(((b1 * 256 + b2) * 256 + b3) * 256 + b4)

request = function()
  return wrk.format("GET", "/postgres/bench/books?author_id=$eq." .. math.random(1, 10000) .. "&_order=-year,-id&_page=1&_page_size=100")
end

dofile("deploy/bench/pace.lua")
