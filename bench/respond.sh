#!/usr/bin/env bash
# respond speed against a fast local server: `gwdash respond` of a 1 GiB
# streamed answer to /dev/null beside `curl -N` to /dev/null, the same
# answer from the same server (bench/faststream, which writes as fast as
# the connection takes), run in pairs (gwdash, curl, gwdash, curl, ...) so
# that the ratio holds when the machine's speed drifts. Prints each pair's
# wall and CPU ratios, their medians, and gwdash's peak RSS.
# Budget (issue 22): wall ratio <= 2, peak RSS <= 64 MiB.
#   bench/respond.sh              # 5 pairs, 64 KiB deltas
#   PAIRS=9 DELTA=1024 bench/respond.sh
# Needs go, curl and GNU time. Output: bench/out/respond.txt
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out
mkdir -p "$out"
pairs="${PAIRS:-5}"
delta="${DELTA:-65536}"
size="${BYTES:-1073741824}"
go build -o "$out/gwdash" .
go build -o "$out/faststream" ./bench/faststream
port=$(( 20000 + RANDOM % 20000 ))
"$out/faststream" -listen "127.0.0.1:$port" -bytes "$size" -delta "$delta" > "$out/faststream.txt" 2>&1 &
srv=$!
trap 'kill $srv 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do grep -q listening "$out/faststream.txt" 2>/dev/null && break; sleep 0.05; done
base="http://127.0.0.1:$port/api/v1"
state=$(mktemp -d)
tm() { /usr/bin/time -f '%e %U %S %M' "$@" 2>&1 >/dev/null | tail -1; }  # wall user sys peak-KiB
gw=(env GWDASH_BASE_URL="$base" GWDASH_API_KEY=bench XDG_STATE_HOME="$state" XDG_CONFIG_HOME="$state" "$out/gwdash" respond bench --model fast/model)
cu=(curl -sN -o /dev/null -X POST -H 'Content-Type: application/json' -d '{}' "$base/responses")
"${gw[@]}" >/dev/null 2>&1; "${cu[@]}"  # warm-up
: > "$out/respond.txt"
for i in $(seq 1 "$pairs"); do
  a=$(tm "${gw[@]}")
  b=$(tm "${cu[@]}")
  echo "$i $a $b" | awk '{ printf "pair %d: gwdash %.2fs cpu %.2fs peak %d KiB | curl %.2fs cpu %.2fs | wall %.2f cpu %.2f\n", $1, $2, $3+$4, $5, $6, $7+$8, $2/$6, ($3+$4)/($7+$8) }' | tee -a "$out/respond.txt"
done
med() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
w=$(awk '/^pair/ { print $(NF-2) }' "$out/respond.txt" | med)
c=$(awk '/^pair/ { print $NF }' "$out/respond.txt" | med)
k=$(awk '/^pair/ { print $8 }' "$out/respond.txt" | sort -n | tail -1)
echo "median of $pairs pairs: wall ratio ${w}x (budget 2x), cpu ratio ${c}x; gwdash peak RSS $((k / 1024)) MiB (budget 64 MiB)" | tee -a "$out/respond.txt"
