#!/usr/bin/env bash
# Load benchmark: wrk against `upgraph serve` and against nginx (configured
# by `upgraph edge nginx`) serving the same tree, in the same run, on the same
# machine, with the same mixed list of cluster requests (every channel ×
# arch, known and unknown versions, with an id). Loopback only, bounded time.
#
#   site/bench/serve.sh            # real graph-data with synthesised releases
#   TREE=demo site/bench/serve.sh  # the embedded demo tree
#   DURATION=60s CONNECTIONS=64 THREADS=2 URLS=20000 MODES="shared pinned gzip"
set -euo pipefail
cd "$(dirname "$0")/../.."
TREE=${TREE:-real}
DURATION=${DURATION:-60s}
CONNECTIONS=${CONNECTIONS:-64}
THREADS=${THREADS:-2}
URLS=${URLS:-20000}
WORK=$(mktemp -d)
chmod 755 "$WORK"
cleanup() { [ -n "${UPGRAPH_PID:-}" ] && kill "$UPGRAPH_PID" 2>/dev/null; [ -n "${NGINX_PID:-}" ] && kill "$NGINX_PID" 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
bash .ci/deps
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
. site/bench/procstat.sh

go build -trimpath -o "$WORK/upgraph" ./cmd/upgraph
if [ "$TREE" = demo ]; then
  "$WORK/upgraph" --log-level warn generate --demo --out "$WORK/tree"
else
  "$WORK/upgraph" synth-releases --graph-data ../shared/graph-data --out "$WORK/releases" >/dev/null
  "$WORK/upgraph" --log-level warn generate --releases "metadata:$WORK/releases" --graph-data ../shared/graph-data --out "$WORK/tree"
fi

# The request mix (site/bench/mix.py: every channel × arch with every
# version, without one and with an unknown one, shuffled from a fixed seed).
python3 site/bench/mix.py "$WORK/tree/index.json" "$URLS" > "$WORK/paths.txt"
echo "tree: $(du -sh --apparent-size "$WORK/tree" | cut -f1), $(wc -l < "$WORK/paths.txt") request paths"

rss() { ps -o rss= -p "$1" | tr -d ' '; }
start_servers() { # cpu-list nginx-workers: both servers restricted to those CPUs
  taskset -c "$1" "$WORK/upgraph" --log-level warn serve --dir "$WORK/tree" --listen 127.0.0.1:18181 >/dev/null &
  UPGRAPH_PID=$!
  rm -rf "$WORK/nginx"
  mkdir -p "$WORK/nginx"
  "$WORK/upgraph" edge nginx --full --foreground --root "$WORK/tree" --listen 127.0.0.1:18182 \
    --state-dir "$WORK/nginx" --user "$(id -un)" | sed "s/^worker_processes auto;/worker_processes $2;/" > "$WORK/nginx.conf"
  taskset -c "$1" "$NGINX" -p "$WORK/nginx" -c "$WORK/nginx.conf" &
  NGINX_PID=$!
  for port in 18181 18182; do
    for _ in $(seq 100); do curl -fs "http://127.0.0.1:$port/api/upgrades_info/v1/graph?channel=x-1" >/dev/null && break; sleep 0.1; done
  done
  # Measure the steady state: upgraph checks every file's digest in the
  # background after loading (nginx checks none), which takes a few seconds.
  local t0=$SECONDS
  for _ in $(seq 1200); do
    [ "$(curl -fs http://127.0.0.1:18181/metrics | awk '$1 == "upgraph_verify_ahead_remaining_files" { print $2 }')" = 0 ] && break
    sleep 0.1
  done
  echo "upgraph verified the tree ahead in about $((SECONDS - t0)) s" >&2
}
stop_servers() {
  kill "$UPGRAPH_PID" "$NGINX_PID" 2>/dev/null || true
  wait "$UPGRAPH_PID" "$NGINX_PID" 2>/dev/null || true
  UPGRAPH_PID= NGINX_PID=
}
warm() { # port wrk-cpu-list wrk-threads duration
  taskset -c "$2" wrk -t "$3" -c "$CONNECTIONS" -d "$4" -s site/bench/urls.lua "http://127.0.0.1:$1" -- "$WORK/paths.txt" >/dev/null
}
bench() { # name port wrk-cpu-list wrk-threads server-pid: the RESULT line, the CPU steal during the run, and the server's cost per answer
  local before out
  before=$(procstat "$5")
  out=$(.ci/steal taskset -c "$3" wrk -t "$4" -c "$CONNECTIONS" -d "$DURATION" --timeout 10s -s site/bench/urls.lua "http://127.0.0.1:$2" -- "$WORK/paths.txt" 2>&1 |
    grep '^RESULT\|^cpu during' | sed "s/^RESULT/$1/; s/^cpu during the run:/  $1 run:/")
  echo "$out"
  echo "  $1 per answer: $(perAnswer "$before" "$(procstat "$5")" "$(echo "$out" | sed -n 's/.*requests=\([0-9]*\).*/\1/p')")"
}
p99ratio() { awk -v a="$1" -v b="$2" 'BEGIN { split(a, x, "p99_ms="); split(b, y, "p99_ms="); printf "%.2f", (x[2]+0)/(y[2]+0) }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { split(a, x, "rps="); split(b, y, "rps="); printf "%.2f", (x[2]+0)/(y[2]+0) }'; }

# shared: wrk (THREADS threads) and both servers on every CPU, as on a
# busy host: the kernel time-slices client and server threads, which is
# where most of the latency tail comes from on a small machine.
# pinned: CPU 0 for wrk (one thread), the last CPU for the server (Go
# sizes GOMAXPROCS from the affinity mask; nginx gets one worker), so
# neither waits for the other's time slice.
# gzip: pinned, with "Accept-Encoding: gzip" on every request, as clusters
# send it. Both answer from the gzip copies generate writes beside every
# graph (FILE.gz; nginx with gzip_static, as `upgraph edge nginx` configures
# it): neither compresses at run time, so the warm-up is the same as the
# other modes'.
last=$(( $(nproc) - 1 ))
for mode in ${MODES:-shared pinned gzip}; do
  warmup=5s
  export WRK_GZIP=0
  case $mode in
    shared) start_servers "0-$last" auto; cpus="0-$last"; threads=$THREADS ;;
    pinned) start_servers "$last" 1; cpus=0; threads=1 ;;
    gzip) start_servers "$last" 1; cpus=0; threads=1; warmup=${GZIP_WARMUP:-5s}; WRK_GZIP=1 ;;
    *) echo "unknown mode $mode" >&2; exit 2 ;;
  esac
  rss_start=$(rss "$UPGRAPH_PID")
  warm 18181 "$cpus" "$threads" "$warmup"
  rss_before=$(rss "$UPGRAPH_PID")
  up=$(bench upgraph 18181 "$cpus" "$threads" "$UPGRAPH_PID")
  rss_after=$(rss "$UPGRAPH_PID")
  warm 18182 "$cpus" "$threads" "$warmup"
  ng=$(bench nginx 18182 "$cpus" "$threads" "$NGINX_PID")
  stop_servers
  echo "== $mode: wrk -t $threads on CPUs $cpus"
  echo "$up"
  echo "$ng"
  echo "upgraph RSS: ${rss_start} KiB after verifying the tree, ${rss_before} KiB after the warm-up, ${rss_after} KiB after the run"
  echo "throughput ratio upgraph/nginx: $(ratio "$up" "$ng"), p99 upgraph/nginx: $(p99ratio "$up" "$ng")"
done
