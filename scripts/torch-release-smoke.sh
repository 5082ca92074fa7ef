#!/usr/bin/env bash
# The worker against another torch release (docs/worker.md, "Supported torch"): makes (or reuses) a
# virtual environment with torch==VERSION and the rest of the worker's lock file, then runs the
# built fusescope-cli there and prints one PASS/FAIL/INFO line per check:
#   backends names the environment's torch; every CPU backend on demo:mlp (each stage captured,
#   or unsupported naming the missing API); --trace; --bisect on Inductor's own relu fault injection.
# Not part of CI: it downloads torch (the CUDA build from PyPI, several GB). Reports go to
# OUT (default /tmp/torch-smoke-VERSION).
#
#   scripts/torch-release-smoke.sh 2.15.0 [OUT]
set -uo pipefail
version=${1:?usage: $0 TORCH_VERSION [OUT_DIR]}
out=${2:-/tmp/torch-smoke-$version}
root=$(cd "$(dirname "$0")/.." && pwd)
cli=${FUSESCOPE_CLI:-$root/build/dev/app/cli/fusescope-cli}
[ -x "$cli" ] || { echo "error: $cli is not built (scripts/setup.sh build)" >&2; exit 1; }
cache=${FUSESCOPE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fusescope}
venv="$cache/venv-torch${version//./}"
py="$venv/bin/python"
mkdir -p "$out"
if [ ! -f "$venv/.complete" ]; then
    echo "creating $venv (torch $version from PyPI; this downloads several GB)" >&2
    rm -rf "$venv"
    "${FUSESCOPE_BOOTSTRAP_PYTHON:-python3.11}" -m venv "$venv" || exit 1
    # A machine-wide pip cap (this workplace's /etc/xdg/pip) must not pick another torch.
    PIP_CONFIG_FILE=/dev/null "$venv/bin/pip" install -q "torch==$version" || exit 1
    grep -v -E '^(torch|torchao)==' "$root/plugins/worker/requirements.lock" > "$out/lock-without-torch.txt"
    PIP_CONFIG_FILE=/dev/null "$venv/bin/pip" install -q -r "$out/lock-without-torch.txt" || exit 1
    # torchao's pin may not match this torch: try it, and say so when it does not install.
    PIP_CONFIG_FILE=/dev/null "$venv/bin/pip" install -q "$(grep -E '^torchao==' "$root/plugins/worker/requirements.lock")" \
        || echo "INFO torchao did not install beside torch $version" >&2
    touch "$venv/.complete"
fi
fast=(--warmup 1 --min-runs 5 --min-time 0.05 --max-time 5 --confidence 0)
"$cli" backends --python "$py" > "$out/backends.txt" 2>&1
"$cli" backends --python "$py" --json > "$out/backends.json" 2> "$out/backends.err"
"$cli" compare demo:mlp --python "$py" --backends eager,aot_eager,inductor,tvm,torchscript,torchscript_nnc,aot_inductor \
    --trace --out "$out/backends.fscope" --json "${fast[@]}" > "$out/compare.json" 2> "$out/compare.log"
echo "compare exit $?" >> "$out/compare.log"
"$cli" compare demo:mlp --python "$py" --backends eager,inductor \
    --inductor-config 'cpp.inject_relu_bug_TESTING_ONLY="accuracy"' --bisect --bisect-budget 300 \
    --out "$out/bisect.fscope" --json "${fast[@]}" > "$out/bisect.json" 2> "$out/bisect.log"
echo "bisect exit $?" >> "$out/bisect.log"
"$py" - "$version" "$out" <<'PY'
import json, pathlib, sys

version, out = sys.argv[1], pathlib.Path(sys.argv[2])
failed = 0


def line(ok, what):
    global failed
    failed += ok is False
    print(("INFO" if ok is None else "PASS" if ok else "FAIL"), what)


first = [t for t in (out / "backends.txt").read_text().splitlines() if t.startswith("python: ")][:1]
line(bool(first) and f"torch {version}" in first[0], f"backends names the environment: {first[0] if first else '?'}")
try:
    listed = json.loads((out / "backends.json").read_text())["backends"]
    line(None, "available: " + ", ".join(b["name"] for b in listed if b["available"]))
    for b in listed:
        if not b["available"]:
            line(None, f"unavailable: {b['name']}: {b['reason']}")
except (OSError, ValueError, KeyError) as err:
    line(False, f"backends --json: {err}")
try:
    summary = json.loads((out / "compare.json").read_text())
except (OSError, ValueError) as err:
    summary = None
    line(False, f"compare printed no summary: {err}; see {out / 'compare.log'}")
if summary:
    line(summary["torch"].startswith(version), f"the report's torch is {summary['torch']}")
    for row in summary["backends"]:
        ok = row["status"] == "ok" and (row["accuracy"] or {}).get("pass") is True
        detail = f"{row['status']}" + (f" {row['error_code']}: {row['error']}" if row["error"] else "")
        line(ok if row["name"] in ("eager", "aot_eager", "inductor") else (None if not ok else True),
             f"{row['name']}: {detail[:300]}")
        for st in row.get("stages") or []:
            # ok, or unsupported with its reason (a backend without that stage, or the torch API
            # this release lacks, named); failed is a failure.
            good = st["status"] == "ok"
            line(True if good else (None if st["status"] == "unsupported" else False),
                 f"  {row['name']} stage {st['name']} graph {st.get('graph')}: {st['status']}"
                 + (f" ({st.get('reason')})" if not good else f", {st.get('nodes')} nodes"))
        trace = row.get("trace")
        if row["status"] == "ok" and row["name"] in ("eager", "inductor"):
            line(bool(trace) and not trace.get("error") and trace.get("events", 0) > 0,
                 f"  {row['name']} trace: {json.dumps(trace)[:200]}")
try:
    bis = json.loads((out / "bisect.json").read_text())
    acc = {b["name"]: b for b in bis["backends"]}["inductor"]["accuracy"] or {}
    found = acc.get("first_divergence") or {}
    line(found.get("node") == "relu", f"bisect: {acc.get('status')}, first divergence {found.get('node')} "
         f"({found.get('method')}, {found.get('compiles')} compiles)")
except (OSError, ValueError, KeyError) as err:
    line(False, f"bisect: {err}; see {out / 'bisect.log'}")
print(f"{'all passed' if not failed else f'{failed} failed'}; reports in {out}")
sys.exit(1 if failed else 0)
PY
