-- Paces a connection when run.sh's RATE asks for it (WRK_DELAY_MS): after
-- each answer the connection waits that long before its next request, so
-- the load offered stays near RATE whatever the server's speed, and every
-- variant's CPU per request is read at about the same throughput. Each
-- workload's script runs this file.
local ms = tonumber(os.getenv("WRK_DELAY_MS") or "")
if ms and ms > 0 then
  delay = function()
    return ms
  end
end
