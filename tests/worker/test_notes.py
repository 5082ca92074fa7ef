"""Result notes (fusescope_worker/notes.py): a run asking for CUDA graphs says when it got none."""
from conftest import run_model
from fusescope_worker import notes


def test_reduce_overhead_on_cpu_says_no_cuda_graphs_were_used():
    run = run_model("demo:mlp", "inductor", options={"mode": "reduce-overhead", "fullgraph": False,
                                                      "dynamic": None, "inductor": {}},
                    capture={"stages": False, "code": False})
    result = run.one("result")
    assert result["status"] == "ok", run
    assert len(result["notes"]) == 1, result["notes"]
    note = result["notes"][0]
    assert note.startswith("inductor@reduce-overhead on cpu: CUDA graphs apply only to CUDA kernels"), note
    assert "skipped them for 1 graph(s)" in note, note


def test_default_mode_has_no_notes():
    result = run_model("demo:mlp", "aot_eager", capture={"stages": False, "code": False}).one("result")
    assert result["status"] == "ok" and result["notes"] == []


def test_on_cuda_a_skip_is_noted_with_the_reason_torch_logs():
    """The CUDA path without a GPU: Inductor's own skip function, called as it is on CUDA."""
    import torch  # noqa: F401 - counters need torch._dynamo
    from torch._inductor.cudagraph_utils import log_cudagraph_skip_and_bump_counter

    with notes.CudagraphWatch("cuda", "inductor@reduce-overhead") as watch:
        log_cudagraph_skip_and_bump_counter("skipping cudagraphs due to mutated inputs (1 instances)")
    assert watch.skips == 1
    assert watch.notes() == ["inductor@reduce-overhead: Inductor skipped CUDA graphs for 1 graph(s): "
                             "skipping cudagraphs due to mutated inputs (1 instances)"]
    with notes.CudagraphWatch("cuda", "inductor@reduce-overhead") as quiet:
        pass
    assert quiet.notes() == []


def test_only_cuda_graph_options_are_watched():
    assert notes.wants_cudagraphs("inductor", {"mode": "reduce-overhead"})
    assert notes.wants_cudagraphs("inductor", {"mode": "max-autotune"})  # torch's mode table turns them on
    assert not notes.wants_cudagraphs("inductor", {"mode": "max-autotune-no-cudagraphs"})
    assert notes.wants_cudagraphs("inductor", {"mode": None, "inductor": {"triton.cudagraphs": True}})
    # An explicit option wins over the mode's default.
    assert not notes.wants_cudagraphs("inductor", {"mode": "reduce-overhead", "inductor": {"triton.cudagraphs": False}})
    assert not notes.wants_cudagraphs("inductor", {"mode": None})
    assert not notes.wants_cudagraphs("aot_eager", {"mode": "reduce-overhead"})
