#!/usr/bin/env bash
# make bench's consumers on and off: the shared harness's storm and ladder
# (../shared/bench/ack/: its workload, its pinned load generator, its
# warm-up of 100 096 first fixes at 20 000/s and its 3 s steps, a step held
# when every fix is acknowledged within 2 s) against fleetd alone ("off")
# and against fleetd with 10 webhook subscriptions (every alert type, to a
# receiver on loopback that answers 204) and 100 live streams open
# (`/api/v1/events?positions=compact&alerts=compact`, the console's way, or
# as STREAM_POSITIONS and STREAM_ALERTS say), "on"; ROUNDS times,
# and, when this runs as root with unshare(1) and systemd-journald, the
# journal: fleetd in a mount namespace of its own whose /run is a fresh
# tmpfs with a journald of its own (Debian's defaults: a volatile journal,
# rate limit and all), its standard error a journal stream as systemd
# connects a service's (`scripts/journal_stream.py`), so every alert is also
# a journal entry (`[alerts] journal`); ROUNDS times,
# alternating (MODES="off webhooks streams journal on" also runs each alone). Per run: the storm's first fixes
# acknowledged of those sent, its last acknowledgement, what of it was lost
# where (the load generator's socket, fleetd's door, fleetd's socket), the highest rate
# held, p99 at 50 000 fixes/s, fleetd's peak RSS, what the consumers got, and
# the CPU seconds fleetd and the consumers' own process used.
# With the journal, journald's own CPU seconds, the alert entries it kept and
# fleetd's storm summaries (how many, how many alerts they sum up) are
# printed too. HTTP_EXTRA adds lines to every run's [http] table (e.g.
# HTTP_EXTRA="stream_positions_per_s = 10000000" lifts the streams' budget),
# ALERTS_EXTRA to its [alerts] table (ALERTS_EXTRA="journal_per_s = 1000000"),
# ENGINE_EXTRA to its [engine] table (ENGINE_EXTRA="queue_max_fixes = 60000").
# usage: ack-sinks.sh BIN_DIR [ROUNDS] [RATES...]
set -euo pipefail
bin=$(cd "${1:?usage: ack-sinks.sh BIN_DIR [ROUNDS] [RATES...]}" && pwd)
rounds=${2:-2}
shift $(( $# >= 2 ? 2 : 1 ))
rates=("$@"); [ ${#rates[@]} -gt 0 ] || rates=(50000 70000 90000 100000 110000 120000)
cd "$(dirname "$0")/.."
ack=../shared/bench/ack
[ -f "$ack/fleetload.c" ] || { echo "bench: $ack/fleetload.c not found" >&2; exit 1; }
work=$(mktemp -d); trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
python3 "$ack/../gen_workload.py" "$work" >/dev/null 2>&1
gcc -O2 -o "$work/fleetload" "$ack/fleetload.c" -lpthread -lm
port() { python3 -c "import socket;s=socket.socket(socket.AF_INET,socket.SOCK_${1:-DGRAM});s.bind(('127.0.0.1',0));print(s.getsockname()[1])"; }
summary=$work/summary
for round in $(seq "$rounds"); do
  for mode in ${MODES:-off on}; do
    dir=$(mktemp -d "$work/run-XXXX")
    pf=$(port); ph=$(port STREAM); pw=$(port STREAM)
    {
      printf '[storage]\ndatabase = "%s"\nretain_days = 0\n[geofences]\nfile = "%s"\n' "$dir/f.db" "$work/fences10k.geojson"
      printf '[listen]\njson = "127.0.0.1:%s"\nteltonika = ""\nnmea = ""\n' "$pf"
      printf '[http]\nlisten = "127.0.0.1:%s"\nmax_streams_per_user = 100\nwebhooks_allow_private = true\n%s\n' "$ph" "${HTTP_EXTRA:-}"
      [ -z "${ALERTS_EXTRA:-}" ] || printf '[alerts]\n%s\n' "$ALERTS_EXTRA"
      [ -z "${ENGINE_EXTRA:-}" ] || printf '[engine]\n%s\n' "$ENGINE_EXTRA"
      if [ "$mode" = on ] || [ "$mode" = webhooks ]; then
        for w in $(seq 10); do
          secret=$(python3 -c "import base64,os;print('whsec_'+base64.b64encode(os.urandom(24)).decode())")
          printf '[[webhooks]]\nname = "hook%s"\nurl = "http://127.0.0.1:%s/hook%s"\nsecret = "%s"\nallow_private = true\n' "$w" "$pw" "$w" "$secret"
        done
      fi
    } > "$dir/fleetd.toml"
    journal=""
    if { [ "$mode" = on ] || [ "$mode" = journal ]; } && [ "$(id -u)" = 0 ] &&
      [ -x /lib/systemd/systemd-journald ] && command -v unshare >/dev/null; then
      journal=1
      # unshare and sh exec: $fpid ends up fleetd's own.
      unshare --mount --propagation private -- /bin/sh -c '
        mount -t tmpfs -o mode=0755 tmpfs /run && mkdir -p /run/systemd/journal || exit 1
        /lib/systemd/systemd-journald > "$0/journald.log" 2>&1 & echo $! > "$0/journald.pid"
        for _ in $(seq 100); do [ -S /run/systemd/journal/stdout ] && break; sleep 0.05; done
        exec python3 "$@"' "$dir" scripts/journal_stream.py fleetd "$bin/fleetd" --config "$dir/fleetd.toml" & fpid=$!
      for _ in $(seq 120); do curl -sf --max-time 2 "http://127.0.0.1:$ph/readyz" >/dev/null && break; sleep 1; done
    else
      [ "$mode" = journal ] && { echo "bench: the journal needs root, unshare and systemd-journald" >&2; exit 1; }
      "$bin/fleetd" --config "$dir/fleetd.toml" > "$dir/fleetd.log" 2>&1 & fpid=$!
      for _ in $(seq 120); do grep -qi ready "$dir/fleetd.log" && break; sleep 1; done
    fi
    cpid=""
    if [ "$mode" != off ] && [ "$mode" != journal ]; then
      token=$("$bin/fleetctl" tokens add bench --role viewer --db "$dir/f.db" 2>/dev/null | grep -o 'fltk_[A-Za-z0-9_-]*' | head -1)
      streams=100; [ "$mode" = webhooks ] && streams=0
      python3 scripts/ack_sinks_clients.py "$pw" "$ph" "$token" "$streams" > "$dir/clients.txt" & cpid=$!
      sleep 3
    fi
    base=$(( $(date +%s) * 1000 - 172800000 )); k=1; best=0; p50k=""; out=""
    line=$("$work/fleetload" "$pf" 20000 5 100000 "$work/points100k.csv" 30 "$base" 0)
    # Of those sent; ack_drops: acknowledgements fleetd sent that the load
    # generator's own socket dropped.
    storm=$(sed 's/^sent=\([0-9]*\).*acked=\([0-9]*\).*max_ms=\([0-9.]*\).*ack_drops=\([0-9-]*\).*/\2 of \1 acked, the last after \3 ms, ack_drops \4/' <<<"$line")
    # What fleetd refused during the storm for want of room in its queue
    # (`overload`) and what the kernel dropped at its socket unread.
    shed=$(curl -s "http://127.0.0.1:$ph/metrics" |
      awk '/^fleetd_fixes_rejected_total/ && /reason="overload"/ {s += $NF} END {print s + 0}')
    sockdrops=$(cat /proc/net/udp /proc/net/udp6 2>/dev/null |
      awk -v p=":$(printf '%04X' "$pf")" '$2 ~ (p "$") {d += $NF; n++} END {print n ? d : "?"}')
    storm="$storm, shed at the door $shed, dropped at fleetd's socket $sockdrops"
    for r in "${rates[@]}"; do
      line=$("$work/fleetload" "$pf" "$r" 3 100000 "$work/points100k.csv" 2 "$base" "$k")
      sent=$(sed 's/.*sent=\([0-9]*\).*/\1/' <<<"$line"); acked=$(sed 's/.*acked=\([0-9]*\).*/\1/' <<<"$line")
      drops=$(sed 's/.*ack_drops=\([0-9-]*\).*/\1/' <<<"$line"); [ "$drops" -gt 0 ] || drops=0
      [ $((acked + drops)) -ge "$sent" ] && best=$r
      [ "$r" = 50000 ] && p50k=$(sed 's/.*p99_ms=\([0-9.]*\).*/\1/' <<<"$line")
      k=$(( k + (sent + 99999) / 100000 )); sleep 2
    done
    hwm=$(awk '/^VmHWM/ {print int($2 / 1024)}' "/proc/$fpid/status")
    # CPU seconds (user + system) of fleetd and of the consumers' own
    # process: both share this machine's two cores with the load generator.
    cpu() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.1f", ($14 + $15) / hz }' "/proc/$1/stat"; }
    fcpu=$(cpu "$fpid")
    got=""
    if [ -n "$cpid" ]; then
      ccpu=$(cpu "$cpid")
      kill -TERM "$cpid"; wait "$cpid" || true
      got="$(cat "$dir/clients.txt") consumers_cpu_s=$ccpu"
      # Streams fleetd ended: too slow a reader, or its hub too far behind.
      [ "$mode" = webhooks ] || got="$got $(curl -s "http://127.0.0.1:$ph/metrics" | awk '
        /^fleetd_streams_ended_total/ && /reason="slow"/ {s += $NF}
        /^fleetd_streams_ended_total/ && /reason="behind"/ {b += $NF}
        END {printf "streams_ended_slow=%d streams_ended_behind=%d", s, b}')"
    fi
    got="fleetd_cpu_s=$fcpu${got:+ $got}"
    if [ -n "$journal" ]; then
      jpid=$(cat "$dir/journald.pid")
      kept=$(nsenter -t "$fpid" -m journalctl -D /run/log/journal -q --no-pager -o cat \
        SYSLOG_IDENTIFIER=fleetd FLEETD_ALERT_TYPE=geofence_enter 2>/dev/null | wc -l)
      summed=$(nsenter -t "$fpid" -m journalctl -D /run/log/journal -q --no-pager -o verbose \
        SYSLOG_IDENTIFIER=fleetd 2>/dev/null | awk -F= '/^ *FLEETD_ALERTS_LEFT_OUT=/ {n++; s += $2}
        END {printf "journal_summaries=%d journal_summed_up=%d", n, s}')
      got="$got journald_cpu_s=$(cpu "$jpid") journal_enter_alerts=$kept $summed"
      kill -TERM "$fpid"; wait "$fpid" || true
      kill -TERM "$jpid" 2>/dev/null || true
    else
      kill -TERM "$fpid"; wait "$fpid" || true
    fi
    echo "round $round, consumers $mode: storm $storm; highest held $best; p99 at 50000 ${p50k:-?} ms; peak RSS $hwm MB; $got"
    echo "$mode $best ${p50k:-0} $hwm" >> "$summary"
    rm -rf "$dir"
  done
done
awk '{ n[$1]++; h[$1, n[$1]] = $2; p[$1, n[$1]] = $3; r[$1, n[$1]] = $4 }
  function med(a, m, k,   i, j, t, b) { for (i = 1; i <= k; i++) b[i] = a[m, i]
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (b[j] < b[i]) { t = b[i]; b[i] = b[j]; b[j] = t }
    return k % 2 ? b[(k + 1) / 2] : (b[k / 2] + b[k / 2 + 1]) / 2 }
  END { for (m in n) printf "consumers %s over %d runs (medians): highest held %d fixes/s, p99 at 50000 %.1f ms, peak RSS %d MB\n",
    m, n[m], med(h, m, n[m]), med(p, m, n[m]), med(r, m, n[m]) }' "$summary" | sort
