#!/bin/bash
# Start-to-first-paint and start-to-graphs of two reports, the two-step read against the whole
# read (docs/performance.md, "Two steps"). Five rounds, alternating; one line per process:
#   MODE REPORT EXIT SECONDS <the bench's own lines>
#
#   bench/gui/first_paint.sh SMALL.fscope LARGE.fscope [BENCH]
# Run it on a quiet machine: nothing else building, testing or measuring.
set -u
small=$1 large=$2
bench=${3:-build/dev/bench/gui/fusescope_bench_report_open}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for round in 1 2 3 4 5; do
  for mode in two-step whole; do
    for report in "$small" "$large"; do
      for exit_at in first-paint graphs; do
        whole=()
        [ "$mode" = whole ] && whole=(FUSESCOPE_OPEN_WHOLE=1)
        start=$(date +%s.%N)
        env "${whole[@]}" QT_QPA_PLATFORM=offscreen FUSESCOPE_BENCH_EXIT=$exit_at \
          "$bench" "$report" inductor aot_eager 1 >"$out" 2>/dev/null
        now=$(awk '$1=="now"{print $2}' "$out")
        echo "$mode $(basename "$report") $exit_at $(echo "$now - $start" | bc) $(tr '\n' ' ' <"$out")"
      done
    done
  done
done
