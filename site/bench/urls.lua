-- wrk script: every request picks the next URL of a mixed list (channels,
-- arches, versions, unknown versions), written by serve.sh from index.json.
local paths = {}
local i = 0

function init(args)
  for line in io.lines(args[1]) do
    paths[#paths + 1] = line
  end
  -- Each wrk thread starts at a different offset.
  i = math.random(#paths)
end

function request()
  i = i % #paths + 1
  return wrk.format("GET", paths[i], {["Accept"] = "application/json"})
end

function done(summary, latency, requests)
  io.write(string.format("RESULT requests=%d errors_connect=%d errors_read=%d errors_status=%d errors_timeout=%d rps=%.0f p50_ms=%.3f p99_ms=%.3f max_ms=%.3f bytes=%d\n",
    summary.requests, summary.errors.connect, summary.errors.read, summary.errors.status, summary.errors.timeout,
    summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000, summary.bytes))
end
