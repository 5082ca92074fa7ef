#!/usr/bin/env bash
# Tuned vs untuned TVM (docs/tvm.md, "Tuning"): run in a quiet window, never while others build.
# Needs a TVM whose MetaSchedule runs (the lock pins apache-tvm-ffi 0.1.14.post0, with which it
# does; see docs/tvm.md). Two compares: the first tunes (cache miss), the
# second reuses the cache (hit). Put the latency of both rows and tune_s of each compare in the
# table of docs/tvm.md.
#   bench/tvm_tune/run.sh [MODEL] [TRIALS]     (defaults: demo:mlp 64)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cli=${FUSESCOPE_CLI:-$root/build/dev/app/cli/fusescope-cli}
model=${1:-demo:mlp}
trials=${2:-64}
out=${OUT:-$root/bench/tvm_tune/out}
mkdir -p "$out"
export FUSESCOPE_TVM_TUNING_DIR=${FUSESCOPE_TVM_TUNING_DIR:-$out/cache}
rm -rf "$FUSESCOPE_TVM_TUNING_DIR"
for pass in miss hit; do
    "$cli" compare "$model" --backends "tvm,tvm{tune=$trials}" --timeout 3600 \
        --out "$out/$pass.fscope" --json > "$out/$pass.json"
    "$cli" show "$out/$pass.fscope"
done
