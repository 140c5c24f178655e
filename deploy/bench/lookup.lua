-- One-row lookup by primary key, a random id per request.
math.randomseed(os.time())
request = function()
  return wrk.format("GET", "/items?id=eq." .. math.random(1, 1000000))
end
