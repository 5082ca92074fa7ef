#!/usr/bin/env bash
# Builds the libFuzzer targets (preset fuzz: clang, ASan + UBSan) and runs each for SECONDS
# (docs/fuzzing.md). Exits non-zero when any target crashed, leaked, hung or ran out of memory.
#
#   scripts/fuzz.sh [SECONDS]        # default 600 per target
#   FUSESCOPE_FUZZ_TARGETS="fuzz_report" scripts/fuzz.sh 60
#
# Per target: first the reproducers in tests/fuzz/regressions/<target>/ are replayed, then the
# fuzzer runs on build/fuzz/corpus/<target> (seeded by scripts/fuzz_seeds.py, kept between runs).
# A crash lands in build/fuzz/artifacts/<target>/, the log in build/fuzz/logs/<target>.log.
set -euo pipefail

seconds=${1:-600}
case "$seconds" in '' | *[!0-9]*) echo "usage: $0 [SECONDS]" >&2; exit 64 ;; esac
targets=${FUSESCOPE_FUZZ_TARGETS:-fuzz_report fuzz_worker_stream fuzz_export_stream fuzz_trace_chunk fuzz_kineto_trace fuzz_torch_trace}

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
out=build/fuzz
log() { printf '\033[1m[fuzz]\033[0m %s\n' "$*" >&2; }

# The limits (docs/fuzzing.md): 128 KiB inputs reach the nesting depths that overflowed the stack,
# 2 GiB of RSS per process, 10 s for one input under the sanitizers counts as a hang.
limits=(-max_len=131072 -rss_limit_mb=2048 -timeout=10)

log "building (preset fuzz)"
[ -f "$out/CMakeCache.txt" ] || cmake --preset fuzz >/dev/null
nice -n 15 cmake --build --preset fuzz -j "$(nproc)"

mkdir -p "$out/corpus" "$out/logs"
python3 scripts/fuzz_seeds.py "$out/corpus"

# UBSan findings abort (-fno-sanitize-recover in the preset); show where they happened.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}

failed=()
summary=()
for target in $targets; do
    bin="$out/tests/fuzz/$target"
    artifacts="$out/artifacts/$target"
    mkdir -p "$artifacts" "$out/corpus/$target"
    status=ok

    regressions=(tests/fuzz/regressions/"$target"/*)
    if [ -e "${regressions[0]}" ]; then
        log "$target: replaying ${#regressions[@]} reproducers from tests/fuzz/regressions/$target"
        if ! nice -n 15 "$bin" "${limits[@]}" "${regressions[@]}" >"$out/logs/$target.regressions.log" 2>&1; then
            status="reproducer failed"
            grep '^Running: ' "$out/logs/$target.regressions.log" | tail -1 >&2 || true
            grep -m1 -E '==[0-9]+==ERROR|what\(\)|runtime error' "$out/logs/$target.regressions.log" >&2 || true
            log "$target: a reproducer still fails; see $out/logs/$target.regressions.log"
        fi
    fi

    log "$target: fuzzing for $seconds s"
    start=$(date +%s)
    rc=0
    nice -n 15 "$bin" "${limits[@]}" -max_total_time="$seconds" -print_final_stats=1 \
        -dict="tests/fuzz/dict/$target.dict" -artifact_prefix="$artifacts/" \
        "$out/corpus/$target" >"$out/logs/$target.log" 2>&1 || rc=$?
    elapsed=$(($(date +%s) - start))
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/logs/$target.log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$out/logs/$target.log" | tail -1)
    cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$out/logs/$target.log" | tail -1 || true)
    corpus=$(find "$out/corpus/$target" -type f | wc -l)
    if [ "$rc" -ne 0 ]; then
        if [ "$status" = ok ]; then status="crashed after $elapsed s"; else status+=", crashed after $elapsed s"; fi
        artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$out/logs/$target.log" | tail -1)
        grep -m1 -E '==[0-9]+==ERROR|what\(\)|runtime error' "$out/logs/$target.log" >&2 || true
        log "$target: reproducer ${artifact:-(none written)}; log $out/logs/$target.log"
    fi
    [ "$status" = ok ] || failed+=("$target")
    summary+=("$(printf '%-20s %-34s %10s execs %6s exec/s  %-20s corpus %s' "$target" "$status" \
        "${execs:-?}" "${rate:-?}" "${cov:-cov: ?}" "$corpus")")
done

log "summary ($seconds s per target):"
printf '  %s\n' "${summary[@]}" >&2
total=$(wc -w <<<"$targets")
echo "fuzz: $((total - ${#failed[@]})) passed, ${#failed[@]} failed"
if [ ${#failed[@]} -gt 0 ]; then
    log "FAILED: ${failed[*]} (reproduce: $out/tests/fuzz/TARGET FILE; docs/fuzzing.md)"
    exit 1
fi
