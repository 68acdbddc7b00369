-- wrk at a fixed request rate (what wrk2 does, without its coordinated-omission correction):
-- init() takes the rate per thread in requests a second; delay() gives each request the next
-- free slot of an even schedule, so the rate holds whatever the latency, as long as a free
-- connection is there when a slot comes. Latency is measured from the actual send.
--   wrk -t1 -c32 -d10s --latency -s fixed-rate.lua URL -- 2500
local ffi = require("ffi")
ffi.cdef [[
  typedef struct { long tv_sec; long tv_nsec; } bench_timespec;
  int clock_gettime(int clock, bench_timespec *tp);
]]
local CLOCK_MONOTONIC = 1
local now_ts = ffi.new("bench_timespec")

local function now_ms()
  ffi.C.clock_gettime(CLOCK_MONOTONIC, now_ts)
  return tonumber(now_ts.tv_sec) * 1000 + tonumber(now_ts.tv_nsec) / 1e6
end

local interval = 1
local next_slot = nil

function init(args)
  local rate = tonumber(args[1])
  if rate == nil or rate <= 0 then error("fixed-rate.lua: pass the rate per thread after --, e.g. -- 2500") end
  interval = 1000 / rate
end

function delay()
  local now = now_ms()
  -- The schedule starts at the first request; a slot already missed is taken at once.
  if next_slot == nil then next_slot = now end
  local slot = next_slot
  next_slot = next_slot + interval
  local wait = slot - now
  if wait <= 0 then return 0 end
  return math.floor(wait + 0.5)
end
