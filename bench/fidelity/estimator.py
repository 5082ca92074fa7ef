#!/usr/bin/env python3
"""FuseScope's latency estimator against torch.utils.benchmark's, with the machine's drift cancelled.

fidelity.py compares whole runs in separate processes, minutes apart; on a VM whose speed drifts
by more than the ±3 % target between those minutes (docs/measurement.md), it cannot tell whether
a gap is FuseScope's or the machine's. This benchmark asks the narrower question that is
FuseScope's alone: given the same compiled model in the same process, does the worker's timing
loop (interleaved eager/compiled pairs with settle calls, fusescope_worker.measure.interleaved,
the very code a run uses) read the same median as torch.utils.benchmark's `blocked_autorange`
(blocks of back-to-back calls of one function)?

It alternates short bursts of the two in one process, hundreds of times: one cycle is a
`blocked_autorange` of eager and of the compiled model, then one measuring loop of FuseScope's
with its default settings but a fixed number of pairs (warm-up 3, settle 1, `--pairs` pairs), the
order flipping every cycle. Drift slower than a cycle (about a second) hits both sides of a
cycle alike, so the ratio FuseScope median / reference median of each cycle is free of it. It
prints, per model and side, the median of those ratios with its 95 % order-statistic confidence
interval (fusescope_worker.confidence, the stopping rule's own) and the interquartile range.

Placement is the worker's (fusescope_worker.placement.apply: --pin, one thread, steady malloc).
Both sides time one `torch.compile(backend="inductor")` object; that FuseScope's capturing
compile runs as fast as a plain one was measured separately (docs/measurement.md, "Re-run on a
second VM"). What this leaves out, fidelity.py keeps: the fresh process, the CLI and the worker
around the loop, compile time.

    bench/fidelity/estimator.py [--models small_mlp.py,...] [--seconds 90] [--pairs 10] [--settle 1] [--pin 1]

Run it with the worker's Python (the build's FUSESCOPE_PYTHON) on an otherwise idle machine.
"""
import argparse
import importlib.util
import json
import os
import pathlib
import statistics
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "plugins" / "worker"))
MODELS = ["small_mlp.py", "medium_transformer.py", "large_residual_mlp.py"]


class Collect:
    """Stands in for the worker's channel: keeps the `samples` messages measure.interleaved sends."""

    def __init__(self):
        self.series: dict[str, list[float]] = {"eager": [], "compiled": []}

    def send(self, kind: str, **fields) -> None:
        if kind == "samples":
            self.series[fields["series"]].extend(fields["ms"])


def load(path: pathlib.Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.build_model().eval(), module.example_inputs()


def summary(ratios: list[float]) -> dict:
    from fusescope_worker.confidence import median_ci

    s = sorted(ratios)
    n = len(s)
    ci = median_ci(s)
    return {"median": statistics.median(s), "ci95": [ci[1], ci[2]] if ci else None,
            "iqr": [s[n // 4], s[(3 * n) // 4]], "cycles": n}


def measure_model(path: pathlib.Path, seconds: float, pairs: int, settle: int, threads: int) -> dict:
    import torch
    import torch.utils.benchmark as benchmark

    from fusescope_worker import measure

    model, inputs = load(path)
    compiled_model = torch.compile(model, backend="inductor")
    with torch.no_grad():
        def eager():
            return model(*inputs)

        def compiled():
            return compiled_model(*inputs)

        compiled()  # the compile
        for _ in range(10):
            eager()
            compiled()

        def reference(fn) -> float:
            timer = benchmark.Timer(stmt="fn()", globals={"fn": fn}, num_threads=threads)
            return timer.blocked_autorange(min_run_time=0.2).median * 1e3

        settings = {"warmup": 3, "min_runs": pairs, "max_runs": pairs, "min_time_s": 0.0, "max_time_s": 3600.0,
                    "confidence_pct": 0.0, "settle": settle}

        def fusescope() -> tuple[float, float]:
            channel = Collect()
            measure.interleaved(eager, compiled, settings, lambda: None, channel, lambda f, m: None)
            return statistics.median(channel.series["eager"]), statistics.median(channel.series["compiled"])

        ratios = {"eager": [], "compiled": []}
        medians = {"reference": [], "fusescope": []}
        end = time.perf_counter() + seconds
        cycle = 0
        while time.perf_counter() < end or cycle < 6:
            got = {}
            for side in (("reference", "fusescope") if cycle % 2 == 0 else ("fusescope", "reference")):
                got[side] = (reference(eager), reference(compiled)) if side == "reference" else fusescope()
            ratios["eager"].append(got["fusescope"][0] / got["reference"][0])
            ratios["compiled"].append(got["fusescope"][1] / got["reference"][1])
            for side, value in got.items():
                medians[side].append(value)
            cycle += 1
    ref_eager = [m[0] for m in medians["reference"]]
    return {"eager": summary(ratios["eager"]), "compiled": summary(ratios["compiled"]),
            "reference_eager_ms": {"median": statistics.median(ref_eager),
                                   "min": min(ref_eager), "max": max(ref_eager)},
            "reference_compiled_ms": statistics.median(m[1] for m in medians["reference"]),
            "raw": {"ratios": ratios, "medians": medians}}


def cell(s: dict) -> str:
    ci = f"[{s['ci95'][0]:.3f}, {s['ci95'][1]:.3f}]" if s["ci95"] else "n/a"
    return f"{s['median']:.3f} {ci} (IQR {s['iqr'][0]:.3f}–{s['iqr'][1]:.3f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--seconds", type=float, default=90.0, help="cycles per model for about this long")
    parser.add_argument("--pairs", type=int, default=10, help="pairs in each of FuseScope's measuring loops")
    parser.add_argument("--settle", type=int, default=1, help="FuseScope's settle calls (its default: 1)")
    parser.add_argument("--pin", default="1",
                        help="CPU numbers, comma-separated, as FuseScope's --pin ('' leaves the affinity alone)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--json", dest="json_out", help="write every number here")
    options = parser.parse_args()
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = tempfile.mkdtemp(prefix="estimator-cache-")
    from fusescope_worker import placement

    pin = sorted({int(c) for c in options.pin.split(",")}) if options.pin else None
    placed = placement.apply({"pin": pin, "threads": options.threads, "malloc": "steady"})
    print(f"placement {placed}; settle {options.settle}; {options.pairs} pairs per FuseScope loop", file=sys.stderr)
    results = {}
    print("| model | reference eager ms (min–max over cycles) | eager: FuseScope / reference | "
          "compiled: FuseScope / reference | cycles |")
    print("|---|---|---|---|---|")
    for name in options.models.split(","):
        got = measure_model(HERE / "models" / name, options.seconds, options.pairs, options.settle, placed["threads"])
        results[name] = got
        ref = got["reference_eager_ms"]
        print(f"| {name} | {ref['median']:.4g} ({ref['min']:.4g}–{ref['max']:.4g}) | {cell(got['eager'])} | "
              f"{cell(got['compiled'])} | {got['eager']['cycles']} |", flush=True)
    load_avg = os.getloadavg()[0]
    print(f"\nMedian of per-cycle ratios [95 % CI of that median]; load average {load_avg:.2f} at the end.")
    if options.json_out:
        pathlib.Path(options.json_out).write_text(json.dumps({"placement": placed, "settle": options.settle,
                                                               "pairs": options.pairs, "models": results}, indent=1))


if __name__ == "__main__":
    main()
