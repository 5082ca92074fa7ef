#!/usr/bin/env python3
"""Time to answer: how long a user waits for one backend's row, against the work the row needs.

For each model, in alternating rounds within one run (the order of the sides rotates every round,
so slow drift of the machine hits all of them alike):
  - **after**: `fusescope-cli compare MODEL --backends inductor --out R` with this checkout's
    worker (one compile: the timed compile captures the stages);
  - **before**: the same command with `FUSESCOPE_WORKER_DIR` pointing at an older worker
    (`--before-worker DIR`, e.g. `git archive be99523 plugins/worker | tar -x -C /tmp/before`),
    which compiled each backend a second time to capture;
  - **plain**: a fresh process that builds the model, calls it eagerly twice (as the worker's
    reference does), then times `torch.compile(model)`'s first call (a forward, or for
    `--mode training` a forward, the worker's loss and backward) in a fresh Inductor cache.
From each FuseScope report's inductor row: `wall_s` (the row, start of the worker to its result),
`compile_s`, `capture_s`, `warm_compile_s`, `compile_capture_overhead_s`, and the timed calls
(sum of eager and compiled samples, the measured time, not the loop's own). The table gives per
model and side the medians over rounds, `wall_s` against `compile_s` plus the timed calls, and
per round the pair ratio `compile_s(after) / plain first call` with the 95 % order-statistic
interval of its median from six rounds on (the target: within 5 % of a plain compile).
Run it on an otherwise idle machine; it prints what else was running.

    bench/time_to_answer/time_to_answer.py --before-worker /tmp/before/plugins/worker [--rounds 6]
        [--cli build/dev/app/cli/fusescope-cli] [--json results/FILE.json] [--replay FILE.json]
"""
import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
MODELS = ROOT / "bench" / "fidelity" / "models"
# (label, model file, extra compare arguments, workload mode)
CASES = [
    ("transformer", MODELS / "medium_transformer.py", [], "inference"),
    ("residual MLP", MODELS / "large_residual_mlp.py", [], "inference"),
    ("transformer training step", MODELS / "medium_transformer.py", ["--mode", "training"], "training"),
]
sys.path.insert(0, str(ROOT / "plugins" / "worker"))
from fusescope_worker.confidence import median_ci  # noqa: E402 (no torch)

PLAIN = r'''
import importlib.util, json, os, sys, tempfile, time
cache = tempfile.mkdtemp(prefix="tta-cache-")
os.environ["TORCHINDUCTOR_CACHE_DIR"] = cache
os.environ["TRITON_CACHE_DIR"] = os.path.join(cache, "triton")
import torch
torch.set_num_threads(int(sys.argv[3]))
spec = importlib.util.spec_from_file_location("tta_model", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
model, inputs = module.build_model(), module.example_inputs()
training = sys.argv[2] == "training"

def loss_of(out):
    outs = out if isinstance(out, (tuple, list)) else [out]
    return sum((o.float() ** 2).mean() for o in outs if torch.is_tensor(o) and o.is_floating_point())

if training:
    model.train()
    for _ in range(2):
        model.zero_grad(set_to_none=True)
        loss_of(model(*inputs)).backward()
    model.zero_grad(set_to_none=True)
    compiled = torch.compile(model)
    start = time.perf_counter()
    loss_of(compiled(*inputs)).backward()
    first = time.perf_counter() - start
else:
    model.eval()
    with torch.no_grad():
        model(*inputs)
        model(*inputs)
        compiled = torch.compile(model)
        start = time.perf_counter()
        compiled(*inputs)
        first = time.perf_counter() - start
print(json.dumps({"first_call_s": first, "torch": torch.__version__}))
'''


def python_of_build(cli: pathlib.Path) -> str:
    for line in (cli.parents[2] / "CMakeCache.txt").read_text().splitlines():
        if line.startswith("FUSESCOPE_PYTHON:"):
            return line.split("=", 1)[1]
    return sys.executable


def fusescope(cli: pathlib.Path, model: pathlib.Path, extra: list[str], worker: str | None) -> dict:
    with tempfile.TemporaryDirectory(prefix="tta-") as scratch:
        out = pathlib.Path(scratch) / "r.fscope"
        env = dict(os.environ)
        if worker:
            env["FUSESCOPE_WORKER_DIR"] = worker
        start = time.perf_counter()
        proc = subprocess.run([str(cli), "compare", str(model), "--backends", "inductor", "--out", str(out), *extra],
                              capture_output=True, text=True, env=env, timeout=3600)
        command_s = time.perf_counter() - start
        if proc.returncode != 0:
            sys.exit(f"fusescope-cli failed ({proc.returncode}) on {model}:\n{proc.stderr[-3000:]}")
        row = next(b for b in json.loads(out.read_text())["backends"] if b["name"] == "inductor")
    samples = row.get("samples") or {}
    timed_calls_s = (sum(samples.get("eager", [])) + sum(samples.get("compiled", []))) / 1e3
    return {"command_s": command_s, "wall_s": row["wall_s"], "compile_s": row["compile_s"],
            "capture_s": row.get("capture_s"), "warm_compile_s": row.get("warm_compile_s"),
            "overhead_s": row.get("compile_capture_overhead_s"), "timed_calls_s": timed_calls_s,
            "samples": len(samples.get("compiled", [])), "capture_from": row.get("capture_from")}


def plain(python: str, model: pathlib.Path, mode: str) -> dict:
    proc = subprocess.run([python, "-c", PLAIN, str(model), mode, "1"], capture_output=True, text=True,
                          timeout=3600)
    if proc.returncode != 0:
        sys.exit(f"plain reference failed on {model}:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def busy() -> str:
    load = os.getloadavg()
    top = subprocess.run(["ps", "-eo", "pcpu,comm", "--sort=-pcpu", "--no-headers"], capture_output=True,
                         text=True).stdout.splitlines()[:5]
    return f"load average {load[0]:.2f}; top processes: " + "; ".join(line.strip() for line in top)


def med(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def fmt(value, digits=2):
    return "-" if value is None else f"{value:.{digits}f}"


def table(data: dict) -> str:
    lines = ["| model | side | row wall_s | compile_s | capture_s | warm_compile_s | timed calls s | "
             "wall - (compile + timed calls) | plain first call |",
             "|---|---|---|---|---|---|---|---|---|"]
    pairs = []
    for label, rounds in data["models"].items():
        plain_first = med(r["plain"]["first_call_s"] for r in rounds)
        for side in ("before", "after"):
            rows = [r[side] for r in rounds if side in r]
            if not rows:
                continue
            wall, compile_s = med(r["wall_s"] for r in rows), med(r["compile_s"] for r in rows)
            timed = med(r["timed_calls_s"] for r in rows)
            rest = med(r["wall_s"] - r["compile_s"] - r["timed_calls_s"] for r in rows)
            lines.append(f"| {label} | {side} | {fmt(wall, 1)} | {fmt(compile_s)} | "
                         f"{fmt(med(r['capture_s'] for r in rows))} | {fmt(med(r['warm_compile_s'] for r in rows))} | "
                         f"{fmt(timed)} | {fmt(rest, 1)} | {fmt(plain_first)} |")
        ratios = [r["after"]["compile_s"] / r["plain"]["first_call_s"] for r in rounds if "after" in r]
        walls = [r["after"]["wall_s"] / r["before"]["wall_s"] for r in rounds if "after" in r and "before" in r]
        pairs.append((label, ratios, walls))
    lines += ["", "| model | compile_s (after) / plain first call: median [95 % interval], min–max | "
              "row wall_s after / before: median, min–max | rounds |", "|---|---|---|---|"]
    for label, ratios, walls in pairs:
        ci = median_ci(sorted(ratios)) if len(ratios) >= 6 else None
        interval = f" [{ci[1]:.3f}, {ci[2]:.3f}]" if ci else ""
        lines.append(f"| {label} | {statistics.median(ratios):.3f}{interval}, {min(ratios):.3f}–{max(ratios):.3f} | "
                     + (f"{statistics.median(walls):.3f}, {min(walls):.3f}–{max(walls):.3f}" if walls else "-")
                     + f" | {len(ratios)} |")
    return "\n".join(lines)


def describe(side: str, got: dict) -> str:
    if side == "plain":
        return f"plain {got['first_call_s']:.2f} s"
    return f"{side} {got['wall_s']:.1f} s row, compile {got['compile_s']:.2f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", default=str(ROOT / "build" / "dev" / "app" / "cli" / "fusescope-cli"))
    parser.add_argument("--before-worker", help="an older plugins/worker directory (FUSESCOPE_WORKER_DIR)")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--models", default="", help="comma-separated labels to keep (default: all)")
    parser.add_argument("--json", help="write every raw number here")
    parser.add_argument("--replay", help="print the table of an earlier --json file")
    options = parser.parse_args()
    if options.replay:
        print(table(json.loads(pathlib.Path(options.replay).read_text())))
        return
    cli = pathlib.Path(options.cli).resolve()
    python = python_of_build(cli)
    keep = set(filter(None, options.models.split(",")))
    cases = [c for c in CASES if not keep or c[0] in keep]
    data = {"started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), "before_worker": options.before_worker,
            "busy_at_start": busy(), "models": {c[0]: [] for c in cases}}
    sides = ["after", "plain"] + (["before"] if options.before_worker else [])
    for round_index in range(options.rounds):
        for label, model, extra, mode in cases:
            order = sides[round_index % len(sides):] + sides[:round_index % len(sides)]
            entry = {"order": order}
            for side in order:
                if side == "plain":
                    entry["plain"] = plain(python, model, mode)
                else:
                    entry[side] = fusescope(cli, model, extra, options.before_worker if side == "before" else None)
            data["models"][label].append(entry)
            print(f"round {round_index + 1} {label}: " + ", ".join(describe(side, entry[side]) for side in order),
                  file=sys.stderr, flush=True)
    data["busy_at_end"] = busy()
    data["finished"] = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    if options.json:
        pathlib.Path(options.json).write_text(json.dumps(data, indent=1))
    print(table(data))
    print(f"\n{data['busy_at_start']}\n{data['busy_at_end']}")


if __name__ == "__main__":
    main()
