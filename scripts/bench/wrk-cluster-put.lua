-- wrk closed-model PUT of unique keys against one node or a cluster: thread t writes <prefix><t>-<n>, n = 0, 1, 2, ...
-- (zero-padded to 10 digits, so that a GET window and oha's URL pattern address exactly the keys that exist), with
-- the replicas parameter and the threads spread over the nodes: thread i talks to port i mod #ports.
-- Environment: BENCH_PORTS (comma-separated, e.g. 18100,18101,18102; empty: the URL's), BENCH_REPLICAS (e.g. 2/3;
-- empty = none).
-- Usage: wrk ... -s wrk-cluster-put.lua http://127.0.0.1:<any port> -- [prefix] [cycle]
-- With cycle, thread t writes keys n = 0 .. cycle-1 over and over (a preload of a fixed key set: once every thread's
-- count reaches cycle, each of its keys exists). Prints "KEYS_PER_THREAD <min over threads>" (requests sent) at the end.
-- With BENCH_PER_SECOND=1, prints the requests it issued per second at the end (wrk-seconds.lua).
local threads = {}
local next_id = 0

local per_second = dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "wrk-seconds.lua")

local function ports()
  local list = {}
  for p in string.gmatch(os.getenv("BENCH_PORTS") or "", "%d+") do table.insert(list, p) end
  return list
end

function setup(thread)
  local list = ports()
  if #list > 0 then
    thread.addr = wrk.lookup(wrk.host, list[(next_id % #list) + 1])[1]
  end
  thread:set("id", next_id)
  next_id = next_id + 1
  table.insert(threads, thread)
end

function init(args)
  prefix = args[1] or "t"
  cycle = tonumber(args[2])
  counter = 0
  local r = os.getenv("BENCH_REPLICAS") or ""
  suffix = r ~= "" and ("&replicas=" .. r) or ""
  value = string.rep("0123456789", 10)
end

function request()
  local n = cycle and counter % cycle or counter
  local path = string.format("/v0/entity?id=%s%d-%010d%s", prefix, id, n, suffix)
  counter = counter + 1
  per_second.count()
  return wrk.format("PUT", path, nil, value)
end

function done(summary, latency, requests)
  local min = nil
  for _, t in ipairs(threads) do
    local c = t:get("counter")
    if min == nil or c < min then min = c end
  end
  io.write(string.format("KEYS_PER_THREAD %d\n", min or 0))
  per_second.print(threads)
end
