#!/usr/bin/env python3
"""Do the speedup intervals hold across processes? (issue 30, docs/tuning.md "Intervals across
processes"). The same comparison in N fresh `fusescope-cli compare` processes per model, the models
alternating; per backend, how many intervals contain the pooled median (the median of every
process's pairs pooled), for:

- `one_process`: the interval one `compare` process reports;
- `tuner_round1_prior`: the tuner's one-round interval before any candidate has a second round
  (the prior alone: t(nu0) * sigma0 on each side, log space);
- `tuner_round1_session`: the same once a session has second rounds: sigma pooled from the prior
  and two other processes of every backend of the model (processes k+1 and k+2, as a tuning
  session's repeated rounds of three candidates would give it);
- `tuner_round2`: two processes pooled (every pair of processes, n(n-1)/2 of them, not independent),
  sigma from the prior and those two processes' rounds of every backend, the row's own two rounds
  shrunk toward it.

The rule mirrors core/analysis/Tuner.cpp pooledSpeedup/processSpread (kProcessSpreadPrior,
kProcessSpreadPriorDof); tests/core/TunerTest.cpp pins the C++ side.

Run it on a quiet machine only: nothing else running (docs/measurement.md).

    bench/tune/calibrate.py --cli build/dev/app/cli/fusescope-cli --processes 20 \
        --models demo:mlp,demo:cnn --out bench/tune/results/calibration-DATE.json
"""
import argparse
import json
import math
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# core/analysis/Tuner.h kProcessSpreadPrior, kProcessSpreadPriorDof, kRowSpreadPriorDof
SIGMA0, NU0, KAPPA = 0.05, 4, 3
T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228]
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


def t975(dof):
    if dof <= 10:
        return T975[dof - 1]
    z, v = 1.959964, dof
    return (z + (z**3 + z) / (4 * v) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * v * v)
            + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * v**3))


def log_ss(medians):
    logs = [math.log(m) for m in medians]
    mean = sum(logs) / len(logs)
    return sum((x - mean) ** 2 for x in logs), len(logs) - 1


def session_spread(groups):
    """sigma and dof from the prior and repeated rounds: groups = one list of round medians per row."""
    ss, dof = NU0 * SIGMA0 ** 2, NU0
    for g in groups:
        s, d = log_ss(g)
        ss, dof = ss + s, dof + d
    return math.sqrt(ss / dof), dof


def tally(intervals, pooled):
    inside = sum(lo <= pooled <= hi for _, lo, hi in intervals)
    widths = [max(c - lo, hi - c) / c * 100 for c, lo, hi in intervals]
    return {"covered": inside, "of": len(intervals), "coverage": inside / len(intervals),
            "half_width_pct_median": statistics.median(widths)}


def half_width(pooled_sigma, own_medians):
    """t * sigma_row / sqrt(rounds): the row's own rounds shrunk toward the pooled sigma (worth KAPPA)."""
    ss, dof = log_ss(own_medians) if len(own_medians) > 1 else (0.0, 0)
    sigma = math.sqrt((KAPPA * pooled_sigma ** 2 + ss) / (KAPPA + dof))
    return t975(KAPPA + dof) * sigma / math.sqrt(len(own_medians))


def widened(center, ci, h):
    return center, min(ci[0], center * math.exp(-h)), max(ci[1], center * math.exp(h))


def evaluate(model_runs, backends, pooled_medians=None):
    """model_runs[b]: per process {median, ci95, ratios} (None where the row failed); pooled_medians[b]
    overrides the median of all ratios (re-evaluating a results file that kept only the medians)."""
    n = min(len(model_runs[b]) for b in backends)
    # Backends that ran in every process (a failed row has no median to pool).
    backends = [b for b in backends if all(r and r["ci95"] for r in model_runs[b][:n])]
    out = {}
    for b in backends:
        runs = model_runs[b][:n]
        if n < 3:
            continue
        pooled = (pooled_medians or {}).get(b) or statistics.median([x for r in runs for x in r["ratios"]])
        medians = [r["median"] for r in runs]
        logsd = math.sqrt(log_ss(medians)[0] / (n - 1))
        one = [(r["median"], *r["ci95"]) for r in runs]
        prior = [widened(r["median"], r["ci95"], half_width(SIGMA0, [r["median"]])) for r in runs]
        session = []
        for k, r in enumerate(runs):
            others = [(k + 1) % n, (k + 2) % n]
            sigma, _ = session_spread([[model_runs[c][j]["median"] for j in others] for c in backends])
            session.append(widened(r["median"], r["ci95"], half_width(sigma, [r["median"]])))
        two = []
        for i in range(n):
            for j in range(i + 1, n):
                pair = [runs[i], runs[j]]
                center = statistics.median([x for r in pair for x in r["ratios"]])
                sigma, _ = session_spread([[model_runs[c][k]["median"] for k in (i, j)] for c in backends])
                # Without the pooled pairs' order-statistic interval (narrower than the between term
                # at two rounds): a lower bound of the C++ interval's coverage.
                two.append(widened(center, (center, center), half_width(sigma, [r["median"] for r in pair])))
        out[b] = {"pooled_median": pooled, "median_range": [min(medians), max(medians)],
                  "between_process_sd_pct": logsd * 100,
                  "one_process": tally(one, pooled), "tuner_round1_prior": tally(prior, pooled),
                  "tuner_round1_session": tally(session, pooled), "tuner_round2": tally(two, pooled)}
    return out


def summarize(runs, wall, models, backends, done):
    result = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "processes": done,
              "measure": MEASURE, "prior": {"sigma": SIGMA0, "dof": NU0, "row_dof": KAPPA}, "models": {}}
    for m in models:
        if not wall[m]:
            continue
        result["models"][m] = {
            "wall_s_median": statistics.median(wall[m]),
            "backends": evaluate(runs[m], backends),
            "process_medians": {b: [r and r["median"] for r in runs[m][b]] for b in backends},
            "process_ci95": {b: [r and r["ci95"] for r in runs[m][b]] for b in backends},
        }
    return result


def reevaluate(path, out):
    old = json.loads(Path(path).read_text())
    result = dict(old, prior={"sigma": SIGMA0, "dof": NU0, "row_dof": KAPPA}, evaluated_from=path,
                  evaluated_at=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
    for m, r in old["models"].items():
        cis = r.get("process_ci95", {})
        runs = {b: [x and {"median": x, "ci95": (cis.get(b) or [None] * len(meds))[k] or [x, x], "ratios": [x]}
                    for k, x in enumerate(meds)] for b, meds in r["process_medians"].items()}
        pooled = {b: c["pooled_median"] for b, c in r["backends"].items()}
        backends = evaluate(runs, list(runs), pooled)
        if not cis:  # without the processes' own intervals, keep what the run itself counted
            for b, c in backends.items():
                c["one_process"] = r["backends"][b]["one_process"]
        result["models"][m] = dict(r, backends=backends)
    Path(out).write_text(json.dumps(result, indent=1) + "\n")
    report(result)


def report(result):
    for m, r in result["models"].items():
        for b, c in r["backends"].items():
            print(f"{m} {b}: medians {c['median_range'][0]:.3f}-{c['median_range'][1]:.3f} "
                  f"(sd {c['between_process_sd_pct']:.1f} %); " + "; ".join(
                      f"{k} {c[k]['covered']}/{c[k]['of']} (+-{c[k]['half_width_pct_median']:.1f} %)"
                      for k in ("one_process", "tuner_round1_prior", "tuner_round1_session", "tuner_round2")))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", default="build/dev/app/cli/fusescope-cli")
    ap.add_argument("--models", default="demo:mlp,demo:cnn")
    ap.add_argument("--backends", default="eager,aot_eager,inductor")
    ap.add_argument("--processes", type=int, default=20)
    ap.add_argument("--out", required=True)
    ap.add_argument("--evaluate", metavar="RESULTS.json",
                    help="re-evaluate a results file's process medians with this script's rule (no runs): each "
                         "process's own interval is taken from process_ci95 where kept, else its median alone, "
                         "and a pair's centre is the mean of its two medians")
    args = ap.parse_args()
    if args.evaluate:
        return reevaluate(args.evaluate, args.out)
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
                for b in backends:
                    runs[m][b].append(rows.get(b))
                # Written after every process: an interrupted calibration keeps what it measured.
                out.write_text(json.dumps(summarize(runs, wall, models, backends, i + 1), indent=1) + "\n")
                print(f"[{i + 1}/{args.processes}] {m}: " +
                      ", ".join(f"{b} {r['median']:.3f}" for b, r in rows.items()) + f" ({seconds:.0f} s)",
                      file=sys.stderr, flush=True)
    report(summarize(runs, wall, models, backends, args.processes))


if __name__ == "__main__":
    main()
