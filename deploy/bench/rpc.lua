-- A scalar function call by GET: one row looked up by key inside it.
math.randomseed(os.time())
request = function()
  return wrk.format("GET", "/rpc/item_price?item_id=" .. math.random(1, 1000000))
end
