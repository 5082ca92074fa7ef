"""fusescope_sweep without torch: the spec and its jobs, resume decisions, CPU placement
(docs/sweeps.md)."""

import pytest

from fusescope_sweep import placement, spec, state


def parse(text, tmp_path):
    p = tmp_path / "s.toml"
    p.write_text(text)
    return spec.load(str(p))


BASE = """
[sweep]
models = ["demo:mlp", "m.py"]
backends = ["eager", "inductor{epilogue_fusion=false}"]
"""


def test_jobs_are_the_product_of_models_backend_sets_and_axes(tmp_path):
    s = parse(BASE + """
[axes]
precision = ["fp32", "bf16"]
threads = [1, 2]
[measure]
min_runs = 5
stages = false
""", tmp_path)
    assert len(s.jobs) == 2 * 2 * 2
    job = s.jobs[0]
    assert job.model == "demo:mlp" and job.backends == ["eager", "inductor{epilogue_fusion=false}"]
    assert job.args[:2] == ["--backends", "eager,inductor{epilogue_fusion=false}"]
    assert "--no-stages" in job.args and ["--min-runs", "5"] == job.args[job.args.index("--min-runs"):][:2]
    assert s.jobs[-1].model == str(tmp_path / "m.py")  # files are relative to the spec
    assert {tuple(sorted(j.axes.items())) for j in s.jobs[:4]} == {
        (("precision", p), ("threads", t)) for p in ("fp32", "bf16") for t in (1, 2)}
    # Ids are stable from run to run and distinct.
    again = parse(BASE + "[axes]\nprecision = ['fp32', 'bf16']\nthreads = [1, 2]\n[measure]\nmin_runs = 5\n"
                  "stages = false\n", tmp_path)
    assert [j.id for j in again.jobs] == [j.id for j in s.jobs]
    assert len({j.id for j in s.jobs}) == len(s.jobs)


def test_several_backend_sets_are_separate_jobs(tmp_path):
    s = parse('[sweep]\nmodels = ["demo:mlp"]\nbackends = [["eager", "inductor"], ["aot_eager"]]\n', tmp_path)
    assert [j.backends for j in s.jobs] == [["eager", "inductor"], ["aot_eager"]]


@pytest.mark.parametrize("text, words", [
    ("[sweep]\nmodels = []\nbackends = ['eager']\n", "models"),
    ("[sweep]\nmodels = ['demo:mlp']\n", "needs models and backends"),
    (BASE + "colour = 1\n", "colour"),
    (BASE + "[axes]\nprecison = ['bf16']\n", "precison"),
    (BASE + "[measure]\nmin_runs = 1.5\n", "whole number"),
    (BASE + "timeout = -1\n", "timeout"),
    ("[sweep\n", "not a TOML file"),
])
def test_bad_specs_name_what_is_wrong(tmp_path, text, words):
    with pytest.raises(spec.SpecError, match=words):
        parse(text, tmp_path)


def test_resume_skips_finished_and_retries_failed_only_when_asked(tmp_path):
    (tmp_path / "a.fscope").write_text("{}")
    ok = {"id": "a", "status": "ok"}
    assert not state.should_run(ok, str(tmp_path), False)
    assert state.should_run({"id": "b", "status": "ok"}, str(tmp_path), False)  # its report is gone
    assert not state.should_run({"id": "a", "status": "failed"}, str(tmp_path), False)
    assert state.should_run({"id": "a", "status": "failed"}, str(tmp_path), True)
    for status in ("interrupted", "running", "pending"):
        assert state.should_run({"id": "a", "status": status}, str(tmp_path), False)
    assert state.should_run(None, str(tmp_path), False)


def test_cpu_sets_are_disjoint_and_cover_the_cpus():
    sets = placement.cpu_sets([0, 1, 2, 3, 4], 2)
    assert sets == [[0, 1, 2], [3, 4]]
    assert placement.cpu_list_text([0, 1, 2, 5, 7, 8]) == "0-2,5,7-8"
    with pytest.raises(ValueError, match="need 3 CPUs"):
        placement.cpu_sets([0, 1], 3)


def test_a_taken_cpu_set_is_not_handed_out_twice(tmp_path, monkeypatch):
    monkeypatch.setenv("FUSESCOPE_CPU_LOCK_DIR", str(tmp_path))
    cpus = placement.usable_cpus()
    if len(cpus) < 2:
        pytest.skip("needs two CPUs")
    with placement.CpuSlot(2) as first:
        with placement.CpuSlot(2) as second:
            assert set(first.cpus).isdisjoint(second.cpus)
            assert first.pin and second.pin
            # Both sets taken: a third waits, and gives up when told to stop.
            with pytest.raises(InterruptedError):
                with placement.CpuSlot(2, should_stop=lambda: True, poll_s=0.01):
                    pass
    with placement.CpuSlot(1) as whole:
        assert whole.pin is None and whole.cpus == cpus
