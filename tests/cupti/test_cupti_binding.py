"""The worker's ctypes binding of libfusescope_cupti on this machine.

ctest sets FUSESCOPE_CUPTI_LIB to the built library (empty when it was not built) and
FUSESCOPE_HAVE_CUPTI to 1 or 0. Without a GPU, everything here must report "unavailable" with
a reason, never crash."""
import ctypes
import json
import os
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "plugins" / "worker"))

from fusescope_worker.tracing import cupti  # noqa: E402

BUILT = os.environ.get("FUSESCOPE_HAVE_CUPTI") == "1" and bool(os.environ.get("FUSESCOPE_CUPTI_LIB"))


def driver_present():
    try:
        ctypes.CDLL("libcuda.so.1")
        return True
    except OSError:
        return False


@pytest.fixture(autouse=True)
def fresh_library(monkeypatch):
    monkeypatch.setattr(cupti, "_library", None)


def test_missing_library_is_reported_as_not_built(monkeypatch, tmp_path):
    monkeypatch.setenv("FUSESCOPE_CUPTI_LIB", str(tmp_path / "libfusescope_cupti.so"))
    available, reason = cupti.cupti_availability()
    assert not available
    assert reason.startswith("libfusescope_cupti.so not built (CUDA toolkit with CUPTI not found at build time)")
    assert str(tmp_path) in reason


def test_library_is_looked_for_next_to_the_worker_package(monkeypatch):
    monkeypatch.delenv("FUSESCOPE_CUPTI_LIB", raising=False)
    package_parent = pathlib.Path(cupti.__file__).resolve().parents[2]
    assert cupti.library_path() == package_parent / "libfusescope_cupti.so"


def test_a_file_that_is_not_a_library_is_reported(monkeypatch, tmp_path):
    bogus = tmp_path / "libfusescope_cupti.so"
    bogus.write_text("not an ELF file")
    monkeypatch.setenv("FUSESCOPE_CUPTI_LIB", str(bogus))
    available, reason = cupti.cupti_availability()
    assert not available
    assert "could not be loaded" in reason


@pytest.mark.skipif(not BUILT, reason="libfusescope_cupti was not built here")
def test_built_library_loads_without_a_driver_and_reports_why_it_is_unavailable():
    # Loading must work on any machine; only starting needs a driver and a device.
    lib = cupti._load()
    assert lib.fscupti_dropped() == 0
    available, reason = cupti.cupti_availability()
    if driver_present():
        pytest.skip("a CUDA driver is present; scripts/gpu-check.sh covers this machine")
    assert not available
    assert reason.startswith("no CUDA device")


@pytest.mark.skipif(not BUILT, reason="libfusescope_cupti was not built here")
def test_starting_without_a_driver_raises_a_clear_error():
    if driver_present():
        pytest.skip("a CUDA driver is present")
    sent = []
    with pytest.raises(cupti.CuptiError) as info:
        with cupti.CuptiTrace(lambda type_, **fields: sent.append((type_, fields))):
            pass
    assert info.value.code == cupti.ERROR_NO_DRIVER
    assert "no CUDA driver" in str(info.value) and "libcuda.so.1" in str(info.value)
    assert sent == []


@pytest.mark.skipif(not BUILT, reason="libfusescope_cupti was not built here")
def test_chunks_become_trace_messages(monkeypatch):
    # The sink path without CUPTI: call the ctypes callback the library would call.
    sent = []
    trace = cupti.CuptiTrace(lambda type_, **fields: sent.append((type_, fields)))
    chunk = json.dumps({"source": "cupti", "names": ["k"], "tracks": [], "events": [], "memory": [],
                        "dropped": 0, "iterations": 0, "overhead_ns": 0, "final": True}).encode()
    trace._sink(chunk, len(chunk), None)
    assert sent == [("trace", json.loads(chunk))]
    assert trace.chunks == 1


def test_pytorch_profiler_makes_cupti_unavailable(monkeypatch):
    torch = pytest.importorskip("torch")
    monkeypatch.setattr(cupti, "_load", lambda: None)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]):
        available, reason = cupti.cupti_availability()
    assert not available
    assert reason == cupti.IN_USE_REASON
