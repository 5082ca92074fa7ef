"""The roofs reproduce, and a plain copy lands on them (docs/roofline.md, "How we know").

In one process, with the worker's roof measurement (plugins/worker/fusescope_worker/roofs.py):
1. the roofs measured ROUNDS times: bandwidth and GFLOP/s per dtype must agree within 10 % of
   each other (max/min - 1);
2. `x.copy_(y)` on a 256 MiB float32 tensor, timed by the PyTorch profiler (the aten::copy_
   event, as FuseScope's CPU traces time kernels), COPIES times: its GB/s (2 x 256 MiB per copy,
   counted as the roofs count STREAM's copy) must land within 20 % of the bandwidth roof.

    python bench/roofline/roofs_check.py [--threads N] [--device cpu|cuda] [--json OUT.json]
Run it on a quiet machine (nothing else measuring, building or testing).
"""
import argparse
import json
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "plugins", "worker"))
from fusescope_worker import roofs

ROUNDS = 3
COPIES = 10
MIB = 1 << 20


def profiled_copy_gbs(device: torch.device) -> list:
    n = 256 * MIB // 4
    x = torch.zeros(n, device=device)
    y = torch.ones(n, device=device)
    x.copy_(y)  # pages touched before anything is timed
    activities = [torch.profiler.ProfilerActivity.CPU]
    if device.type == "cuda":
        activities.append(torch.profiler.ProfilerActivity.CUDA)
    with torch.profiler.profile(activities=activities) as prof:
        for _ in range(COPIES):
            x.copy_(y)
        if device.type == "cuda":
            torch.cuda.synchronize()
    events = [e for e in prof.events() if (e.name == "aten::copy_" if device.type == "cpu" else
                                           e.device_type == torch.autograd.DeviceType.CUDA)]
    durations = [(e.device_time if device.type == "cuda" else e.cpu_time) for e in events]  # microseconds
    return [2 * 256 * MIB / (us * 1e-6) / 1e9 for us in durations if us > 0]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    rounds = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        r = roofs.measure(device)
        r["wall_s"] = time.perf_counter() - start
        rounds.append(r)
    spread = {"bandwidth_gbs": max(r["bandwidth_gbs"] for r in rounds) / min(r["bandwidth_gbs"] for r in rounds) - 1}
    for dtype in rounds[0]["gflops"]:
        values = [r["gflops"].get(dtype) for r in rounds]
        if all(values):
            spread[f"gflops.{dtype}"] = max(values) / min(values) - 1
    copies = profiled_copy_gbs(device)
    roof = statistics.median(r["bandwidth_gbs"] for r in rounds)
    copy_median = statistics.median(copies)
    result = {"device": roofs.device_name(device), "threads": torch.get_num_threads(), "torch": torch.__version__,
              "rounds": [{"bandwidth_gbs": r["bandwidth_gbs"], "gflops": r["gflops"], "wall_s": r["wall_s"],
                          "unmeasured": r["unmeasured"]} for r in rounds],
              "spread": spread, "copy_gbs": copies, "copy_median_gbs": copy_median, "bandwidth_roof_gbs": roof,
              "copy_over_roof": copy_median / roof,
              "checks": {"roofs within 10 %": all(v <= 0.10 for v in spread.values()),
                         "copy within 20 % of the roof": abs(copy_median / roof - 1) <= 0.20,
                         "each measurement within 5 s (+1 s for the last repetition)":
                             all(r["wall_s"] <= roofs.BUDGET_S + 1.0 for r in rounds)}}
    print(json.dumps(result, indent=1))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    return 0 if all(result["checks"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
