#!/usr/bin/env bash
# Peak memory and time of `gwdash batch export` on the 100,000-result
# demo batch (a 138 MB body), CSV and JSON Lines, beside `curl -o` for
# the same body. Budget: peak RSS under 100 MB (the export is streamed:
# memory must not follow the body's size). Needs go, curl and GNU time.
#   bench/export.sh              # three runs of each, medians and largest peak
# Output: bench/out/export.txt
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out
mkdir -p "$out"
bin="$out/gwdash"
go build -o "$bin" .
port=$(( 20000 + RANDOM % 20000 ))
"$bin" demo --serve --listen "127.0.0.1:$port" --large-batch-size 100000 > "$out/export-serve.txt" 2>&1 &
srv=$!
trap 'kill $srv 2>/dev/null || true' EXIT
base="http://127.0.0.1:$port/api/v1"
key=gw-demo-api-key-0000000000000000
for _ in $(seq 1 300); do grep -q "press ctrl+c" "$out/export-serve.txt" 2>/dev/null && break; sleep 0.05; done
large=$(grep -o 'batch-[0-9]*-large' "$out/export-serve.txt" | head -1)
export GWDASH_BASE_URL="$base" GWDASH_API_KEY="$key"
size=$(curl -s -H "Authorization: Bearer $key" "$base/batches/$large" | wc -c)  # also warms the gateway's copy

tm() { /usr/bin/time -f '%e %M' "$@" 2>&1 >/dev/null | tail -1; }  # seconds, peak RSS KiB
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
{
  echo "body: $size bytes ($large)"
  c=$(for _ in 1 2 3; do tm curl -s -o /dev/null -H "Authorization: Bearer $key" "$base/batches/$large"; done)
  echo "curl -o /dev/null: $(echo "$c" | awk '{print $1}' | median)s"
  for f in csv jsonl; do
    r=$(for _ in 1 2 3; do tm "$bin" batch export "$large" --format "$f"; done)
    s=$(echo "$r" | awk '{print $1}' | median)
    kb=$(echo "$r" | awk '{print $2}' | sort -n | tail -1)
    echo "batch export --format $f > /dev/null: ${s}s, peak $((kb / 1024)) MiB (budget < 100 MB)"
  done
} | tee "$out/export.txt"
