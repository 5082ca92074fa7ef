#!/usr/bin/env bash
# Checks FuseScope's CUPTI tracer on a machine with an NVIDIA GPU (docs/cupti-tracer.md).
# Builds only the tracer (plugins/cupti_tracer on its own: no Qt needed), traces a tiny CUDA
# workload and checks: kernels captured, chunks streamed before stop, zero dropped records,
# memory events present; then demo:transformer under inductor on cuda with the trace on (kernels
# matched to provenance, scripts/check_worker_trace.py), and the GPU-only backends (cudagraphs,
# inductor@reduce-overhead, nvfuser, and inductor at int8_weight_only / int8_dynamic through
# torchao) through the worker on demo:transformer. Uses whatever torch is installed (no download); without a CUDA torch it
# compiles a small .cu program with nvcc instead. Results go to $OUT when set.
# Usage: scripts/gpu-check.sh   (env: PYTHON, FUSESCOPE_CUPTI_ROOT, OUT)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-build/gpu-check/out}"
BUILD=build/gpu-check
mkdir -p "$OUT" "$BUILD"
PYTHON="${PYTHON:-$(command -v python3 || command -v python)}"
log() { echo "[gpu-check] $*" | tee -a "$OUT/summary.txt"; }
: > "$OUT/summary.txt"

nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | sed 's/^/[gpu-check] gpu: /' | tee -a "$OUT/summary.txt"
HAVE_TORCH_CUDA=0
if [ -n "$PYTHON" ] && "$PYTHON" -c "import torch,sys; sys.exit(0 if torch.cuda.is_available() else 1)" 2>/dev/null; then
  HAVE_TORCH_CUDA=1
  log "torch: $("$PYTHON" -c 'import torch; print(torch.__version__, "cuda", torch.version.cuda)')"
fi

# Build against the CUPTI torch ships, when it ships one: two CUPTI versions in one process
# do not work together.
if [ -z "${FUSESCOPE_CUPTI_ROOT:-}" ] && [ "$HAVE_TORCH_CUDA" = 1 ]; then
  FUSESCOPE_CUPTI_ROOT="$("$PYTHON" - <<'EOF' 2>/dev/null
import glob, os, site, sys
roots = site.getsitepackages() + [site.getusersitepackages()]
for root in roots:
    for lib in sorted(glob.glob(os.path.join(root, "nvidia", "*", "lib", "libcupti.so*"))):
        print(os.path.dirname(os.path.dirname(lib))); sys.exit()
EOF
)"
fi
log "CUPTI root hint: ${FUSESCOPE_CUPTI_ROOT:-<none: /usr/local/cuda>}"
GEN=(); command -v ninja >/dev/null && GEN=(-G Ninja)
if ! cmake -S plugins/cupti_tracer -B "$BUILD" "${GEN[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
       ${FUSESCOPE_CUPTI_ROOT:+-DFUSESCOPE_CUPTI_ROOT="$FUSESCOPE_CUPTI_ROOT"} > "$OUT/build.log" 2>&1 \
   || ! cmake --build "$BUILD" -j 8 --target fusescope_cupti >> "$OUT/build.log" 2>&1; then
  log "FAIL: building the tracer (see build.log)"; tail -20 "$OUT/build.log"; exit 1
fi
LIB="$PWD/$BUILD/libfusescope_cupti.so"
ldd "$LIB" | grep -i cupti | sed 's/^/[gpu-check] links /' | tee -a "$OUT/summary.txt"
export FUSESCOPE_CUPTI_LIB="$LIB"

if [ "$HAVE_TORCH_CUDA" = 1 ]; then
  log "workload: torch matmuls and adds through the worker's CuptiTrace binding"
  "$PYTHON" - "$OUT" <<'EOF' 2>&1 | tee -a "$OUT/summary.txt"
import json, os, sys, threading
sys.path.insert(0, "plugins/worker")
import torch
from fusescope_worker.tracing import cupti
out = sys.argv[1]
print("availability:", cupti.cupti_availability())
chunks, stopping = [], threading.Event()
def send(type_, **chunk):
    chunk["_before_stop"] = not stopping.is_set()
    chunks.append(chunk)
x = torch.randn(1024, 1024, device="cuda"); torch.cuda.synchronize(); torch.cuda.empty_cache()
# Small buffers, so buffers complete (and stream) while the workload still runs.
with cupti.CuptiTrace(send, buffer_bytes=256 << 10) as trace:
    for it in range(3):
        torch.cuda.synchronize(); trace.begin_iteration(it)
        y = torch.empty(4096, 4096, device="cuda")  # new cudaMalloc: a MEMORY2 record
        for _ in range(400):
            x = torch.relu(x @ x * 1e-3 + 1.0)
        y.zero_(); host = x.cpu(); del y
        torch.cuda.synchronize(); torch.cuda.empty_cache()  # cudaFree: a release record
    stopping.set()
with open(os.path.join(out, "chunks.jsonl"), "w") as f:
    for c in chunks: f.write(json.dumps(c) + "\n")
events = [(c["names"][e[3]], e[4]) for c in chunks for e in c["events"]]
kinds = {}
for _, k in events: kinds[k] = kinds.get(k, 0) + 1
kernels = sorted({n for n, k in events if k == "kernel"})
memory = sum(len(c["memory"]) for c in chunks)
result = {"chunks": len(chunks), "chunks_before_stop": sum(c["_before_stop"] for c in chunks),
          "final_last": bool(chunks and chunks[-1]["final"]), "kinds": kinds, "memory_events": memory,
          "dropped": trace.dropped, "iterations": max((c["iterations"] for c in chunks), default=0),
          "kernel_names": kernels[:20],
          "cupti_libs_loaded": sorted({l.split()[-1] for l in open("/proc/self/maps") if "libcupti" in l})}
checks = {"kernels captured": kinds.get("kernel", 0) > 0, "streamed before stop": result["chunks_before_stop"] > 0,
          "final chunk last": result["final_last"], "zero dropped": trace.dropped == 0,
          "memory events": memory > 0, "memcpy and memset": kinds.get("memcpy", 0) > 0 and kinds.get("memset", 0) > 0,
          "iterations": result["iterations"] == 3, "one libcupti": len(result["cupti_libs_loaded"]) == 1}
result["checks"] = checks
json.dump(result, open(os.path.join(out, "result.json"), "w"), indent=1)
# A second client: the PyTorch profiler tracing CUDA must make our start fail clearly, not crash.
with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]):
    try:
        with cupti.CuptiTrace(lambda *a, **k: None): pass
        result["with_pytorch_profiler"] = "started (no clear in-use error: CUPTI allowed both)"
    except cupti.CuptiError as exc:
        result["with_pytorch_profiler"] = f"refused (code {exc.code}): {exc}"
json.dump(result, open(os.path.join(out, "result.json"), "w"), indent=1)
print(json.dumps(result, indent=1))
print("RESULT:", "PASS" if all(checks.values()) else "FAIL " + ", ".join(k for k, v in checks.items() if not v))
EOF
else
  command -v nvcc >/dev/null || { log "FAIL: neither a CUDA torch nor nvcc here"; exit 1; }
  log "workload: no CUDA torch; a small .cu program through the C API"
  cat > "$BUILD/workload.cu" <<'EOF'
#include "fusescope_cupti.h"
#include <cstdio>
__global__ void scale(float* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= 2.f; }
static void sink(const char* c, size_t n, void* f) { fwrite(c, 1, n, (FILE*)f); fputc('\n', (FILE*)f); }
int main(int, char** argv) {
  FILE* f = fopen(argv[1], "w"); fscupti_set_sink(sink, f);
  fscupti_config cfg = {0, 256 << 10, 0};
  if (fscupti_start(&cfg)) { fprintf(stderr, "start: %s\n", fscupti_last_error()); return 1; }
  const int n = 1 << 20; float* d; static float h[1 << 20];
  for (int it = 0; it < 3; ++it) {
    cudaDeviceSynchronize(); fscupti_begin_iteration(it);
    cudaMalloc(&d, n * sizeof(float)); cudaMemset(d, 0, n * sizeof(float));
    for (int k = 0; k < 500; ++k) scale<<<n / 256, 256>>>(d, n);
    cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost); cudaFree(d);
  }
  if (fscupti_stop()) { fprintf(stderr, "stop: %s\n", fscupti_last_error()); return 1; }
  printf("dropped %llu\n", (unsigned long long)fscupti_dropped()); fclose(f); return 0;
}
EOF
  nvcc -o "$BUILD/workload" "$BUILD/workload.cu" -Iplugins/cupti_tracer -L"$BUILD" -lfusescope_cupti \
       -Xlinker -rpath -Xlinker "$PWD/$BUILD" >> "$OUT/build.log" 2>&1 || { log "FAIL: nvcc"; exit 1; }
  "$BUILD/workload" "$OUT/chunks.jsonl" 2>&1 | tee -a "$OUT/summary.txt"
  python3 - "$OUT" <<'EOF' 2>&1 | tee -a "$OUT/summary.txt"
import json, os, sys
chunks = [json.loads(l) for l in open(os.path.join(sys.argv[1], "chunks.jsonl")) if l.strip()]
kinds = {}
for c in chunks:
    for e in c["events"]: kinds[e[4]] = kinds.get(e[4], 0) + 1
checks = {"kernels captured": kinds.get("kernel", 0) > 0, "several chunks": len(chunks) > 1,
          "final chunk last": bool(chunks) and chunks[-1]["final"], "zero dropped": sum(c["dropped"] for c in chunks) == 0,
          "memory events": sum(len(c["memory"]) for c in chunks) > 0}
print(json.dumps({"chunks": len(chunks), "kinds": kinds, "checks": checks}, indent=1))
print("RESULT:", "PASS" if all(checks.values()) else "FAIL " + ", ".join(k for k, v in checks.items() if not v))
EOF
fi

# Issue 4's check: demo:transformer under inductor on cuda with the trace on, through the worker
# (what `fusescope-cli compare --device cuda --trace` runs): kernels captured, each Triton kernel
# matched to a post_fusion kernel group with provenance, zero dropped, memory events.
if [ "$HAVE_TORCH_CUDA" = 1 ]; then
  log "inductor on demo:transformer, cuda, --trace (CUPTI through the worker)"
  printf '{"type":"run","id":"t","model":"demo:transformer","backend":"inductor","device":"cuda","options":{"mode":null},"measure":{"warmup":2,"min_runs":10,"min_time_s":0.2,"max_runs":200,"max_time_s":5},"capture":{"stages":true,"code":true,"trace":true}}\n' \
    | (cd plugins/worker && timeout 600 "$PYTHON" -m fusescope_worker) > "$OUT/worker-trace.jsonl" 2>>"$OUT/worker.log"
  "$PYTHON" scripts/check_worker_trace.py "$OUT/worker-trace.jsonl" 2>&1 | tee -a "$OUT/summary.txt"
fi

# GPU-only backends of issue 5 through the worker itself (no Qt build needed): cudagraphs,
# inductor with mode reduce-overhead (CUDA graphs) and nvfuser (needs lightning-thunder + nvfuser
# installed; otherwise its unavailable reason is logged, which is not a failure of this check).
if [ "$HAVE_TORCH_CUDA" = 1 ]; then
  # BACKEND:MODE[:PRECISION]; the int8 precisions (docs/quantization.md) need torchao in this
  # Python, else they are reported unavailable with the reason.
  for spec in "cudagraphs:" "inductor:reduce-overhead" "nvfuser:" "inductor::int8_weight_only" "inductor::int8_dynamic"; do
    backend="${spec%%:*}"; rest="${spec#*:}"; mode="${rest%%:*}"; precision=fp32
    [ "$rest" != "$mode" ] && precision="${rest#*:}"
    tag="$backend${mode:+-$mode}"; [ "$precision" != fp32 ] && tag="$tag-$precision"
    log "backend $backend${mode:+@$mode} ($precision) on demo:transformer, cuda"
    modejson=null; [ -n "$mode" ] && modejson="\"$mode\""
    printf '{"type":"run","id":"g","model":"demo:transformer","backend":"%s","device":"cuda","options":{"mode":%s},"workload":{"precision":"%s"},"measure":{"warmup":2,"min_runs":10,"min_time_s":0.2,"max_runs":200,"max_time_s":5}}\n' \
      "$backend" "$modejson" "$precision" \
      | (cd plugins/worker && timeout 600 "$PYTHON" -m fusescope_worker) > "$OUT/worker-$tag.jsonl" 2>>"$OUT/worker.log"
    "$PYTHON" - "$OUT/worker-$tag.jsonl" <<'EOF' 2>&1 | tee -a "$OUT/summary.txt"
import json, sys
msgs = [json.loads(l) for l in open(sys.argv[1]) if l.strip().startswith("{")]
res = next((m for m in msgs if m.get("type") == "result"), None)
stages = [m["stage"]["name"] for m in msgs if m.get("type") == "stage"]
samples = sum(len(m["ms"]) for m in msgs if m.get("type") == "samples" and m["series"] == "compiled")
if res is None:
    print("BACKEND-RESULT: FAIL no result message"); sys.exit()
err = res.get("error") or {}
acc = res.get("accuracy") or {}
print(json.dumps({"backend": res["backend"], "status": res["status"], "error": err.get("message"), "stages": stages,
                  "compiled_samples": samples, "compile_s": res.get("compile_s"), "accuracy_pass": acc.get("pass"),
                  "peak_memory_bytes": res.get("peak_memory_bytes"), "notes": res.get("notes"),
                  "quantization": res.get("quantization")}, indent=1))
ok = res["status"] == "ok" and acc.get("pass") and samples > 0
unavailable = err.get("code") == "backend_unavailable"
print("BACKEND-RESULT:", "PASS" if ok else ("UNAVAILABLE " + err.get("message", "") if unavailable else "FAIL"))
EOF
  done
fi
grep -q "^RESULT: PASS" "$OUT/summary.txt" && ! grep -q "BACKEND-RESULT: FAIL" "$OUT/summary.txt" \
  && ! grep -q "TRACE-RESULT: FAIL" "$OUT/summary.txt"
