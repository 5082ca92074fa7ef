#!/usr/bin/env python3
"""How much the CPU trace path (PyTorch profiler) slows the traced iterations, by model size.

Runs the real `fusescope-cli compare --trace` on demo:transformer-shaped models of growing size
(eager and inductor), reads `trace.untraced_ms`, `trace.traced_ms` and `trace.overhead_ratio`
from the JSON summary, and prints a Markdown table (docs/measurement.md keeps the latest). The
ratio is measured within one worker process: untraced calls before and after the traced ones
(fusescope_worker/tracing/overhead.py).

    bench/trace_overhead/trace_overhead.py [--cli build/dev/app/cli/fusescope-cli] [--repeats 3]
"""
import argparse
import json
import pathlib
import statistics
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
# (label, dim, heads, depth, batch, sequence): the first is demo:transformer itself.
SIZES = [("demo (dim 64, 2x32 tokens)", 64, 4, 2, 2, 32),
         ("dim 128, 8x64 tokens", 128, 4, 2, 8, 64),
         ("dim 256, 16x128 tokens", 256, 8, 2, 16, 128),
         ("dim 512, 16x256 tokens", 512, 8, 2, 16, 256)]
MODEL = """import torch
from fusescope_worker.models.demos import Transformer


def build_model():
    torch.manual_seed(0)
    return Transformer(dim={dim}, heads={heads}, depth={depth}, context={seq})


def example_inputs():
    return (torch.randint(0, 256, ({batch}, {seq})),)
"""
MEASURE = ["--warmup", "3", "--min-runs", "10", "--min-time", "0.2", "--max-time", "5"]


def run(cli: str, model: pathlib.Path, backends: str, warm: bool) -> list[dict]:
    args = [cli, "compare", str(model), "--backends", backends, "--trace", "--json", "-q", "--no-stages", *MEASURE]
    proc = subprocess.run(args + (["--warm-cache"] if warm else []), capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(args)} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout)["backends"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", default=str(ROOT / "build" / "dev" / "app" / "cli" / "fusescope-cli"))
    parser.add_argument("--backends", default="eager,inductor")
    parser.add_argument("--repeats", type=int, default=3, help="compare runs per size (the median ratio is shown)")
    options = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for label, dim, heads, depth, batch, seq in SIZES:
            model = pathlib.Path(scratch) / f"transformer_{dim}_{batch}x{seq}.py"
            model.write_text(MODEL.format(dim=dim, heads=heads, depth=depth, batch=batch, seq=seq))
            runs = [run(options.cli, model, options.backends, warm=r > 0) for r in range(options.repeats)]
            for i, backend in enumerate(runs[0]):
                traces = [r[i]["trace"] for r in runs]
                ratios = [t["overhead_ratio"] for t in traces]
                untraced = statistics.median(t["untraced_ms"] for t in traces)
                traced = statistics.median(t["traced_ms"] for t in traces)
                rows.append((label, backend["name"], untraced, traced, statistics.median(ratios), min(ratios),
                             max(ratios), (traced - untraced) * 1e3))
                print(f"{label} {backend['name']}: ratios {', '.join(f'{r:.3f}' for r in ratios)}", file=sys.stderr)
    print("| model | backend | untraced | traced | added per call | ratio (median) | min-max |")
    print("|---|---|---|---|---|---|---|")
    for label, backend, untraced, traced, ratio, low, high, added_us in rows:
        print(f"| {label} | {backend} | {untraced:.3f} ms | {traced:.3f} ms | {added_us:.0f} µs | {ratio:.3f} "
              f"| {low:.3f}-{high:.3f} |")


if __name__ == "__main__":
    main()
