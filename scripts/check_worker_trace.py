#!/usr/bin/env python3
"""Checks a worker's JSON-lines output of one traced run (capture.trace) the way issue 4's GPU
check asks: kernels captured, zero dropped records, memory events present, and each generated
kernel (Inductor's cpp_fused_* / triton_*) matched by name to a kernel group of the post_fusion
stage that has provenance (the nodes it came from), and (docs/roofline.md) the machine's roofs
measured on the run's device, every kernel group with a byte count or a stated reason. Kernels
Inductor did not generate (cuBLAS, cuDNN, ATen's own) are listed, not failed: they map to
`extern_kernels.*` groups by call, not name.

    scripts/check_worker_trace.py WORKER_OUTPUT.jsonl      (prints JSON, then "TRACE-RESULT: PASS|FAIL ...")
Used by scripts/gpu-check.sh on CUDA; works the same on a CPU run.
"""
import json
import sys

GENERATED = ("cpp_fused", "triton_")


def check(lines: list[dict]) -> dict:
    result = next((m for m in lines if m.get("type") == "result"), None)
    chunks = [m for m in lines if m.get("type") == "trace"]
    post_fusion = [m["stage"] for m in lines if m.get("type") == "stage" and m["stage"]["name"] == "post_fusion"]
    groups = {g["name"]: g for s in post_fusion for g in s.get("groups", [])}
    kernels, memory = set(), 0
    for c in chunks:
        memory += len(c.get("memory", []))
        kernels |= {c["names"][e[3]] for e in c["events"] if e[4] == "kernel"}
    generated = sorted(k for k in kernels if k.startswith(GENERATED))
    unmatched = [k for k in generated if k not in groups or not groups[k].get("provenance")]
    summary = (result or {}).get("trace") or {}
    dropped = sum(c.get("dropped", 0) for c in chunks[-1:]) if chunks else None
    report = {"status": (result or {}).get("status"), "source": summary.get("source"), "chunks": len(chunks),
              "final_last": bool(chunks) and bool(chunks[-1].get("final")), "kernels": len(kernels),
              "generated_kernels": len(generated), "unmatched_generated": unmatched,
              "other_kernels": sorted(kernels - set(generated))[:20], "memory_events": memory,
              "dropped": summary.get("dropped", dropped), "overhead_ratio": summary.get("overhead_ratio"),
              "notes": (result or {}).get("notes"), "trace_error": summary.get("error")}
    roofs = (result or {}).get("roofs") or {}
    report["roofs"] = {k: roofs.get(k) for k in ("bandwidth_gbs", "gflops", "unmeasured", "device", "threads",
                                                 "seconds", "error")}
    uncounted = [g["name"] for g in groups.values()
                 if (g.get("cost") or {}).get("bytes") is None and not (g.get("cost") or {}).get("unknown_reason")]
    report["groups_without_cost_or_reason"] = uncounted
    report["checks"] = {"run ok": report["status"] == "ok", "kernels captured": len(kernels) > 0,
                        "generated kernels matched to provenance": bool(generated) and not unmatched,
                        "zero dropped": report["dropped"] == 0, "memory events": memory > 0,
                        "final chunk last": report["final_last"],
                        "roofs measured": bool(roofs.get("bandwidth_gbs")) and bool(roofs.get("gflops") or {}),
                        "every kernel group counted or says why": bool(groups) and not uncounted}
    return report


def main() -> int:
    lines = []
    with open(sys.argv[1], encoding="utf-8") as f:
        for line in f:
            if line.strip().startswith("{"):
                lines.append(json.loads(line))
    report = check(lines)
    print(json.dumps(report, indent=1))
    failed = [k for k, v in report["checks"].items() if not v]
    print("TRACE-RESULT:", "PASS" if not failed else "FAIL " + ", ".join(failed))
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())
