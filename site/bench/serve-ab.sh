#!/usr/bin/env bash
# A/B companion of serve.sh: the same load (wrk, connections, request mix,
# CPU placement per mode) against two `upgraph serve` binaries and nginx
# (from `upgraph edge nginx`), interleaved: every round runs each mode
# with the three servers one after the other, in an order that rotates
# from round to round, so that a machine whose load changes (other
# processes, steal) weighs on all three alike. One server runs at a time.
#
#   A=/tmp/upgraph-main B=/tmp/upgraph-new TREE_DIR=/tmp/tree \
#     ROUNDS=3 DURATION=15s MODES="shared pinned gzip" site/bench/serve-ab.sh
#
# TREE_DIR is a generated tree (serve.sh's real-scale one: synth-releases,
# then generate); without it the tree is generated here with A. Each
# result line is serve.sh's, prefixed with the round, mode, server and
# load average, followed by the CPU steal and the server's cost per answer
# (site/bench/procstat.sh: CPU time, user + system, and context switches,
# its workers' included).
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${A:?A=path to the first upgraph binary}" "${B:?B=path to the second upgraph binary}"
DURATION=${DURATION:-15s}
CONNECTIONS=${CONNECTIONS:-64}
THREADS=${THREADS:-2}
URLS=${URLS:-20000}
ROUNDS=${ROUNDS:-3}
WORK=$(mktemp -d)
chmod 755 "$WORK"
PID=
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
trap "exit 1" INT TERM
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
. site/bench/procstat.sh

if [ -z "${TREE_DIR:-}" ]; then
  "$A" synth-releases --graph-data ../shared/graph-data --out "$WORK/releases" >/dev/null
  "$A" --log-level warn generate --releases "metadata:$WORK/releases" --graph-data ../shared/graph-data --out "$WORK/tree"
  TREE_DIR=$WORK/tree
fi
# The request mix (site/bench/mix.py: every channel × arch with every
# version, without one and with an unknown one, shuffled from a fixed seed).
python3 site/bench/mix.py "$TREE_DIR/index.json" "$URLS" > "$WORK/paths.txt"

start() { # server cpu-list nginx-workers
  case $1 in
    nginx)
      rm -rf "$WORK/nginx"
      mkdir -p "$WORK/nginx"
      "$A" edge nginx --full --foreground --root "$TREE_DIR" --listen 127.0.0.1:18182 \
        --state-dir "$WORK/nginx" --user "$(id -un)" | sed "s/^worker_processes auto;/worker_processes $3;/" > "$WORK/nginx.conf"
      taskset -c "$2" "$NGINX" -p "$WORK/nginx" -c "$WORK/nginx.conf" &
      PID=$!
      PORT=18182
      ;;
    *)
      local bin=$A
      [ "$1" = B ] && bin=$B
      taskset -c "$2" "$bin" --log-level warn serve --dir "$TREE_DIR" --listen 127.0.0.1:18181 ${SERVE_FLAGS:-} >/dev/null &
      PID=$!
      PORT=18181
      ;;
  esac
  for _ in $(seq 100); do curl -fs "http://127.0.0.1:$PORT/api/upgrades_info/v1/graph?channel=x-1" >/dev/null && break; sleep 0.1; done
  if [ "$PORT" = 18181 ]; then
    for _ in $(seq 1200); do
      [ "$(curl -fs http://127.0.0.1:18181/metrics | awk '$1 == "upgraph_verify_ahead_remaining_files" { print $2 }')" = 0 ] && break
      sleep 0.1
    done
  fi
}
stop() { kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; PID=; }
run() { # name cpu-list threads duration: the RESULT line and the CPU steal
  .ci/steal taskset -c "$2" wrk -t "$3" -c "$CONNECTIONS" -d "$4" --timeout 10s -s site/bench/urls.lua "http://127.0.0.1:$PORT" -- "$WORK/paths.txt" 2>&1 |
    grep '^RESULT\|^cpu during' | sed "s/^RESULT/$1/; s/^cpu during the run:/ /" | paste -sd' '
}

last=$(( $(nproc) - 1 ))
servers=(A B nginx)
for round in $(seq "$ROUNDS"); do
  for mode in ${MODES:-shared pinned gzip}; do
    export WRK_GZIP=0
    case $mode in
      shared) cpus="0-$last"; scpus="0-$last"; workers=auto; threads=$THREADS ;;
      pinned) cpus=0; scpus=$last; workers=1; threads=1 ;;
      gzip) cpus=0; scpus=$last; workers=1; threads=1; WRK_GZIP=1 ;;
      *) echo "unknown mode $mode" >&2; exit 2 ;;
    esac
    for i in 0 1 2; do
      s=${servers[$(( (i + round) % 3 ))]}
      start "$s" "$scpus" "$workers"
      taskset -c "$cpus" wrk -t "$threads" -c "$CONNECTIONS" -d 5s -s site/bench/urls.lua "http://127.0.0.1:$PORT" -- "$WORK/paths.txt" >/dev/null
      t0=$(procstat "$PID")
      line=$(run "$s" "$cpus" "$threads" "$DURATION")
      t1=$(procstat "$PID")
      cost=$(perAnswer "$t0" "$t1" "$(echo "$line" | sed -n 's/.*requests=\([0-9]*\).*/\1/p')")
      echo "round=$round mode=$mode load=$(cut -d' ' -f1 /proc/loadavg) $line $cost"
      stop
    done
  done
done
