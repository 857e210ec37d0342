# Sourced by serve.sh and serve-ab.sh: what a server process costs per
# answer, from /proc, which other processes' load changes least (the
# latencies and req/s depend on the CPU share the server was given).
#
#   before=$(procstat PID); ...run wrk...; after=$(procstat PID)
#   perAnswer "$before" "$after" REQUESTS
#
# procstat sums over the process, its children (nginx's workers) and all
# their threads: CPU time (user + system, clock ticks) and voluntary and
# involuntary context switches. A voluntary switch is a thread that
# blocked (epoll, futex, sleep): each costs a wake-up later, and on a
# shared CPU a wake-up can take the CPU from the client.
procstat() { # pid: "ticks voluntary involuntary"
  local p t ticks=0 vol=0 invol=0
  for p in "$1" $(pgrep -P "$1" || true); do
    ticks=$(( ticks + $(awk '{ print $14 + $15 }' "/proc/$p/stat" 2>/dev/null || echo 0) ))
    for t in /proc/"$p"/task/*/status; do
      read -r v n < <(awk '/^voluntary_ctxt_switches/ { v = $2 } /^nonvoluntary_ctxt_switches/ { n = $2 } END { print v + 0, n + 0 }' "$t" 2>/dev/null || echo 0 0)
      vol=$(( vol + v )) invol=$(( invol + n ))
    done
  done
  echo "$ticks $vol $invol"
}
perAnswer() { # "before" "after" requests: CPU µs and context switches per answer
  awk -v a="$1" -v b="$2" -v r="$3" -v hz="$(getconf CLK_TCK)" 'BEGIN {
    split(a, x, " "); split(b, y, " ")
    if (r > 0) printf "cpu_us_per_answer=%.1f vol_cs_per_answer=%.3f invol_cs_per_answer=%.3f", (y[1] - x[1]) / hz / r * 1e6, (y[2] - x[2]) / r, (y[3] - x[3]) / r
  }'
}
