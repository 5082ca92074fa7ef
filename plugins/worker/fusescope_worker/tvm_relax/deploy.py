"""The deployment view of the tvm row (docs/tvm.md, "Deployment"; the result's `deployment`,
docs/protocol.md): the built Relax executable exported as the shared library a user ships
(`Executable.export_library`, weights folded in as constants), its size next to the eager
model's torch.save(state_dict), and its load and first call in a process that never loaded it.

One fresh process (`FRESH_PROCESSES`): each one pays an `import tvm` of seconds before the
timed part, so a row's deployment view costs that once. `load_s` is
`tvm.runtime.load_module` + `relax.VirtualMachine`; `first_call_s` the first `main` call on the
row's inputs; `process_s` the child's whole life, start to exit (the import included).
Everything that fails is said in `error`, with the sizes still given; nothing raises into the run.
"""
import json
import os
import statistics
import subprocess
import sys
import time

from .. import deployment

ARTIFACT = "model.so"
LOADER = "tvm.runtime.load_module + relax.VirtualMachine"
FRESH_PROCESSES = 1
CHILD_TIMEOUT_S = 300

# The fresh process: imports tvm and numpy only (what a TVM deployment needs), then times the load
# and the first call. Prints one JSON line.
_CHILD = r"""
import json, sys, time
import numpy as np
import tvm
from tvm import relax
artifact, inputs = sys.argv[1], sys.argv[2]
start = time.perf_counter()
vm = relax.VirtualMachine(tvm.runtime.load_module(artifact), tvm.cpu())
load_s = time.perf_counter() - start
data = np.load(inputs)
args = [tvm.runtime.tensor(data["arg%d" % i], tvm.cpu()) for i in range(len(data.files))]
start = time.perf_counter()
vm["main"](*args)
print(json.dumps({"load_s": load_s, "first_call_s": time.perf_counter() - start}))
"""


def _tail(text: str, limit: int = 400) -> str:
    text = (text or "").strip()
    return text[-limit:] if text else "nothing on stderr"


def measure(executable, leaves, module, directory: str) -> dict:
    """The `deployment` object for the tvm row: export `executable` into `directory`, save the
    tensor inputs `leaves` next to it, and time a fresh process loading it."""
    out = {"artifact": ARTIFACT, "loader": LOADER, "artifact_bytes": None,
           "eager_model_bytes": deployment.eager_model_bytes(module), "load_s": None, "first_call_s": None,
           "process_s": None, "fresh_processes": 0, "load_samples_s": [], "first_call_samples_s": [],
           # Just written by this process: the page cache holds it (not measured here; the LibTorch
           # runner measures it with mincore).
           "file_cache": "unknown", "file_cache_resident": None}
    os.makedirs(directory, exist_ok=True)
    artifact = os.path.join(directory, ARTIFACT)
    try:
        executable.export_library(artifact)
        out["artifact_bytes"] = os.path.getsize(artifact)
    except Exception as exc:  # no C compiler, a read-only scratch: said, the run goes on
        out["error"] = f"export_library failed: {type(exc).__name__}: {exc}"
        return out
    inputs = os.path.join(directory, "inputs.npz")
    try:
        import numpy as np
        np.savez(inputs, **{f"arg{i}": t.detach().cpu().contiguous().numpy() for i, t in enumerate(leaves)})
    except Exception as exc:
        out["error"] = f"the inputs could not be saved for the fresh process: {type(exc).__name__}: {exc}"
        return out
    loads, firsts, lives = [], [], []
    for _ in range(FRESH_PROCESSES):
        start = time.perf_counter()
        try:
            child = subprocess.run([sys.executable, "-c", _CHILD, artifact, inputs], capture_output=True,
                                   text=True, timeout=CHILD_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            out["error"] = f"a fresh process did not load {ARTIFACT} within {CHILD_TIMEOUT_S} s"
            break
        lives.append(time.perf_counter() - start)
        lines = child.stdout.strip().splitlines()
        try:
            reply = json.loads(lines[-1]) if child.returncode == 0 and lines else None
        except ValueError:
            reply = None
        if not isinstance(reply, dict):
            out["error"] = (f"a fresh process loading {ARTIFACT} exited with status {child.returncode}: "
                            f"{_tail(child.stderr)}")
            break
        loads.append(float(reply["load_s"]))
        firsts.append(float(reply["first_call_s"]))
    if loads:
        out.update(load_s=statistics.median(loads), first_call_s=statistics.median(firsts),
                   process_s=statistics.median(lives), fresh_processes=len(loads),
                   load_samples_s=loads, first_call_samples_s=firsts)
    return out
