-- The per-second counts of wrk-cluster-put.lua and wrk-cluster-get.lua (loaded by both with dofile): with
-- BENCH_PER_SECOND=1, count() notes each request issued in its wall-clock second (os.time; the closed model issues
-- one as one completes) and print(threads) writes them at the end, summed over the threads, as
-- "SECOND <epoch s> <requests>": make bench-cluster-tls warms up and measures in one wrk process (harness/measure.py,
-- wrk_window) and takes its windows from these lines. Off, both do nothing.
seconds = {} -- a global: wrk's done() reads each thread's copy with thread:get

local on = os.getenv("BENCH_PER_SECOND") == "1"
local M = {}

function M.count()
  if not on then return end
  local s = os.time()
  seconds[s] = (seconds[s] or 0) + 1
end

function M.print(threads)
  if not on then return end
  local total, keys = {}, {}
  for _, t in ipairs(threads) do
    for s, n in pairs(t:get("seconds") or {}) do
      if total[s] == nil then
        total[s] = 0
        table.insert(keys, s)
      end
      total[s] = total[s] + n
    end
  end
  table.sort(keys)
  for _, s in ipairs(keys) do io.write(string.format("SECOND %d %d\n", s, total[s])) end
end

return M
