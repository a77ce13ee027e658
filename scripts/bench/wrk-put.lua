-- wrk closed-model PUT of unique keys: thread t writes <prefix><t>-<n>, n = 0, 1, 2, ... (n zero-padded to 10
-- digits), so that the GET run (and oha's URL pattern) can address exactly the keys that exist.
-- Usage: wrk ... -s wrk-put.lua URL -- [prefix]   (default prefix "t"; the warm-up uses another one)
-- Prints "KEYS_PER_THREAD <min over threads>" at the end; bench-node.sh reads it.
local threads = {}
local next_id = 0

function setup(thread)
  thread:set("id", next_id)
  next_id = next_id + 1
  table.insert(threads, thread)
end

function init(args)
  prefix = args[1] or "t"
  counter = 0
  -- 100-byte value; the same bytes for every key (the benchmark measures request handling, not compression)
  value = string.rep("0123456789", 10)
end

function request()
  local path = string.format("/v0/entity?id=%s%d-%010d", prefix, id, counter)
  counter = counter + 1
  return wrk.format("PUT", path, nil, value)
end

function done(summary, latency, requests)
  local min = nil
  for _, t in ipairs(threads) do
    local c = t:get("counter")
    if min == nil or c < min then min = c end
  end
  io.write(string.format("KEYS_PER_THREAD %d\n", min or 0))
end
