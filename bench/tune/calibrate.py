#!/usr/bin/env python3
"""Do the speedup intervals hold across processes? (issue 30, docs/tuning.md "Intervals across
processes"). The same comparison in N fresh `fusescope-cli compare` processes per model, the models
alternating; per backend, how many processes' 95 % intervals contain the pooled median (the median
of every process's pairs pooled), for the interval one process reports (`compare`) and for the
tuner's one-round interval (widened by kBetweenProcessSpread = 0.02 on each side).

Run it on a quiet machine only: nothing else running (docs/measurement.md).

    bench/tune/calibrate.py --cli build/dev/app/cli/fusescope-cli --processes 20 \
        --models demo:mlp,demo:cnn --out bench/tune/results/calibration-DATE.json
"""
import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SPREAD = 0.02  # core/analysis/Tuner.h kBetweenProcessSpread
# The tuner's brief first round (fusescope-cli tune's defaults), so the intervals are the ones it races on.
MEASURE = ["--min-time", "0.5", "--max-time", "3"]


def ratios(row):
    eager, compiled = row["samples"]["eager"], row["samples"]["compiled"]
    return [e / c for e, c in zip(eager, compiled) if e > 0 and c > 0]


def one_process(cli, model, backends, out):
    started = time.monotonic()
    proc = subprocess.run([cli, "compare", model, "-b", ",".join(backends), "-q", "--json", "-o", out, *MEASURE],
                          capture_output=True, text=True, timeout=1800)
    summary = json.loads(proc.stdout)
    report = json.loads(Path(out).read_text())
    rows = {}
    for b, row in zip(summary["backends"], report["backends"]):
        if b["status"] != "ok" or not b.get("speedup"):
            continue
        rows[b["name"]] = {"median": b["speedup"]["median"], "ci95": b["speedup"].get("ci95"),
                           "ratios": ratios(row)}
    return rows, time.monotonic() - started


def coverage(runs, widen):
    pooled = statistics.median([r for run in runs for r in run["ratios"]])
    inside, widths = 0, []
    for run in runs:
        lo, hi = run["ci95"]
        lo, hi = lo * (1 - widen), hi * (1 + widen)
        inside += lo <= pooled <= hi
        widths.append(max(run["median"] - lo, hi - run["median"]) / run["median"] * 100)
    return {"pooled_median": pooled, "covered": inside, "of": len(runs),
            "coverage": inside / len(runs), "half_width_pct_median": statistics.median(widths)}


def summarize(runs, wall, models, backends, done):
    result = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "processes": done,
              "measure": MEASURE, "spread": SPREAD, "models": {}}
    for m in models:
        if not wall[m]:
            continue
        result["models"][m] = {"wall_s_median": statistics.median(wall[m]), "backends": {}}
        for b in backends:
            got = [r for r in runs[m][b] if r["ci95"]]
            if not got:
                continue
            medians = [r["median"] for r in got]
            result["models"][m]["backends"][b] = {
                "median_range": [min(medians), max(medians)],
                "one_process": coverage(got, 0.0),
                "tuner_one_round": coverage(got, SPREAD),
            }
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", default="build/dev/app/cli/fusescope-cli")
    ap.add_argument("--models", default="demo:mlp,demo:cnn")
    ap.add_argument("--backends", default="eager,aot_eager,inductor")
    ap.add_argument("--processes", type=int, default=20)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    models, backends = args.models.split(","), args.backends.split(",")
    runs = {m: {b: [] for b in backends} for m in models}
    wall = {m: [] for m in models}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.processes):
            for m in models:  # alternating, so drift touches both alike
                rows, seconds = one_process(args.cli, m, backends, f"{tmp}/r.fscope")
                wall[m].append(seconds)
                for b, row in rows.items():
                    runs[m][b].append(row)
                # Written after every process: an interrupted calibration keeps what it measured.
                out.write_text(json.dumps(summarize(runs, wall, models, backends, i + 1), indent=1) + "\n")
                print(f"[{i + 1}/{args.processes}] {m}: " +
                      ", ".join(f"{b} {r['median']:.3f}" for b, r in rows.items()) + f" ({seconds:.0f} s)",
                      file=sys.stderr, flush=True)
    result = summarize(runs, wall, models, backends, args.processes)
    for m, r in result["models"].items():
        for b, c in r["backends"].items():
            print(f"{m} {b}: medians {c['median_range'][0]:.3f}-{c['median_range'][1]:.3f}; "
                  f"one process {c['one_process']['covered']}/{c['one_process']['of']} "
                  f"(+-{c['one_process']['half_width_pct_median']:.1f} %), tuner round "
                  f"{c['tuner_one_round']['covered']}/{c['tuner_one_round']['of']} "
                  f"(+-{c['tuner_one_round']['half_width_pct_median']:.1f} %)")


if __name__ == "__main__":
    main()
