-- A 100-row page: filtered on an indexed column, ordered, limited.
math.randomseed(os.time())
request = function()
  return wrk.format("GET", "/items?category=eq." .. math.random(0, 9999) .. "&order=id.desc&limit=100")
end
