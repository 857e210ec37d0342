#!/usr/bin/env bash
# System calls per answer of `upgraph serve` and nginx (from `upgraph edge
# nginx`) under serve.sh's pinned load: wrk (one thread, 64 connections,
# the request mix of site/bench/mix.py) on CPU 0, the server alone on the
# last CPU, one server at a time. `strace -c -f` counts the server's calls
# (nginx's worker's) for STRACE seconds in the middle of a wrk run; strace
# slows the server, so the counts per answer are what to read, not the
# times. Unlike req/s and latencies, they do not depend on the machine's
# other load.
#
#   SERVERS="A=/tmp/upgraph-main B=/tmp/upgraph-new nginx" TREE_DIR=/tmp/tree \
#     site/bench/serve-syscalls.sh
#
# An answer is a request read: a read or recvfrom that returned data (the
# load sends each request once it has the answer to the last, one read
# each). Each line names a call, then its count per answer and, in
# parentheses, how many of those failed (EAGAIN for a read that found
# nothing).
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${SERVERS:?SERVERS=\"NAME=BINARY ... nginx\"}" "${TREE_DIR:?TREE_DIR=a generated tree}"
STRACE=${STRACE:-4}
URLS=${URLS:-20000}
WORK=$(mktemp -d)
chmod 755 "$WORK"
PID=
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
trap "exit 1" INT TERM
command -v strace >/dev/null || { echo "serve-syscalls.sh needs strace" >&2; exit 2; }
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
python3 site/bench/mix.py "$TREE_DIR/index.json" "$URLS" > "$WORK/paths.txt"
last=$(( $(nproc) - 1 ))
bin=
for s in $SERVERS; do
  [ "$s" = nginx ] || bin=${s#*=}
done
: "${bin:?SERVERS names no upgraph binary (its edge nginx writes the nginx configuration)}"

for s in $SERVERS; do
  if [ "$s" = nginx ]; then
    name=nginx PORT=18182
    rm -rf "$WORK/nginx"
    mkdir -p "$WORK/nginx"
    "$bin" edge nginx --full --foreground --root "$TREE_DIR" --listen 127.0.0.1:$PORT \
      --state-dir "$WORK/nginx" --user "$(id -un)" | sed "s/^worker_processes auto;/worker_processes 1;/" > "$WORK/nginx.conf"
    taskset -c "$last" "$NGINX" -p "$WORK/nginx" -c "$WORK/nginx.conf" &
  else
    name=${s%%=*} PORT=18181
    taskset -c "$last" "${s#*=}" --log-level warn serve --dir "$TREE_DIR" --listen 127.0.0.1:$PORT >/dev/null &
  fi
  PID=$!
  for _ in $(seq 100); do curl -fs "http://127.0.0.1:$PORT/api/upgrades_info/v1/graph?channel=x-1" >/dev/null && break; sleep 0.1; done
  if [ "$PORT" = 18181 ]; then
    for _ in $(seq 1200); do
      [ "$(curl -fs http://127.0.0.1:$PORT/metrics | awk '$1 == "upgraph_verify_ahead_remaining_files" { print $2 }')" = 0 ] && break
      sleep 0.1
    done
  fi
  load() { taskset -c 0 wrk -t1 -c64 -d "$1" -s site/bench/urls.lua "http://127.0.0.1:$PORT" -- "$WORK/paths.txt" >/dev/null; }
  # Warm up with the whole mix, so that every file has been opened once.
  load 10s
  load $(( STRACE + 4 ))s &
  sleep 2
  pids=()
  for p in "$PID" $(pgrep -P "$PID" || true); do pids+=(-p "$p"); done
  timeout -s INT "$STRACE" strace -c -f "${pids[@]}" -o "$WORK/strace.txt" >/dev/null 2>&1 || true
  wait %load 2>/dev/null || wait
  kill "$PID" 2>/dev/null || true
  wait "$PID" 2>/dev/null || true
  PID=
  awk -v name="$name" 'NR > 2 && $NF != "total" && $4 ~ /^[0-9]+$/ {
      calls[$NF] = $4; errs[$NF] = ($5 ~ /^[0-9]+$/) ? $5 : 0 }
    END {
      answers = calls["read"] - errs["read"] + calls["recvfrom"] - errs["recvfrom"]
      if (answers <= 0) { print name ": no requests read"; exit }
      for (k in calls) total += calls[k]
      printf "%s: %d answers, %.2f system calls per answer:", name, answers, total / answers
      for (k in calls) if (calls[k] / answers >= 0.005) printf " %s %.2f%s", k, calls[k] / answers, errs[k] ? sprintf(" (%.2f failed)", errs[k] / answers) : ""
      print ""
    }' "$WORK/strace.txt"
done
