#!/usr/bin/env python3
"""Gathers the seed corpora of the libFuzzer targets (docs/fuzzing.md) into OUT/<target>/.

Sources, all from the repository:
  - tests/fuzz/seeds/<target>/: hand-written valid inputs, one per report shape or protocol
    message type;
  - tests/fixtures/graphs/*.json: recorded backend runs, as a report and as a worker transcript;
  - the JSON raw strings (R"(...)") in tests/core/*.cpp: protocol lines the unit tests feed the
    stream and reports they parse, one transcript per test file and one per message.
Files are named by the SHA-1 of their content, as libFuzzer names its own, so reruns add nothing.

    scripts/fuzz_seeds.py build/fuzz/corpus
"""

import hashlib
import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
TARGETS = ("fuzz_report", "fuzz_worker_stream", "fuzz_export_stream", "fuzz_trace_chunk", "fuzz_kineto_trace",
           "fuzz_torch_trace")
HELLO = {"type": "hello", "protocol": "fusescope-worker", "version": 1, "worker": "0.1.0",
         "python": "3.11.7", "torch": "2.13.0+cpu", "devices": ["cpu"], "cuda": None, "pid": 1}
BYE = {"type": "bye"}
# fuzz_worker_stream's two header bytes (tests/fuzz/FuzzWorkerStream.cpp): chunks of up to
# 2^(byte0 & 15) bytes, lengths seeded by byte1. A few splits per transcript: whole lines,
# small chunks, one byte at a time.
STREAM_HEADERS = (b"?*", b"5q", b"0a")


def line(message):
    return json.dumps(message, separators=(",", ":")) + "\n"


def transcript(messages):
    return "".join(line(m) for m in [HELLO, *messages, BYE]).encode()


class Corpus:
    def __init__(self, out):
        self.out = out
        self.counts = dict.fromkeys(TARGETS, 0)
        for target in TARGETS:
            (out / target).mkdir(parents=True, exist_ok=True)

    def add(self, target, data):
        path = self.out / target / hashlib.sha1(data).hexdigest()
        if not path.exists():
            path.write_bytes(data)
            self.counts[target] += 1

    def add_stream(self, data):
        for header in STREAM_HEADERS:
            self.add("fuzz_worker_stream", header + data)

    def add_report(self, backends):
        report = {"format": "fusescope-report", "schema": 1, "created": "2026-11-30T08:00:00Z",
                  "generator": "scripts/fuzz_seeds.py", "model_spec": "demo:mlp", "device": "cpu",
                  "environment": dict(HELLO, protocol=1), "settings": {}, "backends": backends,
                  "search": None}
        self.add("fuzz_report", (json.dumps(report) + "\n").encode())


def export_streams(corpus):
    """fuzz_export_stream: the export worker's lines, each behind the target's token "fuzz"
    (tests/fuzz/FuzzExportStream.cpp): an export that replies and answers eager calls, one that
    fails, one whose eager call fails after the reply."""
    def stream(messages):
        return "".join("fuzz " + line(m) for m in messages).encode()

    progress = {"type": "progress", "phase": "load", "fraction": 0.5, "message": "loading"}
    reply = {"type": "torchscript_exported", "id": "torchscript", "method": "script", "path": "/tmp/m.pt",
             "inputs_path": "/tmp/in.pt", "script_error": None}
    runs = [
        [HELLO, progress, {"type": "model", "id": "torchscript", "parameters": 10}, reply,
         {"type": "eager_ms", "ms": None, "faults": None}, {"type": "eager_ms", "ms": 0.25, "faults": 0}, BYE],
        [HELLO, progress, {"type": "error", "id": "torchscript", "code": "model_failed", "message": "boom"}, BYE],
        [HELLO, reply, {"type": "eager_ms", "ms": 1.5, "faults": 2},
         {"type": "error", "id": "torchscript", "code": "model_failed", "message": "forward raised"}],
    ]
    for messages in runs:
        for header in STREAM_HEADERS:
            corpus.add("fuzz_export_stream", header + stream(messages))


def checked_in(corpus):
    for target in TARGETS:
        for path in sorted((ROOT / "tests/fuzz/seeds" / target).glob("*")):  # none for some targets
            corpus.add(target, path.read_bytes())


def kineto_traces(corpus):
    """tests/fixtures/kineto: PyTorch profiler traces (CPU, CUDA) and damaged copies."""
    for path in sorted((ROOT / "tests/fixtures/kineto").glob("*.json")):
        corpus.add("fuzz_kineto_trace", path.read_bytes())


def recorded_runs(corpus):
    for path in sorted((ROOT / "tests/fixtures/graphs").glob("*.json")):
        run = json.loads(path.read_text())
        if not isinstance(run, dict) or "stages" not in run:
            continue
        corpus.add_report([run])
        messages = [{"type": "stage", "id": "r1", "stage": s} for s in run.get("stages", [])]
        messages += [dict(c, type="code", id="r1") for c in run.get("code", [])]
        messages.append({"type": "result", "id": "r1", "backend": run.get("name"),
                         "status": run.get("status", "ok")})
        corpus.add_stream(transcript(messages))
        if isinstance(run.get("trace"), dict):
            corpus.add("fuzz_trace_chunk", line(dict(run["trace"], type="trace", final=True)).encode())


def fixture_reports(corpus):
    """tests/fixtures/reports: a real report with a trace (also cut into its stream messages and
    trace chunk), and the damaged copies the reader must refuse or repair."""
    for path in sorted((ROOT / "tests/fixtures/reports").rglob("*.fscope")):
        data = path.read_bytes()
        if len(data) <= 131072:  # fuzz.sh's -max_len; larger seeds would only be cut
            corpus.add("fuzz_report", data)
    good = json.loads((ROOT / "tests/fixtures/reports/good.fscope").read_text())
    for run in good.get("backends", []):
        if isinstance(run.get("trace"), dict):
            corpus.add("fuzz_trace_chunk", line(dict(run["trace"], type="trace", final=True)).encode())
        messages = [{"type": "stage", "id": "r1", "stage": s} for s in run.get("stages", [])[:2]]
        messages.append(dict({k: run[k] for k in ("compile_s", "accuracy", "graphs", "notes") if k in run},
                             type="result", id="r1", status="ok"))
        corpus.add_stream(transcript(messages))


RAW_STRING = re.compile(r'R"\((.*?)\)"', re.S)


def unit_test_literals(corpus):
    for path in sorted((ROOT / "tests/core").glob("*.cpp")):
        messages = []
        for text in RAW_STRING.findall(path.read_text()):
            try:
                value = json.loads(text)
            except ValueError:
                continue
            if not isinstance(value, dict):
                continue
            if value.get("format") == "fusescope-report":
                corpus.add("fuzz_report", text.encode())
            elif isinstance(value.get("type"), str) and value["type"] != "hello":
                messages.append(value)
                corpus.add_stream(transcript([value]))
                if value["type"] == "trace":
                    corpus.add("fuzz_trace_chunk", text.encode())
        if messages:
            corpus.add_stream(transcript(messages))


def torch_trace_logs(corpus):
    """tests/fixtures/torch_trace: TORCH_TRACE logs (a real one reduced, damaged copies)."""
    for path in sorted((ROOT / "tests/fixtures/torch_trace").glob("*.log")):
        data = path.read_bytes()
        corpus.add("fuzz_torch_trace", data[:131072])
        # Its records one by one too: small seeds reach each mapping path quickly.
        records, current = [], []
        for line in data.split(b"\n"):
            if not line.startswith(b"\t") and current:
                records.append(b"\n".join(current))
                current = []
            current.append(line)
        for record in records:
            corpus.add("fuzz_torch_trace", record[:131072])


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: fuzz_seeds.py OUT_DIR")
    corpus = Corpus(pathlib.Path(sys.argv[1]))
    checked_in(corpus)
    export_streams(corpus)
    kineto_traces(corpus)
    recorded_runs(corpus)
    fixture_reports(corpus)
    unit_test_literals(corpus)
    torch_trace_logs(corpus)
    print("seeds added: " + ", ".join(f"{t} {n}" for t, n in corpus.counts.items()))


if __name__ == "__main__":
    main()
