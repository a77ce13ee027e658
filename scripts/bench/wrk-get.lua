-- wrk closed-model GET over keys that exist: usage -s wrk-get.lua -- <writer threads> <keys per thread>
-- (the figures wrk-put.lua printed). Keys are picked uniformly at random among n >= 1 (wrk generates and drops
-- one request before the first it sends, so key n = 0 of a thread may not exist).
function init(args)
  writers = tonumber(args[1])
  keys = tonumber(args[2])
  math.randomseed(os.time() + (id or 0))
end

local n = 0
function setup(thread)
  thread:set("id", n)
  n = n + 1
end

function request()
  local path = string.format("/v0/entity?id=t%d-%010d", math.random(0, writers - 1), math.random(1, keys - 1))
  return wrk.format("GET", path)
end
