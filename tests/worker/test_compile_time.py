"""Compile time by phase (compile_timing.py, docs/measurement.md "Compile time"): the breakdown
of scripted torch timer events, and the phase each timer belongs to. The worker runs that check
compile_s, capture_s, warm_compile_s and the breakdown of real compiles are in test_stages.py
and test_training.py (they share those runs)."""
import pytest

from fusescope_worker import compile_timing
from fusescope_worker.compile_timing import breakdown, phase_of

MS = 1_000_000


def events(*spec):
    """("B"|"E", name, ms[, compile id]) -> TimerEvents.events."""
    return [(kind, name, int(ms * MS), cid[0] if cid else None) for kind, name, ms, *cid in spec]


def test_nested_timers_give_each_phase_its_own_time_and_the_rest_is_named():
    # call from 0 to 100 ms: Dynamo's timer from 2 to 90, the backend inside it, Inductor inside that
    ev = events(("B", "dynamo", 2), ("B", "entire_frame_compile", 3, "0/0"), ("B", "bytecode_tracing", 4, "0/0"),
                ("E", "bytecode_tracing", 14), ("B", "backend_compile", 15, "0/0"),
                ("B", "create_aot_dispatcher_function", 16, "0/0"), ("B", "GraphLowering.run", 20, "0/0"),
                ("E", "GraphLowering.run", 30), ("B", "async_compile.wait", 30, "0/0"),
                ("E", "async_compile.wait", 80), ("E", "create_aot_dispatcher_function", 82),
                ("E", "backend_compile", 84), ("B", "build_guards", 84, "0/0"), ("E", "build_guards", 88),
                ("E", "entire_frame_compile", 89), ("E", "dynamo", 90))
    phases, graphs = breakdown(ev, 0, 100 * MS)
    assert phases == pytest.approx({"dynamo_tracing": (2 + 3 + 10) / 1000,  # dynamo, frame, tracing
                                    "dynamo_guards": 0.004, "aot_autograd": 0.006,
                                    "backend_compile": 0.003, "inductor_lowering": 0.010,
                                    "kernel_compilation": 0.050, "first_run": 0.010, "unaccounted": 0.002})
    assert sum(phases.values()) == pytest.approx(0.100)
    # the outer timer opened before the compile id existed: its own time joins the id found inside
    assert [g["compile_id"] for g in graphs] == ["0/0"]
    assert graphs[0]["total_s"] == pytest.approx(0.088)


def test_two_compiles_are_split_by_compile_id_and_the_gap_between_is_first_run():
    ev = events(("B", "dynamo", 0), ("B", "bytecode_tracing", 0, "0/0"), ("E", "bytecode_tracing", 10),
                ("E", "dynamo", 10), ("B", "dynamo", 30), ("B", "bytecode_tracing", 30, "1/0"),
                ("E", "bytecode_tracing", 35), ("E", "dynamo", 35))
    phases, graphs = breakdown(ev, 0, 40 * MS)
    assert phases == pytest.approx({"dynamo_tracing": 0.015, "first_run": 0.025, "unaccounted": 0.0})
    assert {g["compile_id"]: g["total_s"] for g in graphs} == pytest.approx({"0/0": 0.010, "1/0": 0.005})


def test_unknown_timers_take_their_parents_phase_and_unmatched_ends_are_skipped():
    ev = events(("E", "opened_before_recording", 1), ("B", "Scheduler.codegen", 2, "0/0"),
                ("B", "some_new_torch_timer", 3, "0/0"), ("E", "some_new_torch_timer", 5),
                ("E", "Scheduler.codegen", 6), ("B", "a_top_level_timer_we_do_not_know", 6),
                ("E", "a_top_level_timer_we_do_not_know", 7))
    phases, _ = breakdown(ev, 0, 10 * MS)
    assert phases == pytest.approx({"code_generation": 0.004, "other_timers": 0.001, "first_run": 0.003,
                                    "unaccounted": 0.002})


def test_a_timer_left_open_by_an_exception_ends_with_its_parent():
    ev = events(("B", "dynamo", 0), ("B", "bytecode_tracing", 1, "0/0"), ("E", "dynamo", 5))
    phases, _ = breakdown(ev, 0, 5 * MS)
    assert phases["dynamo_tracing"] == pytest.approx(0.005)


def test_no_timers_leave_everything_unaccounted():
    phases, graphs = breakdown([], 0, 7 * MS)
    assert phases == pytest.approx({"first_run": 0.0, "unaccounted": 0.007}) and graphs == []


@pytest.mark.parametrize("name, phase", [
    ("dynamo", "dynamo_tracing"), ("compile_attempt_1", "dynamo_tracing"), ("build_guards", "dynamo_guards"),
    ("aot_collect_metadata", "aot_autograd"), ("pass.post_grad_passes.stable_sort", "inductor_graph_passes"),
    ("_recursive_joint_graph_passes", "inductor_graph_passes"), ("GraphLowering.run", "inductor_lowering"),
    ("Scheduler.__init__", "inductor_scheduling"), ("PythonWrapperCodegen.generate", "code_generation"),
    ("compile_file", "kernel_compilation"), ("async_compile.wait", "kernel_compilation"),
    ("CachingAutotuner.benchmark_all_configs", "autotuning"), ("AOTAutogradCache.inductor_load", "compile_cache"),
    ("inductor_codecache_torch_key", "compile_cache"), ("something_else", None)])
def test_timer_phases(name, phase):
    assert phase_of(name) == phase


def test_every_phase_the_rules_give_is_documented():
    assert set(compile_timing._EXACT.values()) <= set(compile_timing.PHASES)


def test_compiling_does_what_plain_torch_compile_does_before_the_first_call():
    # torch.compile(backend="inductor") imports Inductor's compile_fx while it builds the model
    # (get_compiler_config); through our backend object that import must happen there too, not in
    # the first call that compile_s times. A fresh process, so nothing imported it before.
    import subprocess
    import sys

    from conftest import WORKER_DIR
    script = (
        "import sys, torch\n"
        "from fusescope_worker.compile_timing import compile_module\n"
        "from fusescope_worker.capture.backend_wrapper import CapturingBackend\n"
        "from fusescope_worker.shapes import quiet_session\n"
        "backend = CapturingBackend('inductor', {'mode': None, 'inductor': {}}, quiet_session('inductor'))\n"
        "assert 'torch._inductor.compile_fx' not in sys.modules\n"
        "compile_module(torch.nn.Linear(2, 2), backend, {'fullgraph': False, 'dynamic': None})\n"
        "print('torch._inductor.compile_fx' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=str(WORKER_DIR),
                         timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "True", out.stdout
