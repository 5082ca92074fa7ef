#!/usr/bin/env python3
"""How close FuseScope's numbers are to plain PyTorch's, on three models of different sizes.

For each model, in alternating rounds within one run (the order of the two sides flips every
round, so slow drift of the machine hits both alike):
  - FuseScope: `fusescope-cli compare MODEL --backends eager,inductor --json` with its default
    measurement settings, as a user runs it. From the inductor row: the compiled median
    (`latency_ms.median`), the interleaved eager baseline (`eager_latency_ms.median`) and
    `compile_s` (+ `capture_s` / `warm_compile_s` when the report has them).
  - Reference: reference.py in a fresh process: torch.utils.benchmark `blocked_autorange`
    medians of eager and `torch.compile(backend="inductor")`, and the compiled first call in a
    fresh Inductor cache, at the thread count FuseScope used.
  - Control (unless --no-control): reference.py once more, in another fresh process right after
    the first (alternating which of the two comes first is unnecessary: they are the same code).
    Reference / control is what the machine alone does to a cross-process ratio: a FuseScope /
    reference ratio is evidence about FuseScope only where the control's ratios stay well inside
    the target (±3 % latency, ±5 % compile). On a VM whose speed drifts between minutes they do
    not, and the table says so instead of reporting the machine as FuseScope's error.
With --libtorch the FuseScope run adds the `torchscript` backend, whose eager samples come from
the LibTorch runner's export worker, interleaved across two processes (docs/libtorch.md,
"Interleaved timing"); a second table compares that eager median with the reference's and with
the inductor row's eager (same run), and gives the torchscript median.
Prints a Markdown table (docs/measurement.md keeps the latest) and, with --json FILE, every raw
number (bench/fidelity/results/ keeps those behind docs/measurement.md; --replay FILE prints
their tables again). From six rounds on, each ratio also gets the 95 % order-statistic interval
of its median: a round's two sides run side by side, so a ratio is a pair and slow drift
cancels in it. Run it on an otherwise idle machine; it says what else was running.

    bench/fidelity/fidelity.py [--cli build/dev/app/cli/fusescope-cli] [--rounds 3]
"""
import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
HERE = pathlib.Path(__file__).resolve().parent
MODELS = ["small_mlp.py", "medium_transformer.py", "large_residual_mlp.py"]
sys.path.insert(0, str(ROOT / "plugins" / "worker"))
from fusescope_worker.confidence import median_ci  # noqa: E402 (the stopping rule's own interval; no torch)


def python_of_build(cli: pathlib.Path) -> str:
    cache = cli.parents[2] / "CMakeCache.txt"
    for line in cache.read_text().splitlines():
        if line.startswith("FUSESCOPE_PYTHON:"):
            return line.split("=", 1)[1]
    return sys.executable


def run_json(args: list[str], timeout: int = 1800) -> dict:
    proc = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(args)} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout)


def fusescope(cli: str, model: pathlib.Path, extra: list[str], libtorch: bool = False) -> dict:
    backends = "eager,inductor,torchscript" if libtorch else "eager,inductor"
    report = run_json([cli, "compare", str(model), "--backends", backends, "--json", "-q", "--no-stages", *extra])
    rows = {b["name"]: b for b in report["backends"]}
    for name in backends.split(","):
        if rows[name].get("status") != "ok":
            sys.exit(f"FuseScope's {name} row failed on {model.name}: {rows[name].get('error')}")
    row = rows["inductor"]
    out = {}
    if libtorch:
        ts = rows["torchscript"]
        out["torchscript"] = {"eager_ms": ts["eager_latency_ms"]["median"], "compiled_ms": ts["latency_ms"]["median"],
                              "pairs": ts["speedup"]["pairs"],
                              "stopped_by": (ts.get("measure") or {}).get("stopped_by"),
                              "warnings": [w["code"] for w in ts.get("warnings", [])]}
    return out | {"eager_ms": row["eager_latency_ms"]["median"], "compiled_ms": row["latency_ms"]["median"],
            "pairs": row["speedup"]["pairs"], "compile_s": row["compile_s"],
            "capture_s": row.get("capture_s"), "warm_compile_s": row.get("warm_compile_s"),
            "threads": row["placement"]["threads"], "warnings": [w["code"] for w in row.get("warnings", [])],
            "malloc": row["placement"].get("malloc"),
            "faults_per_call": (row.get("measure") or {}).get("faults_per_call")}


def reference(python: str, model: pathlib.Path, threads: int, min_run_time: float, pin: str, malloc: str) -> dict:
    ref = run_json([python, str(HERE / "reference.py"), str(model), "--threads", str(threads),
                    "--min-run-time", str(min_run_time), "--malloc", malloc, *(["--pin", pin] if pin else [])])
    return {"eager_ms": ref["eager"]["median_ms"], "eager_first_ms": ref["eager_first"]["median_ms"],
            "compiled_ms": ref["compiled"]["median_ms"], "first_call_s": ref["first_call_s"],
            "eager_faults_per_call": ref["eager_faults_per_call"]}


def other_load() -> str:
    """What else ran: the 1-minute load average and the busiest other processes."""
    load = os.getloadavg()[0]
    ps = subprocess.run(["ps", "-eo", "pcpu,comm", "--sort=-pcpu"], capture_output=True, text=True).stdout
    top = [line.strip() for line in ps.splitlines()[1:6]]
    return f"load average {load:.2f}; top processes at the end: {'; '.join(top)}"


def spread(values: list[float]) -> str:
    """Median (min–max) of per-round ratios; from 6 rounds on also the median's 95 % order-statistic
    interval: the rounds are pairs taken side by side, so slow drift cancels in each ratio and the
    interval says how sure the median is (docs/measurement.md, "ten alternating pairs")."""
    text = f"{statistics.median(values):.3f} ({min(values):.3f}–{max(values):.3f})"
    ci = median_ci(values)
    return text if ci is None else f"{text} [{ci[1]:.3f}, {ci[2]:.3f}]"


# The targets of docs/measurement.md: a single run's latency median within 3 %, compile time within 5 %.
LATENCY_TARGET = 0.03
COMPILE_TARGET = 0.05


def print_control(raw: dict[str, list[dict]]) -> None:
    """Reference against reference: the floor under every FuseScope / reference ratio above."""
    print("\n| model | eager: reference / control | inductor: reference / control | first call: reference / control |")
    print("|---|---|---|---|")
    worst = {"latency": 0.0, "compile": 0.0}
    for name, rounds in raw.items():
        eager = [g["ref"]["eager_ms"] / g["control"]["eager_ms"] for g in rounds]
        compiled = [g["ref"]["compiled_ms"] / g["control"]["compiled_ms"] for g in rounds]
        first = [g["ref"]["first_call_s"] / g["control"]["first_call_s"] for g in rounds]
        worst["latency"] = max(worst["latency"], *(abs(v - 1) for v in eager + compiled))
        worst["compile"] = max(worst["compile"], *(abs(v - 1) for v in first))
        print(f"| {name} | {spread(eager)} | {spread(compiled)} | {spread(first)} |")
    for what, target in (("latency", LATENCY_TARGET), ("compile", COMPILE_TARGET)):
        verdict = ("inside" if worst[what] <= target / 2 else "NOT well inside")
        print(f"\nControl, {what}: two identical reference processes differ by up to {100 * worst[what]:.1f} %, "
              f"{verdict} the ±{100 * target:.0f} % target"
              + ("" if worst[what] <= target / 2 else
                 f": on this machine a FuseScope / reference {what} ratio cannot test the target"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", default=str(ROOT / "build" / "dev" / "app" / "cli" / "fusescope-cli"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--min-run-time", type=float, default=2.0, help="blocked_autorange's min_run_time, seconds")
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--fusescope-args", default="",
                        help="extra compare arguments (e.g. '--min-runs 3' for a smoke run)")
    parser.add_argument("--json", dest="json_out", help="write every raw number here")
    parser.add_argument("--pin", default="",
                        help="bind both sides to these CPUs (FuseScope's --pin, os.sched_setaffinity)")
    parser.add_argument("--libtorch", action="store_true",
                        help="also run torchscript and compare its cross-process eager samples")
    parser.add_argument("--no-control", dest="control", action="store_false",
                        help="skip the second reference process per round (the machine's own floor)")
    parser.add_argument("--malloc", choices=("steady", "system"), default="steady",
                        help="the allocator policy of both sides (FuseScope's --malloc; reference.py --malloc)")
    parser.add_argument("--replay", metavar="JSON",
                        help="print the tables of an earlier run from its --json file instead of measuring")
    options = parser.parse_args()
    if options.replay:
        print_tables(json.loads(pathlib.Path(options.replay).read_text()), f"replayed from {options.replay}")
        return
    python = python_of_build(pathlib.Path(options.cli).resolve())
    extra = (options.fusescope_args.split() + (["--pin", options.pin] if options.pin else [])
             + ["--malloc", options.malloc])
    raw: dict[str, list[dict]] = {}
    for r in range(options.rounds):
        for name in options.models.split(","):
            model = HERE / "models" / name
            sides = ["fusescope", "reference"] if r % 2 == 0 else ["reference", "fusescope"]
            got: dict = {}
            for side in sides:
                if side == "fusescope":
                    got["fs"] = fusescope(options.cli, model, extra, options.libtorch)
                else:
                    threads = (got["fs"]["threads"] if "fs" in got
                               else (raw[name][-1]["fs"]["threads"] if raw.get(name) else 1))
                    got["ref"] = reference(python, model, threads, options.min_run_time, options.pin, options.malloc)
                    if options.control:
                        got["control"] = reference(python, model, threads, options.min_run_time, options.pin,
                                                   options.malloc)
            raw.setdefault(name, []).append(got)
            print(f"round {r + 1} {name}: {json.dumps(got)}", file=sys.stderr)
    if options.json_out:
        pathlib.Path(options.json_out).write_text(json.dumps(raw, indent=1))
    print_tables(raw, f"--malloc {options.malloc} on both sides. {other_load()}")


def print_tables(raw: dict[str, list[dict]], footer: str) -> None:
    """The tables of one run, measured or replayed: how many rounds, and whether it had a control
    and a torchscript row, are read from the raw numbers themselves."""
    if not raw:
        print("no rounds measured")
        return
    first = next(iter(raw.values()))
    rounds_run = len(first)
    print("| model | eager: FuseScope / reference | inductor: FuseScope / reference "
          "| FuseScope compile_s / plain first call "
          "| reference eager: fresh process / after compile | pairs | threads |")
    print("|---|---|---|---|---|---|---|")
    for name, rounds in raw.items():
        eager = [g["fs"]["eager_ms"] / g["ref"]["eager_ms"] for g in rounds]
        compiled = [g["fs"]["compiled_ms"] / g["ref"]["compiled_ms"] for g in rounds]
        compile_ratio = [g["fs"]["compile_s"] / g["ref"]["first_call_s"] for g in rounds]
        fresh = [g["ref"]["eager_first_ms"] / g["ref"]["eager_ms"] for g in rounds]
        ref_ms = statistics.median(g["ref"]["compiled_ms"] for g in rounds)
        print(f"| {name} ({ref_ms:.3g} ms inductor) | {spread(eager)} | {spread(compiled)} "
              f"| {spread(compile_ratio)} | {spread(fresh)} "
              f"| {statistics.median(g['fs']['pairs'] for g in rounds):.0f} | {rounds[0]['fs']['threads']} |")
    if "control" in first[0]:
        print_control(raw)
    if "torchscript" in first[0]["fs"]:
        print("\n| model | torchscript row's eager / reference eager | torchscript row's eager / inductor row's eager "
              "| torchscript median (ms) | pairs |")
        print("|---|---|---|---|---|")
        for name, rounds in raw.items():
            ts = [g["fs"]["torchscript"] for g in rounds]
            to_ref = [t["eager_ms"] / g["ref"]["eager_ms"] for t, g in zip(ts, rounds)]
            to_worker = [t["eager_ms"] / g["fs"]["eager_ms"] for t, g in zip(ts, rounds)]
            print(f"| {name} | {spread(to_ref)} | {spread(to_worker)} | {spread([t['compiled_ms'] for t in ts])} "
                  f"| {statistics.median(t['pairs'] for t in ts):.0f} |")
    print(f"\nRatios: median over {rounds_run} rounds (min–max)"
          + ("" if rounds_run < 6 else " [95 % confidence interval of the median, order statistic]")
          + f"; {footer}.")
    print("\nPage faults per eager call (FuseScope's worker / reference), per round:")
    for name, rounds in raw.items():
        cells = [f"{(g['fs']['faults_per_call'] or {}).get('eager', float('nan')):.0f}"
                 f" / {g['ref']['eager_faults_per_call']:.0f}"
                 for g in rounds]
        print(f"  {name}: {'; '.join(cells)}")


if __name__ == "__main__":
    main()
