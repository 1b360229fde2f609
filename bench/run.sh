#!/usr/bin/env bash
# Performance harness: runs the go benchmarks beside their floors, then the
# whole-process measurements against the peers a user would reach for (curl,
# jq) on the same data from the embedded gateway, and prints a table of
# ratios. Needs go, curl, jq, tmux and GNU time. Output: bench/out/.
#   bench/run.sh            # full run (a few minutes on 2 cores)
#   BENCHTIME=1x bench/run.sh   # quicker, noisier
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out
mkdir -p "$out"
bt="${BENCHTIME:-3x}"
bin="$out/gwdash"
go build -o "$bin" .

echo "== go benchmarks (benchtime $bt)"
go test -run '^$' -bench 'Stream|Batch' -benchtime "$bt" -benchmem ./api/ | tee "$out/go-api.txt"
go test -run '^$' -bench 'Frame|Keypress' -benchtime 1000x -benchmem ./ui/ | tee "$out/go-ui.txt"

val() { # val FILE BENCH COLUMN-UNIT -> the number before the unit
  awk -v b="$2" -v u="$3" '$1 ~ "^"b"(-[0-9]+)?$" { for (i=2;i<=NF;i++) if ($i==u) print $(i-1) }' "$1" | head -1
}

echo "== whole-process measurements"
port=$(( 20000 + RANDOM % 20000 ))
"$bin" demo --serve --listen "127.0.0.1:$port" --token-rate 0 --think-time 0 --large-batch-size 100000 > "$out/serve.txt" 2>&1 &
srv=$!
trap 'kill $srv 2>/dev/null || true; tmux -L gwbench kill-server 2>/dev/null || true' EXIT
base="http://127.0.0.1:$port/api/v1"
key=gw-demo-api-key-0000000000000000
for _ in $(seq 1 200); do grep -q "press ctrl+c" "$out/serve.txt" 2>/dev/null && break; sleep 0.05; done
large=$(grep -o 'batch-[0-9]*-large' "$out/serve.txt" | head -1)
chat=$(grep -o 'batch-[0-9]*-chat' "$out/serve.txt" | head -1)
export GWDASH_BASE_URL="$base" GWDASH_API_KEY="$key"

# Warm the gateway's cache of the large batch, and measure its size.
size=$(curl -s -H "Authorization: Bearer $key" "$base/batches/$large" | wc -c)

tm() { /usr/bin/time -f '%e %M' "$@" 2>&1 >/dev/null | tail -1; }  # seconds, max RSS KiB
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

echo "-- batch: $large ($size bytes)"
jq_s=$(for _ in 1 2 3; do /usr/bin/time -f '%e' bash -c "curl -s -H 'Authorization: Bearer $key' '$base/batches/$large' | jq -c . > /dev/null" 2>&1 | tail -1; done | median)
gw=$(for _ in 1 2 3; do tm "$bin" batch get "$large" --json; done)
gw_s=$(echo "$gw" | awk '{print $1}' | median)
gw_kb=$(echo "$gw" | awk '{print $2}' | sort -n | tail -1)
echo "curl|jq -c: ${jq_s}s   gwdash batch get --json: ${gw_s}s, peak ${gw_kb} KiB"

tokens=206000
body="{\"model\":\"demo/firehose\",\"input\":\"bench\",\"stream\":true,\"max_output_tokens\":$tokens}"
echo "-- stream: demo/firehose, $tokens tokens"
curl_s=$(for _ in 1 2 3; do /usr/bin/time -f '%e' curl -sN -o /dev/null -X POST -H "Authorization: Bearer $key" -H 'Content-Type: application/json' -d "$body" "$base/responses" 2>&1 | tail -1; done | median)
stream_bytes=$(curl -sN -X POST -H "Authorization: Bearer $key" -H 'Content-Type: application/json' -d "$body" "$base/responses" | wc -c)
rs=$(for _ in 1 2 3; do tm "$bin" respond bench --model demo/firehose --max-output-tokens $tokens; done)
rs_s=$(echo "$rs" | awk '{print $1}' | median)
rs_kb=$(echo "$rs" | awk '{print $2}' | sort -n | tail -1)
echo "curl -N: ${curl_s}s   gwdash respond > /dev/null: ${rs_s}s, peak ${rs_kb} KiB ($stream_bytes bytes)"

echo "-- start-up to the first frame (gwdash demo in tmux)"
T() { tmux -L gwbench "$@"; }
starts=""
for _ in 1 2 3 4 5; do
  T kill-server 2>/dev/null || true
  sleep 0.3
  t0=$(date +%s%N)
  T new-session -d -s s -x 120 -y 36 "exec $bin demo"
  until T capture-pane -p -t s 2>/dev/null | grep -q "1 Batches"; do sleep 0.005; done
  t1=$(date +%s%N)
  starts="$starts $(( (t1 - t0) / 1000000 ))"
done
T kill-server 2>/dev/null || true
sleep 0.3
start_ms=$(echo $starts | tr ' ' '\n' | median)
echo "start-up: ${start_ms} ms (median of:$starts)"

echo "-- idle: the dashboard on a finished batch, 10 s"
T new-session -d -s idle -x 120 -y 36 "exec $bin --batch $chat"
until T capture-pane -p -t idle | grep -q "polling stopped"; do sleep 0.05; done
sleep 1
pid=$(T display -p -t idle '#{pane_pid}')
ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
c0=$(ticks); sleep 10; c1=$(ticks)
hz=$(getconf CLK_TCK)
idle_pct=$(awk -v a="$c0" -v b="$c1" -v hz="$hz" 'BEGIN { printf "%.2f", (b-a)/hz/10*100 }')
T kill-server
echo "idle CPU: ${idle_pct}% of a core"

# ---- the table ----
f=$out/go-api.txt; u=$out/go-ui.txt
frame_mbs=$(val $f BenchmarkStreamFraming MB/s); dec_mbs=$(val $f BenchmarkStreamDecode MB/s); loop_mbs=$(val $f BenchmarkStreamDecodeLoopback MB/s)
bfloor=$(val $f BenchmarkBatchFloor MB/s); bdec=$(val $f BenchmarkBatchDecode MB/s)
bdec_alloc=$(val $f BenchmarkBatchDecode B/op); bsize=$(val $f BenchmarkBatchDecode body-MB)
p1k=$(val $u BenchmarkPlaygroundFrame1KB ns/op); p1m=$(val $u BenchmarkPlaygroundFrame1MB ns/op)
t100=$(val $u BenchmarkResultsTableFrame100 ns/op); t100k=$(val $u BenchmarkResultsTableFrame100000 ns/op)
p99=$(val $u BenchmarkKeypressWhileStreaming p99-ms)
inproc_s=$(awk -v b="$stream_bytes" -v m="$dec_mbs" 'BEGIN { printf "%.2f", b/1e6/m }')
r() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a/b }'; }
{
echo "| measure | gwdash | reference | ratio | budget |"
echo "|---|---|---|---|---|"
echo "| stream decode, in memory | $dec_mbs MB/s | framing floor $frame_mbs MB/s | $(r $dec_mbs $frame_mbs)x | ≥ 0.5x |"
echo "| stream decode, loopback (server in-process) | $loop_mbs MB/s | framing floor $frame_mbs MB/s | $(r $loop_mbs $frame_mbs)x | — |"
echo "| \`gwdash respond\` > /dev/null, $stream_bytes B | ${rs_s}s | in-process decode ${inproc_s}s | $(r $rs_s $inproc_s)x | ≤ 1.5x |"
echo "| \`gwdash respond\` vs \`curl -N\` | ${rs_s}s | ${curl_s}s | $(r $rs_s $curl_s)x | — |"
echo "| \`gwdash respond\` peak memory | $((rs_kb/1024)) MiB | stream $((stream_bytes/1048576)) MiB | — | flat |"
echo "| batch decode (table rows) | $bdec MB/s | json.Unmarshal raw $bfloor MB/s | $(r $bdec $bfloor)x | — |"
echo "| batch decode allocations | $(awk -v a=$bdec_alloc 'BEGIN{printf "%.0f", a/1e6}') MB | body $bsize MB | $(awk -v a=$bdec_alloc -v s=$bsize 'BEGIN{printf "%.2f", a/1e6/s}')x | — |"
echo "| \`gwdash batch get --json\`, $size B | ${gw_s}s | \`curl \| jq -c .\` ${jq_s}s | $(r $gw_s $jq_s)x | ≤ 0.5x |"
echo "| \`gwdash batch get --json\` peak memory | $((gw_kb/1024)) MiB | body $((size/1048576)) MiB | $(awk -v k=$gw_kb -v s=$size 'BEGIN{printf "%.2f", k*1024/s}')x | ≤ 3x |"
echo "| playground frame, 1 MB vs 1 KB transcript | $p1m ns | $p1k ns | $(r $p1m $p1k)x | ≤ 1.5x |"
echo "| results table frame, 100k vs 100 rows | $t100k ns | $t100 ns | $(r $t100k $t100)x | ≤ 1.5x |"
echo "| start-up to first frame (\`gwdash demo\`) | ${start_ms} ms | — | — | — |"
echo "| idle CPU on a finished batch, 10 s | ${idle_pct}% | — | — | < 1% |"
echo "| key handled while streaming 2,000 tok/s, p99 | ${p99} ms | one frame 33.3 ms (30 fps) | $(r $p99 33.3)x | ≤ 1 frame |"
} | tee "$out/table.md"
