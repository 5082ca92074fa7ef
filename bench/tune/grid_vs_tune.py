#!/usr/bin/env python3
"""The tuner against the exhaustive grid (issue 30, docs/tuning.md "Against the grid").

Per model: the space the tuner would race (`tune --budget 1 --json` lists it), then the grid (one
`compare` of every space entry, compare's own measurement), then `tune` at --fraction of the grid's
wall time. The tuner's choice is scored by the grid's own measurement: regret = 1 - the grid's
speedup of the tuner's choice / the grid's best accurate speedup. When the tuner chose an entry the
grid did not hold (advice, an assignment), both are measured again in one `compare` process, and
the result says so. "ok" is regret <= 3 % or the choice inside the grid's uncertainty of the best
(their 95 % intervals overlap).

Run it on a quiet machine only: nothing else running (docs/measurement.md).

    bench/tune/grid_vs_tune.py --models demo:mlp,demo:transformer,demo:cnn \\
        --out bench/tune/results/grid-vs-tune-DATE.json
"""
import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def run(cmd, timeout=7200):
    started = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    seconds = time.monotonic() - started
    try:
        out = json.loads(proc.stdout)
    except json.JSONDecodeError:
        sys.exit(f"{' '.join(cmd)} exited {proc.returncode} without JSON:\n{proc.stderr[-3000:]}")
    return out, seconds, proc.returncode


def space_of(cli, model, tmp):
    out, _, _ = run([cli, "tune", model, "--budget", "1", "--json", "-q", "-o", f"{tmp}/space.fscope"])
    return [c["entry"] for c in out["tuning"]["candidates"] if c["origin"] == "space"]


def accurate(summary):
    """{entry: (median, ci95)} of the rows that ran and passed accuracy (compare's exclusions out)."""
    excluded = {e["backend"] for e in (summary.get("recommendation") or {}).get("excluded", [])}
    rows = {}
    for b in summary["backends"]:
        acc = b.get("accuracy") or {}
        if b["status"] != "ok" or b["name"] in excluded or acc.get("pass") is False or not b.get("speedup"):
            continue
        rows[b["name"]] = (b["speedup"]["median"], b["speedup"].get("ci95"))
    return rows


def score(rows, chosen):
    best = max(rows, key=lambda e: rows[e][0])
    s_best, ci_best = rows[best]
    s_chosen, ci_chosen = rows[chosen]
    regret = 1 - s_chosen / s_best
    overlap = bool(ci_best and ci_chosen and ci_chosen[1] >= ci_best[0])
    return {"grid_best": best, "grid_best_speedup": s_best, "grid_best_ci95": ci_best,
            "chosen_speedup_by_grid": s_chosen, "chosen_ci95_by_grid": ci_chosen,
            "regret_pct": regret * 100, "inside_grid_uncertainty": overlap,
            "ok": regret <= 0.03 or overlap}


def one_model(cli, model, fraction, tmp):
    space = space_of(cli, model, tmp)
    grid, grid_s, _ = run([cli, "compare", model, "-b", ",".join(space), "--json", "-q", "-o", f"{tmp}/grid.fscope"])
    budget = max(30, round(grid_s * fraction))
    tuned, tune_s, rc = run([cli, "tune", model, "--budget", str(budget), "--json", "-q", "-o", f"{tmp}/tune.fscope"])
    t = tuned["tuning"]
    result = {"model": model, "space": space, "grid_s": grid_s, "budget_s": budget, "tune_s": tune_s,
              "tune_exit": rc, "stopped_by": t.get("stopped_by"),
              "candidates": len(t["candidates"]),
              "measured": sum(c["status"] != "pending" for c in t["candidates"]),
              "dropped": sum(c["dropped"] is not None for c in t["candidates"]),
              "drop_reasons": {c["entry"]: c["dropped"] for c in t["candidates"] if c["dropped"]},
              "tuner_best": (t.get("best") or {}).get("entry"),
              "tuner_best_ci95": (t.get("best") or {}).get("speedup_ci95"),
              "grid_accurate": accurate(grid)}
    chosen = result["tuner_best"]
    rows = result["grid_accurate"]
    if not chosen:
        result["score"] = {"ok": False, "why": "the tuner chose nothing"}
    elif chosen in rows:
        result["score"] = score(rows, chosen)
        result["score"]["measured_in"] = "the grid"
    else:
        best = max(rows, key=lambda e: rows[e][0])
        again, _, _ = run([cli, "compare", model, "-b", f"{best},{chosen}", "--json", "-q",
                           "-o", f"{tmp}/again.fscope"])
        again_rows = accurate(again)
        if chosen in again_rows and best in again_rows:
            result["score"] = score(again_rows, chosen)
        else:
            result["score"] = {"ok": False, "why": f"{chosen} or {best} failed when measured again"}
        result["score"]["measured_in"] = f"one more compare of {best} and {chosen} (the grid did not hold {chosen})"
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", default="build/dev/app/cli/fusescope-cli")
    ap.add_argument("--models", default="demo:mlp,demo:transformer,demo:cnn")
    ap.add_argument("--fraction", type=float, default=0.4, help="the tuner's budget as a fraction of the grid's time")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    results = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "fraction": args.fraction, "models": []}
    with tempfile.TemporaryDirectory() as tmp:
        for model in args.models.split(","):
            r = one_model(args.cli, model, args.fraction, tmp)
            results["models"].append(r)
            out.write_text(json.dumps(results, indent=1) + "\n")
            s = r["score"]
            print(f"{model}: grid {r['grid_s']:.0f} s over {len(r['space'])} entries, tune {r['tune_s']:.0f} s "
                  f"(budget {r['budget_s']} s, {r['measured']}/{r['candidates']} measured, {r['dropped']} dropped, "
                  f"{r['stopped_by']}); tuner {r['tuner_best']} vs grid {s.get('grid_best')}: regret "
                  f"{s.get('regret_pct', float('nan')):.1f} %, {'ok' if s['ok'] else 'MISSED'}", flush=True)
    sys.exit(0 if all(r["score"]["ok"] for r in results["models"]) else 1)


if __name__ == "__main__":
    main()
