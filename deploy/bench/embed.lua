-- Ten parents with their children embedded (100 each): one-to-many.
math.randomseed(os.time())
request = function()
  local first = math.random(0, 9990)
  return wrk.format("GET", "/categories?select=id,name,items(id,name,price)&id=gte." .. first .. "&id=lt." .. (first + 10) .. "&order=id")
end
