-- wrk closed-model GET over keys that exist (the figures wrk-cluster-put.lua printed), against one node or a cluster
-- (BENCH_PORTS, BENCH_REPLICAS as in wrk-cluster-put.lua). Keys are picked uniformly at random among n >= 1 (wrk
-- generates and drops one request before the first it sends, so key n = 0 of a thread may not exist).
-- Usage: wrk ... -s wrk-cluster-get.lua URL -- <writer threads> <keys per thread>
-- With BENCH_PER_SECOND=1, counts the requests it issues per wall-clock second as wrk-cluster-put.lua does.
local n = 0
local threads = {}

seconds = {}
local per_second = os.getenv("BENCH_PER_SECOND") == "1"

local function count()
  if not per_second then return end
  local s = os.time()
  seconds[s] = (seconds[s] or 0) + 1
end

local function print_seconds()
  if not per_second then return end
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

function setup(thread)
  local list = {}
  for p in string.gmatch(os.getenv("BENCH_PORTS") or "", "%d+") do table.insert(list, p) end
  if #list > 0 then
    thread.addr = wrk.lookup(wrk.host, list[(n % #list) + 1])[1]
  end
  thread:set("id", n)
  n = n + 1
  table.insert(threads, thread)
end

function init(args)
  writers = tonumber(args[1])
  keys = tonumber(args[2])
  local r = os.getenv("BENCH_REPLICAS") or ""
  suffix = r ~= "" and ("&replicas=" .. r) or ""
  math.randomseed(os.time() + (id or 0))
end

function request()
  local path = string.format("/v0/entity?id=t%d-%010d%s", math.random(0, writers - 1), math.random(1, keys - 1),
    suffix)
  count()
  return wrk.format("GET", path)
end

function done(summary, latency, requests)
  print_seconds()
end
