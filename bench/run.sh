#!/usr/bin/env bash
# Performance harness: the Go benchmarks beside their floors, then
# whole-process measurements against what a user would reach for (curl,
# jq) on the same data from the embedded gateway, and a table of ratios.
# Every budget is a ratio (to the body, to curl, to a 1 KB case), never a
# wall-clock limit. Needs go, curl, jq, tmux and GNU time.
#   bench/run.sh                 # full run (several minutes on 2 cores)
#   BENCHTIME=1x bench/run.sh    # quicker, noisier
# Output: bench/out/ (table.md is the table of docs/performance.md).
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out
mkdir -p "$out"
bt="${BENCHTIME:-3x}"
bin="$out/gwdash"
go build -o "$bin" .

echo "== go benchmarks (benchtime $bt)"
go test -run '^$' -bench 'Stream|Batch' -benchtime "$bt" -benchmem ./api/ | tee "$out/go-api.txt"
go test -run '^$' -bench 'PlaygroundFrame|ResultsTable' -benchtime 200x -benchmem ./ui/ | tee "$out/go-ui.txt"
go test -run '^$' -bench 'Bulk50MiB' -benchtime 1x -benchmem ./ui/ | tee -a "$out/go-ui.txt"
go test -run '^$' -bench 'Keypress' -benchtime 1000x ./ui/ | tee -a "$out/go-ui.txt"
# the request log at 100k rows (issue #26): search, the Logs view's load, export, the cost to a request
go test -run '^$' -bench 'Search100k|LogsViewOpen100k|Export100k' -benchtime 5x -benchmem ./internal/reqlog/ | tee "$out/go-reqlog.txt"
go test -run '^$' -bench 'RecordAdded' -benchtime 3000x -benchmem ./internal/reqlog/ | tee -a "$out/go-reqlog.txt"

val() { # val FILE BENCH UNIT -> the number before the unit
  awk -v b="$2" -v u="$3" '$1 ~ "^"b"(-[0-9]+)?$" { for (i=2;i<=NF;i++) if ($i==u) print $(i-1) }' "$1" | head -1
}
tm() { /usr/bin/time -f '%e %M' "$@" 2>&1 >/dev/null | tail -1; }  # seconds, peak RSS KiB
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
r() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a/b }'; }

echo "== whole-process measurements"
port=$(( 20000 + RANDOM % 20000 ))
"$bin" demo --serve --listen "127.0.0.1:$port" --token-rate 0 --think-time 0 --large-batch-size 100000 --tiny-batch-size 1000000 > "$out/serve.txt" 2>&1 &
srv=$!
T() { tmux -L gwbench "$@"; }
trap 'kill $srv 2>/dev/null || true; T kill-server 2>/dev/null || true' EXIT
base="http://127.0.0.1:$port/api/v1"
key=gw-demo-api-key-0000000000000000
for _ in $(seq 1 300); do grep -q "press ctrl+c" "$out/serve.txt" 2>/dev/null && break; sleep 0.05; done
large=$(grep -o 'batch-[0-9]*-large' "$out/serve.txt" | head -1)
tiny=$(grep -o 'batch-[0-9]*-tiny' "$out/serve.txt" | head -1)
chat=$(grep -o 'batch-[0-9]*-chat' "$out/serve.txt" | head -1)
export GWDASH_BASE_URL="$base" GWDASH_API_KEY="$key"
export XDG_STATE_HOME="$PWD/$out/state"  # the runs' request log stays here, not in the user's
size=$(curl -s -H "Authorization: Bearer $key" "$base/batches/$large" | wc -c)  # also warms the gateway's copy
tiny_size=$(curl -s -H "Authorization: Bearer $key" "$base/batches/$tiny" | wc -c)

echo "-- batch get --json: $large ($size bytes)"
jq_s=$(for _ in 1 2 3; do /usr/bin/time -f '%e' bash -c "curl -s -H 'Authorization: Bearer $key' '$base/batches/$large' | jq -c . > /dev/null" 2>&1 | tail -1; done | median)
gw=$(for _ in 1 2 3; do tm "$bin" batch get "$large" --json; done)
gw_s=$(echo "$gw" | awk '{print $1}' | median)
gw_kb=$(echo "$gw" | awk '{print $2}' | sort -n | tail -1)
echo "curl|jq -c: ${jq_s}s   gwdash: ${gw_s}s, peak ${gw_kb} KiB"

echo "-- respond: a 1 GiB answer (demo/bulk, 16,384 deltas of 64 KiB)"
bulk='{"model":"demo/bulk","input":"bench","stream":true,"max_output_tokens":16384}'
curl_s=$(for _ in 1 2 3; do /usr/bin/time -f '%e' curl -sN -o /dev/null -X POST -H "Authorization: Bearer $key" -H 'Content-Type: application/json' -d "$bulk" "$base/responses" 2>&1 | tail -1; done | median)
rs=$(for _ in 1 2 3; do tm "$bin" respond bench --model demo/bulk --max-output-tokens 16384; done)
rs_s=$(echo "$rs" | awk '{print $1}' | median)
rs_kb=$(echo "$rs" | awk '{print $2}' | sort -n | tail -1)
echo "curl -N: ${curl_s}s   gwdash respond > /dev/null: ${rs_s}s, peak ${rs_kb} KiB"

echo "-- respond into a pipe: live, and quiet on a closed pipe"
# first byte at the reader, as a share of the whole answer's time
t0=$(date +%s%N)
first=$( ("$bin" respond bench --model demo/bulk --max-output-tokens 4096 | { head -c 1 > /dev/null; date +%s%N; cat > /dev/null; }) 2>/dev/null)
t1=$(date +%s%N)
first_pct=$(awk -v a="$t0" -v f="$first" -v b="$t1" 'BEGIN { printf "%.1f", (f-a)/(b-a)*100 }')
set +e
"$bin" respond bench --model demo/bulk --max-output-tokens 4096 2> "$out/sigpipe.txt" | head -c 100 > /dev/null
pipe_code=${PIPESTATUS[0]}
set -e
pipe_quiet=yes; [ -s "$out/sigpipe.txt" ] && pipe_quiet=no
echo "first byte at ${first_pct}% of the answer's time; closed pipe: exit $pipe_code, stderr empty: $pipe_quiet"

# dash_until ARGS... TEXT: start the dashboard in tmux under GNU time and
# report "ms-to-TEXT peak-KiB" (the time includes starting the process).
dash_until() {
  local want=${*: -1}; local args=("${@:1:$#-1}")
  T kill-server 2>/dev/null || true; sleep 0.2
  rm -f "$out/dash_time.txt"
  local t0 t1
  t0=$(date +%s%N)
  T new-session -d -s d -x 160 -y 48 "env GWDASH_BASE_URL=$base GWDASH_API_KEY=$key XDG_STATE_HOME=$out/state /usr/bin/time -f '%e %M' -o $out/dash_time.txt $bin ${args[*]}"
  until T capture-pane -p -t d | grep -qF -- "$want"; do sleep 0.02; done
  t1=$(date +%s%N)
  sleep "${LINGER:-0}"
  T send-keys -t d q
  for _ in $(seq 1 200); do [ -s "$out/dash_time.txt" ] && break; sleep 0.05; done
  echo "$(( (t1 - t0) / 1000000 )) $(awk '{print $2}' "$out/dash_time.txt")"
}

echo "-- the dashboard on the 100,000-result batch, and on 1,000,000 tiny results"
big=$(for _ in 1 2 3; do dash_until --batch "$large" "Results 1-"; done)
big_ms=$(echo "$big" | awk '{print $1}' | median); big_kb=$(echo "$big" | awk '{print $2}' | sort -n | tail -1)
tin=$(dash_until --batch "$tiny" "Results 1-")
tiny_ms=$(echo "$tin" | awk '{print $1}'); tiny_kb=$(echo "$tin" | awk '{print $2}')
echo "100k: first table ${big_ms} ms, peak ${big_kb} KiB; 1M tiny: ${tiny_ms} ms, peak ${tiny_kb} KiB"

echo "-- caps before reading: a server announcing Content-Length 1,000,000,000 (bench/liar)"
lport=$(( port + 1 ))
go build -o "$out/liar" ./bench/liar
"$out/liar" "127.0.0.1:$lport" > "$out/liar.txt" 2>&1 &
liar=$!
trap 'kill $srv $liar 2>/dev/null || true; T kill-server 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do grep -q listening "$out/liar.txt" 2>/dev/null && break; sleep 0.05; done
lbase="http://127.0.0.1:$lport/api/v1"
set +e
/usr/bin/time -f '%e %M' -o "$out/liar_time.txt" "$bin" batch get batch-liar --json --base-url "$lbase" > /dev/null 2> "$out/liar_err.txt"
liar_code=$?
set -e
read -r liar_s liar_kb < <(tail -1 "$out/liar_time.txt")
liar_said=$(grep -c "larger than the 512 MiB limit" "$out/liar_err.txt" || true)
# the dashboard: the refusal on screen, then 5 s more to see whether it asks again
ld=$(LINGER=5 dash_until --batch batch-liar --base-url "$lbase" "larger than")
liar_dash_kb=$(echo "$ld" | awk '{print $2}')
kill -INT $liar; wait $liar 2>/dev/null || true
liar_reqs=$(sed -n 's/^requests //p' "$out/liar.txt")
echo "batch get: exit $liar_code in ${liar_s}s, peak ${liar_kb} KiB, refusal named: $liar_said; dashboard peak ${liar_dash_kb} KiB; requests answered in all: $liar_reqs"

echo "-- the playground on a 50 MiB answer (800 deltas of 64 KiB)"
T kill-server 2>/dev/null || true; sleep 0.2
rm -f "$out/dash_time.txt"
T new-session -d -s p -x 160 -y 48 "env GWDASH_BASE_URL=$base GWDASH_API_KEY=$key XDG_STATE_HOME=$out/state /usr/bin/time -f '%e %M' -o $out/dash_time.txt $bin --view playground --model demo/bulk"
until T capture-pane -p -t p | grep -q "type a prompt"; do sleep 0.05; done
T send-keys -t p s; sleep 0.3; T send-keys -t p Tab; sleep 0.2; T send-keys -t p -l 800; sleep 0.2; T send-keys -t p Escape; sleep 0.2
T send-keys -t p i; sleep 0.2; T send-keys -t p -l go; sleep 0.2
t0=$(date +%s%N); T send-keys -t p Enter
until T capture-pane -p -t p | grep -q "✓ completed"; do sleep 0.05; done
t1=$(date +%s%N)
T send-keys -t p g; sleep 0.5  # to the top of the 50 MiB
T capture-pane -p -t p | grep -q "lines 1-" || echo "warning: the top of the answer did not show"
T send-keys -t p q
for _ in $(seq 1 200); do [ -s "$out/dash_time.txt" ] && break; sleep 0.05; done
play_ms=$(( (t1 - t0) / 1000000 )); play_kb=$(awk '{print $2}' "$out/dash_time.txt")
text_bytes=$((800 * 65536))
echo "50 MiB answer in ${play_ms} ms, peak ${play_kb} KiB"

echo "-- start-up to the first frame (gwdash demo in tmux)"
starts=""
for _ in 1 2 3 4 5; do
  T kill-server 2>/dev/null || true; sleep 0.3
  t0=$(date +%s%N)
  T new-session -d -s s -x 120 -y 36 "exec $bin demo"
  until T capture-pane -p -t s 2>/dev/null | grep -q "1 Batches"; do sleep 0.005; done
  t1=$(date +%s%N)
  starts="$starts $(( (t1 - t0) / 1000000 ))"
done
T kill-server 2>/dev/null || true; sleep 0.3
start_ms=$(echo $starts | tr ' ' '\n' | median)

echo "-- idle: the dashboard on a finished batch, 10 s"
T new-session -d -s idle -x 120 -y 36 "exec $bin --batch $chat"
until T capture-pane -p -t idle | grep -q "polling stopped"; do sleep 0.05; done
sleep 1
pid=$(T display -p -t idle '#{pane_pid}')
ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
c0=$(ticks); sleep 10; c1=$(ticks)
idle_pct=$(awk -v a="$c0" -v b="$c1" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", (b-a)/hz/10*100 }')
T kill-server

# ---- the table ----
f=$out/go-api.txt; u=$out/go-ui.txt
frame_mbs=$(val $f BenchmarkStreamFraming MB/s); dec_mbs=$(val $f BenchmarkStreamDecode MB/s)
bfloor=$(val $f BenchmarkBatchFloor MB/s); bdata=$(val $f BenchmarkBatchData MB/s)
p1k=$(val $u BenchmarkPlaygroundFrame1KB ns/op); p1m=$(val $u BenchmarkPlaygroundFrame1MB ns/op); p50m=$(val $u BenchmarkPlaygroundFrame50MB ns/op)
t100=$(val $u BenchmarkResultsTableFrame100 ns/op); t100k=$(val $u BenchmarkResultsTableFrame100000 ns/op)
bulk_ratio=$(val $u BenchmarkPlaygroundBulk50MiB heap/text); bulk_frame=$(val $u BenchmarkPlaygroundBulk50MiB ns/frame)
p99=$(val $u BenchmarkKeypressWhileStreaming p99-ms)
{
echo "| measure | gwdash | reference | ratio | budget |"
echo "|---|---|---|---|---|"
echo "| \`respond\`, 1 GiB answer > /dev/null | ${rs_s}s | \`curl -N\` ${curl_s}s | $(r $rs_s $curl_s)x | ≤ 3x |"
echo "| \`respond\` peak memory, 1 GiB answer | $((rs_kb/1024)) MiB | — | — | < 64 MiB |"
echo "| \`respond \| head -c 1\`: first byte at the reader | ${first_pct}% of the answer's time | — | — | live (per event) |"
echo "| \`respond \| head -c 100\` (closed pipe) | exit ${pipe_code}, quiet: ${pipe_quiet} | — | — | exit 141 or 0, no trace |"
echo "| stream decode, in memory | $dec_mbs MB/s | framing floor $frame_mbs MB/s | $(r $dec_mbs $frame_mbs)x | — |"
echo "| playground, 50 MiB answer: heap | $(r $bulk_ratio 1)x the text | — | — | < 4x |"
echo "| playground, 50 MiB answer: process peak | $((play_kb/1024)) MiB | text 50 MiB | $(awk -v k=$play_kb -v s=$text_bytes 'BEGIN{printf "%.2f", k*1024/s}')x | < 4x |"
echo "| playground, 50 MiB answer: whole stream | ${play_ms} ms | — | — | — |"
echo "| playground frame while streaming into 50 MiB | $(awk -v n=$bulk_frame 'BEGIN{printf "%.2f", n/1e6}') ms | one frame 33.3 ms | $(r $(awk -v n=$bulk_frame 'BEGIN{print n/1e6}') 33.3)x | ≤ 1 frame |"
echo "| playground frame, 50 MB vs 1 KB transcript | $p50m ns | $p1k ns | $(r $p50m $p1k)x | ≤ 1.5x |"
echo "| playground frame, 1 MB vs 1 KB transcript | $p1m ns | $p1k ns | $(r $p1m $p1k)x | ≤ 1.5x |"
echo "| key handled while 64 KiB deltas stream, p99 | ${p99} ms | one frame 33.3 ms (30 fps) | $(r $p99 33.3)x | ≤ 1 frame |"
echo "| dashboard, 100k results: first table | ${big_ms} ms | — | — | ≤ 1,500 ms |"
echo "| dashboard, 100k results: peak memory | $((big_kb/1024)) MiB | body $((size/1048576)) MiB | $(awk -v k=$big_kb -v s=$size 'BEGIN{printf "%.2f", k*1024/s}')x | ≤ 2x |"
echo "| dashboard, 1M tiny results: first table | ${tiny_ms} ms, $((tiny_kb/1024)) MiB | body $((tiny_size/1048576)) MiB | $(awk -v k=$tiny_kb -v s=$tiny_size 'BEGIN{printf "%.2f", k*1024/s}')x | opens |"
echo "| 1 GB \`Content-Length\` (512 MiB cap): \`batch get\` | exit ${liar_code} in ${liar_s}s, peak $((liar_kb/1024)) MiB, refusal names size and cap: $([ "$liar_said" -gt 0 ] && echo yes || echo no) | — | — | refused before reading |"
echo "| 1 GB \`Content-Length\`: dashboard on it for 5 s | peak $((liar_dash_kb/1024)) MiB; requests (CLI, then dashboard): ${liar_reqs} | — | — | not fetched again |"
echo "| batch read for the table (BatchData) | $bdata MB/s | json.Unmarshal raw $bfloor MB/s | $(r $bdata $bfloor)x | — |"
echo "| results frame, 100k vs 100 rows | $t100k ns | $t100 ns | $(r $t100k $t100)x | ≤ 1.5x |"
echo "| \`batch get --json\`, $size B | ${gw_s}s | \`curl \| jq -c .\` ${jq_s}s | $(r $gw_s $jq_s)x | ≤ 0.5x |"
echo "| \`batch get --json\` peak memory | $((gw_kb/1024)) MiB | body $((size/1048576)) MiB | $(awk -v k=$gw_kb -v s=$size 'BEGIN{printf "%.2f", k*1024/s}')x | ≤ 1.5x |"
echo "| start-up to first frame (\`gwdash demo\`) | ${start_ms} ms | — | — | — |"
echo "| idle CPU on a finished batch, 10 s | ${idle_pct}% | — | — | < 1% |"
} | tee "$out/table.md"
