-- A single-row insert with the default return=minimal.
math.randomseed(os.time())
request = function()
  local body = '{"item":' .. math.random(1, 1000000) .. ',"note":"load test"}'
  return wrk.format("POST", "/events", {["Content-Type"] = "application/json"}, body)
end
