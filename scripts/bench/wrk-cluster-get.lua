-- wrk closed-model GET over keys that exist (the figures wrk-cluster-put.lua printed), against one node or a cluster
-- (BENCH_PORTS, BENCH_REPLICAS as in wrk-cluster-put.lua). Keys are picked uniformly at random among n >= 1 (wrk
-- generates and drops one request before the first it sends, so key n = 0 of a thread may not exist).
-- Usage: wrk ... -s wrk-cluster-get.lua URL -- <writer threads> <keys per thread>
-- With BENCH_PER_SECOND=1, prints the requests it issued per second at the end (wrk-seconds.lua).
local n = 0
local threads = {}

local per_second = dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "wrk-seconds.lua")

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
  per_second.count()
  return wrk.format("GET", path)
end

function done(summary, latency, requests)
  per_second.print(threads)
end
