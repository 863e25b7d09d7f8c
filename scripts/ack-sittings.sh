#!/usr/bin/env bash
# make bench's alert storm and acknowledged ladder: ../shared/bench/ack/run.sh,
# unchanged (its warm-up of 100 096 first fixes at 20 000/s, about 2 M
# geofence_enter alerts, then its 3 s steps, a step held when every fix is
# acknowledged within 2 s), run SITTINGS times. Each of its step lines for
# fleetd gets fleetd's resident memory after the step (rss_mb, and hwm_mb,
# the peak so far, from /proc). Then per sitting and over the sittings, the
# issue's targets, named with their figures:
#   - the warm-up acknowledged in full within 30 s;
#   - fleetd's highest held rate at least the acknowledging C server's
#     (ratio >= 1.0) in every sitting;
#   - p99 acknowledgement latency under 20 ms at the step nearest half of
#     fleetd's highest held rate;
#   - fleetd's peak RSS under 512 MB.
# usage: ack-sittings.sh BIN_DIR [SITTINGS]
set -euo pipefail
bin=$(cd "${1:?usage: ack-sittings.sh BIN_DIR [SITTINGS]}" && pwd)
sittings=${2:-3}
cd "$(dirname "$0")/.."
ackrun=../shared/bench/ack/run.sh
[ -f "$ackrun" ] || { echo "bench: $ackrun not found" >&2; exit 1; }
summary=$(mktemp); trap 'rm -f "$summary"' EXIT
for s in $(seq "$sittings"); do
  echo "-- sitting $s"
  out=$(mktemp)
  bash "$ackrun" "$bin" 2>&1 | while IFS= read -r line; do
    case $line in
      fleetd\ *)
        pid=$(pgrep -n -f -- "$bin/fleetd --config" || true)
        if [ -n "$pid" ] && [ -r "/proc/$pid/status" ]; then
          line="$line $(awk '/^VmRSS/ {r = int($2 / 1024)} /^VmHWM/ {h = int($2 / 1024)}
            END {printf "rss_mb=%d hwm_mb=%d", r, h}' "/proc/$pid/status")"
        fi ;;
    esac
    printf '%s\n' "$line"
  done | tee "$out"
  awk -v s="$s" '
    function v(k,   m) { return match($0, k "=[0-9.-]+") ? substr($0, RSTART + length(k) + 1, RLENGTH - length(k) - 1) : "" }
    /^fleetd warm-up:/ { wsent = v("sent"); wacked = v("acked"); wmax = v("max_ms") }
    /^fleetd [0-9]+:/ { n++; rate[n] = $2 + 0; p99[n] = v("p99_ms"); if (v("hwm_mb") + 0 > hwm) hwm = v("hwm_mb") + 0 }
    /^highest held rate:/ { c = $7 + 0; f = $10 + 0 }
    END {
      if (f == 0 || c == 0) { print "sitting " s ": no result"; exit }
      best = 0; for (i = 1; i <= n; i++) { d = rate[i] - f / 2; if (d < 0) d = -d; if (best == 0 || d < bd) { best = i; bd = d } }
      storm = (wacked == wsent && wmax + 0 < 30000) ? "yes" : "NO"
      printf "sitting %d: storm %s of %s first fixes acknowledged, the last after %.1f s (target: all within 30 s: %s); ", s, wacked, wsent, wmax / 1000, storm
      printf "highest held fleetd %d, C %d, ratio %.2f (target >= 1.0: %s); ", f, c, f / c, (f >= c ? "yes" : "NO")
      printf "p99 at %d (near half) %.1f ms (target < 20 ms: %s); ", rate[best], p99[best], (p99[best] + 0 < 20 ? "yes" : "NO")
      printf "fleetd peak RSS %d MB (target < 512 MB: %s)\n", hwm, (hwm < 512 ? "yes" : "NO")
      printf "%d %d %.3f %s %d\n", f, c, f / c, p99[best], hwm > "/dev/stderr"
    }' "$out" 2>>"$summary"
  rm -f "$out"
done
awk '{ f[NR] = $1; c[NR] = $2; r[NR] = $3; p[NR] = $4; h[NR] = $5; if ($3 < 1.0) miss++ }
  function med(a, n,   i, j, t, b) { for (i = 1; i <= n; i++) b[i] = a[i]
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (b[j] < b[i]) { t = b[i]; b[i] = b[j]; b[j] = t }
    return n % 2 ? b[(n + 1) / 2] : (b[n / 2] + b[n / 2 + 1]) / 2 }
  END { if (NR == 0) exit 1
    printf "over %d sittings (medians): fleetd %d, C %d fixes/s, ratio %.2f, ratio >= 1.0 in %d of %d; p99 near half %.1f ms; peak RSS %d MB\n",
      NR, med(f, NR), med(c, NR), med(r, NR), NR - miss, NR, med(p, NR), med(h, NR) }' "$summary"
