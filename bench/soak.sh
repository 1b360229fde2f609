#!/usr/bin/env bash
# Soak: three dashboards left open on one demo gateway (an idle home with
# batches in flight, one cycling through every view, one holding a long
# conversation) for a chosen time; prints per dashboard RSS and its slope
# per hour, CPU per hour (idle too), bytes written per hour, threads and
# files, whether anything only grows, and the conversation's per-turn lag.
# Needs go and tmux; Linux (/proc).
#   bench/soak.sh                       # 10 minutes
#   DURATION=8h TURNS=200 bench/soak.sh # a working day
#   BIN=/path/to/gwdash bench/soak.sh   # another build (compare two)
# Output: bench/out/soak.md (and the state, logs, captures in a temp folder).
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out
mkdir -p "$out"
bin="${BIN:-$out/gwdash}"
if [ -z "${BIN:-}" ]; then go build -o "$bin" .; fi
go run ./bench/soak -bin "$bin" -duration "${DURATION:-10m}" -turns "${TURNS:-200}" -cycle "${CYCLE:-25s}" \
  -socket "gwsoak$$" | tee "$out/soak.md"
