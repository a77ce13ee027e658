-- wrk closed-model PUT of unique keys against one node or a cluster: thread t writes <prefix><t>-<n>, n = 0, 1, 2, ...
-- (zero-padded to 10 digits, so that a GET window and oha's URL pattern address exactly the keys that exist), with
-- the replicas parameter and the threads spread over the nodes: thread i talks to port i mod #ports.
-- Environment: BENCH_PORTS (comma-separated, e.g. 18100,18101,18102; empty: the URL's), BENCH_REPLICAS (e.g. 2/3;
-- empty = none).
-- Usage: wrk ... -s wrk-cluster-put.lua http://127.0.0.1:<any port> -- [prefix] [cycle]
-- With cycle, thread t writes keys n = 0 .. cycle-1 over and over (a preload of a fixed key set: once every thread's
-- count reaches cycle, each of its keys exists). Prints "KEYS_PER_THREAD <min over threads>" (requests sent) at the end.
-- With BENCH_PER_SECOND=1, counts the requests it issues per wall-clock second (os.time; the closed model issues one
-- as one completes) and prints them at the end, "SECOND <epoch s> <requests>": bench-cluster-tls.sh warms up and
-- measures in one wrk process and takes its windows from these lines.
local threads = {}
local next_id = 0

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
  count()
  return wrk.format("PUT", path, nil, value)
end

function done(summary, latency, requests)
  local min = nil
  for _, t in ipairs(threads) do
    local c = t:get("counter")
    if min == nil or c < min then min = c end
  end
  io.write(string.format("KEYS_PER_THREAD %d\n", min or 0))
  print_seconds()
end
