-- wrk script: every request picks the next URL of a mixed list (channels,
-- arches, versions, unknown versions), written by serve.sh from index.json.
-- Requests are formatted once, in init: wrk.format on every request cost
-- wrk's single thread more CPU than reading the response, and a client
-- short of CPU adds its own queueing to the latencies it reports.
--
-- WRK_GZIP=1 sends "Accept-Encoding: gzip" as clusters do: the
-- cluster-version operator leaves the header to Go's Transport, which adds
-- it (ecosystem.md §4).
local requests = {}
local i = 0
local headers = {["Accept"] = "application/json"}
if os.getenv("WRK_GZIP") == "1" then
  headers["Accept-Encoding"] = "gzip"
end

function init(args)
  for line in io.lines(args[1]) do
    requests[#requests + 1] = wrk.format("GET", line, headers)
  end
  -- Each wrk thread starts at a different offset.
  i = math.random(#requests)
end

function request()
  i = i % #requests + 1
  return requests[i]
end

function done(summary, latency, requests)
  io.write(string.format("RESULT requests=%d errors_connect=%d errors_read=%d errors_status=%d errors_timeout=%d rps=%.0f p50_ms=%.3f p99_ms=%.3f max_ms=%.3f bytes=%d\n",
    summary.requests, summary.errors.connect, summary.errors.read, summary.errors.status, summary.errors.timeout,
    summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000, summary.bytes))
end
