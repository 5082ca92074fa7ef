"""Kernel traces on CPU from the PyTorch profiler (docs/protocol.md "Traces", docs/trace-view.md).

Inductor compiled with `cpp.enable_kernel_profile` wraps each generated C++ kernel in
RECORD_FUNCTION, so the profiler sees `cpp_fused_*` by name. Traced iterations are separate
from the timed samples; the same run measures their overhead (untraced vs traced calls).
"""
import re

from ..measure import timed_call
from . import overhead

SOURCE = "cpu-profiler"
ITERATION_MARK = "fusescope_iteration_"
CHUNK_EVENTS = 5000
# Frames that wrap a whole compiled call: they would hide the kernels under one long box.
WRAPPERS = ("Torch-Compiled Region", "## Call CompiledFxGraph", "TorchDynamo Cache Lookup", "Pregraph bytecode",
            "AOTDispatcher", "CompiledFunction", "## Call ", "autograd::engine", "ProfilerStep#")
# Inductor prefixes kernel record names with the graph (graph_0_cpp_fused_gelu_0); provenance
# and output_code.py know the kernel as cpp_fused_gelu_0.
GRAPH_PREFIX = re.compile(r"^graph_\d+_")


def kernel_profile_patch() -> dict:
    """Inductor settings that make generated kernels visible to the profiler by name."""
    from torch._inductor import config
    return {"cpp.enable_kernel_profile": True} if hasattr(config.cpp, "enable_kernel_profile") else {}


def _is_kernel(name: str) -> bool:
    return "cpp_fused" in name or name.startswith(("triton_", "cpp_", "extern_kernels"))


def _iteration_of(start: int, marks: list[tuple[int, int, int]]) -> int:
    for index, begin, end in marks:
        if begin <= start < end:
            return index
    return -1


def _top_level(events):
    """Events not nested in another kept event of the same thread (aten::expand under
    aten::addmm would draw on top of its parent)."""
    kept, open_until = [], {}
    for e in sorted(events, key=lambda e: (e.start_thread_id(), e.start_ns(), -e.duration_ns())):
        tid = e.start_thread_id()
        if e.start_ns() < open_until.get(tid, -1):
            continue
        kept.append(e)
        open_until[tid] = e.start_ns() + e.duration_ns()
    return kept


def convert(kineto_events) -> dict:
    """Profiler events -> one protocol trace chunk (without "type"/"id")."""
    marks, memory, ops = [], [], []
    for e in kineto_events:
        name = e.name()
        if name.startswith(ITERATION_MARK):
            marks.append((int(name[len(ITERATION_MARK):]), e.start_ns(), e.start_ns() + e.duration_ns()))
        elif name == "[memory]":
            if str(e.device_type()).endswith("CPU"):
                memory.append((e.start_ns(), e.nbytes()))
        elif not name.startswith(WRAPPERS) and not e.is_async():
            ops.append(e)
    names, index, tracks, events = [], {}, {}, []
    for e in _top_level(ops):
        name = GRAPH_PREFIX.sub("", e.name())
        if name not in index:
            index[name] = len(names)
            names.append(name)
        tid = e.start_thread_id()
        tracks.setdefault(tid, {"id": len(tracks) + 1, "name": f"CPU thread {tid}", "kind": "cpu_thread"})
        kind = "kernel" if _is_kernel(e.name()) else "cpu_op"
        events.append([e.start_ns(), e.duration_ns(), tracks[tid]["id"], index[name], kind, e.correlation_id(),
                       _iteration_of(e.start_ns(), marks)])
    running, mem = 0, []
    for t, delta in sorted(memory):
        running += delta
        mem.append([t, delta, running, -1])
    return {"source": SOURCE, "names": names, "tracks": list(tracks.values()), "events": events, "memory": mem,
            "dropped": 0, "iterations": len(marks), "overhead_ns": 0}


def send_chunks(channel, trace: dict) -> None:
    """Streams a trace as self-contained chunks of at most CHUNK_EVENTS events."""
    events, names = trace["events"], trace["names"]
    starts = list(range(0, max(len(events), 1), CHUNK_EVENTS))
    for n, start in enumerate(starts):
        part = events[start:start + CHUNK_EVENTS]
        used = sorted({e[3] for e in part})
        local = {old: new for new, old in enumerate(used)}
        chunk = dict(trace, names=[names[i] for i in used], events=[[*e[:3], local[e[3]], *e[4:]] for e in part],
                     memory=trace["memory"] if n == 0 else [], final=n == len(starts) - 1,
                     iterations=trace["iterations"])
        channel.send("trace", **chunk)


def record(call, sync, channel, iterations: int = 3) -> dict:
    """Traces `iterations` calls, streams the trace and returns the overhead measurement.

    One traced call runs first as the profiler's warm-up step (its events are discarded: the
    profiler's own first-call set-up is not the model's cost). Each iteration's time is taken
    inside its mark, so the mark's own cost is not counted as tracing overhead."""
    from torch.profiler import ProfilerActivity, profile, record_function, schedule

    def traced_block():
        times = []
        with profile(activities=[ProfilerActivity.CPU], profile_memory=True,
                     schedule=schedule(wait=0, warmup=1, active=iterations, repeat=1)) as prof:
            call()
            prof.step()
            for i in range(iterations):
                with record_function(f"{ITERATION_MARK}{i}"):
                    times.append(timed_call(call, sync))
                prof.step()
        return times, prof.profiler.kineto_results.events()

    timing, events = overhead.measure(call, sync, iterations, traced_block)
    trace = convert(events)
    send_chunks(channel, trace)
    kernels = sum(1 for e in trace["events"] if e[4] == "kernel")
    return {"source": SOURCE, "events": len(trace["events"]), "kernels": kernels, "iterations": iterations,
            **timing, "dropped": 0}
