"""The CPU trace path in process (fusescope_worker/tracing/profiler.py): iterations, the
profiler's warm-up step left out, the overhead fields, chunking."""
import torch

from fusescope_worker.tracing import profiler


class Recorder:
    def __init__(self):
        self.sent = []

    def send(self, type_, **fields):
        self.sent.append((type_, fields))


def _model():
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
    x = torch.randn(8, 16)
    return lambda: net(x)


def test_every_event_belongs_to_a_traced_iteration_and_no_step_frames_are_kept():
    channel, calls = Recorder(), []
    call = _model()

    def counted():
        calls.append(1)
        return call()

    with torch.no_grad():
        summary = profiler.record(counted, lambda: None, channel, iterations=4)
    # 4 untraced before, 1 profiler warm-up, 4 traced, 4 untraced after.
    assert len(calls) == 13
    chunks = [fields for kind, fields in channel.sent if kind == "trace"]
    assert chunks and chunks[-1]["final"]
    events = [e for c in chunks for e in c["events"]]
    names = {n for c in chunks for n in c["names"]}
    assert summary["iterations"] == 4 and summary["events"] == len(events) > 0
    # The warm-up step's events are discarded: each kept event lies inside one of the 4 marks.
    assert {e[6] for e in events} == {0, 1, 2, 3}, sorted({e[6] for e in events})
    assert "aten::addmm" in names or "aten::linear" in names, names
    assert not any(n.startswith(("ProfilerStep#", profiler.ITERATION_MARK)) for n in names), names
    assert summary["untraced_ms"] > 0 and summary["traced_ms"] > 0
    assert summary["overhead_ratio"] == summary["traced_ms"] / summary["untraced_ms"]


def test_large_traces_stream_as_bounded_self_contained_chunks():
    trace = {"source": profiler.SOURCE, "names": [f"k{i}" for i in range(3)], "tracks": [], "memory": [[0, 1, 1, -1]],
             "events": [[i, 1, 1, i % 3, "kernel", i, 0] for i in range(2 * profiler.CHUNK_EVENTS + 7)],
             "dropped": 0, "iterations": 1, "overhead_ns": 0}
    channel = Recorder()
    profiler.send_chunks(channel, trace)
    chunks = [fields for _, fields in channel.sent]
    assert [len(c["events"]) for c in chunks] == [profiler.CHUNK_EVENTS, profiler.CHUNK_EVENTS, 7]
    assert [c["final"] for c in chunks] == [False, False, True]
    assert chunks[0]["memory"] and not chunks[1]["memory"]
    for c in chunks:  # names are local to each chunk
        assert all(c["names"][e[3]] == f"k{e[5] % 3}" for e in c["events"])


def test_cuda_path_times_untraced_calls_around_the_traced_block(monkeypatch):
    """cuda_trace.record's plumbing without a GPU: the CUPTI tracer replaced by a recorder of
    what happens inside its block (the real tracer is tested by tests/cupti and gpu-check.sh)."""
    from fusescope_worker.tracing import cuda_trace

    log = []

    class FakeTrace:
        def __init__(self, send):
            self.chunks, self.dropped = 2, 0

        def __enter__(self):
            log.append("start")
            return self

        def __exit__(self, *exc):
            log.append("stop")
            return False

        def begin_iteration(self, i):
            log.append(f"iteration {i}")

    monkeypatch.setattr(cuda_trace.cupti, "CuptiTrace", FakeTrace)
    summary = cuda_trace.record(lambda: log.append("call"), lambda: None, Recorder(), iterations=2)
    assert log == ["call", "call", "start", "iteration 0", "call", "iteration 1", "call", "stop", "call", "call"]
    assert summary["source"] == "cupti" and summary["chunks"] == 2 and summary["dropped"] == 0
    assert summary["untraced_ms"] >= 0 and summary["traced_ms"] >= 0 and summary["iterations"] == 2
