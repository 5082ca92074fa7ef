"""Graph breaks: where they are in the user's file and between which graphs (docs/protocol.md,
break_reasons; docs/workloads.md "Graph breaks")."""
from conftest import FIXTURES, run_model


def _ok(model, backend="eager"):
    run = run_model(model, backend)
    assert run.returncode == 0, run
    result = run.one("result")
    assert result["status"] == "ok", run
    return run, result


def _source_lines(stage: dict) -> set:
    return {n["source"]["line"] for n in stage["nodes"] if n.get("source")}


def test_deliberate_break_is_reported_at_its_line_after_the_first_graph():
    path = FIXTURES / "graph_break.py"  # torch._dynamo.graph_break() on line 15
    run, result = _ok(path)
    assert result["graphs"] == 2 and result["graph_breaks"] == 1
    assert len(result["break_reasons"]) == 1
    reason = result["break_reasons"][0]
    assert reason["file"] == str(path) and reason["line"] == 15
    assert "graph_break" in reason["reason"] and reason["detail"].startswith(reason["reason"])
    # The break ends graph 0 (first linear + relu, line 14); graph 1 is the rest (line 16).
    assert reason["graph"] == 1
    assert _source_lines(run.stage("dynamo_fx", 0)) == {14}
    assert _source_lines(run.stage("dynamo_fx", 1)) == {16}


def test_break_before_any_op_sits_before_graph_zero_at_the_helpers_line():
    path = FIXTURES / "graph_break_first.py"  # the break is in helper(), line 9
    run, result = _ok(path)
    # Dynamo counts this break twice (once inside the inlined helper, once at the call it
    # falls back to); it is one break at one line.
    assert result["graphs"] == 1 and result["graph_breaks"] >= 1 and len(result["break_reasons"]) == 1
    reason = result["break_reasons"][0]
    assert reason["file"] == str(path) and reason["line"] == 9
    assert reason["graph"] == 0
    assert _source_lines(run.stage("dynamo_fx", 0)) == {19}


def _with_dynamo(dynamo: dict) -> dict:
    return {"mode": None, "fullgraph": False, "dynamic": None, "inductor": {}, "dynamo": dynamo}


def test_a_dynamo_option_of_the_entry_removes_the_break_its_hint_names():
    path = FIXTURES / "scalar_break.py"
    _, plain = _ok(path, "aot_eager")
    assert plain["graph_breaks"] >= 1, plain
    hint = plain["break_reasons"][0]["detail"]
    assert "torch._dynamo.config.capture_scalar_outputs = True" in hint, hint
    run = run_model(path, "aot_eager", options=_with_dynamo({"capture_scalar_outputs": True}))
    result = run.one("result")
    assert result["status"] == "ok" and result["graph_breaks"] == 0 and result["graphs"] == 1, result
    assert result["accuracy"]["pass"], result["accuracy"]


def test_a_dynamo_option_torch_lacks_or_of_the_wrong_type_is_a_bad_request_naming_it():
    path = FIXTURES / "scalar_break.py"
    for dynamo, says in (({"capture_scalar_outputz": True}, "has no option 'capture_scalar_outputz'"),
                         ({"capture_scalar_outputs": "yes"}, "dynamo.capture_scalar_outputs takes a bool"),
                         ({"_private": True}, "has no option '_private'")):
        run = run_model(path, "aot_eager", options=_with_dynamo(dynamo))
        error = run.one("error")
        assert error["code"] == "bad_request" and says in error["message"], error
    run = run_model(path, "aot_eager", options=_with_dynamo([1]))
    assert "options.dynamo" in run.one("error")["message"]
