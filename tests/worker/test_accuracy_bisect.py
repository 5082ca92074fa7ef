"""accuracy_bisect.py on small FX graphs, with a deliberately wrong Python "backend" (no compiler
needed), and the node -> kernel mapping on scripted stages."""
import types

import torch
import torch.fx
import torch.nn.functional as F

from fusescope_worker import accuracy_bisect
from fusescope_worker.accuracy_bisect import first_diverging, kernels_of, run

OPTIONS = {"tolerance": 1e-3, "precision": "fp32"}


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.fc = torch.nn.Linear(8, 8)

    def forward(self, x):
        y = self.fc(x)
        z = F.relu(y)
        w = z * 2.0
        return w.sum(dim=1), torch.masked_fill(w, w > 1e9, float("-inf"))


def _wrong_relu(gm, inputs):
    """A backend whose relu is x + 1, as Inductor's cpp.inject_relu_bug_TESTING_ONLY makes it."""
    gm = torch.fx.GraphModule(gm, gm.graph)
    for node in gm.graph.nodes:
        if node.target is F.relu or node.target is torch.relu:
            node.target = lambda t, inplace=False: t + 1
    gm.recompile()
    return gm


def _right(gm, inputs):
    return gm


def _session(gm, inputs, stages=()):
    record = types.SimpleNamespace(index=0, kept_stages=list(stages))
    accuracy_bisect.keep(record, gm, inputs)
    return types.SimpleNamespace(graphs=[record])


def test_the_first_diverging_node_is_the_wrong_one_not_the_ones_after_it():
    gm = torch.fx.symbolic_trace(Net())
    found, compiles = first_diverging(gm, [torch.randn(4, 8)], _wrong_relu, OPTIONS)
    assert compiles == 1
    assert found["node"].name == "relu"
    assert found["verdict"]["status"] == "fail_accuracy" and found["verdict"]["max_abs"] >= 0.999


def test_a_right_backend_has_no_divergence_and_equal_infinities_are_not_one():
    gm = torch.fx.symbolic_trace(Net())
    x = torch.randn(4, 8)
    x[0, 0] = float("inf")  # -inf/NaN in several intermediates, at the same places on both sides
    found, compiles = first_diverging(gm, [x], _right, OPTIONS)
    assert found is None and compiles == 1


def test_run_names_node_op_kernel_and_source_line():
    gm = torch.fx.symbolic_trace(Net())
    stages = [{"name": "aot_forward", "nodes": [{"id": "relu_1", "origins": ["relu"]},
                                               {"id": "mul", "origins": ["mul"]}]},
              {"name": "post_grad", "nodes": [{"id": "relu_1", "origins": ["relu_1"]}]},
              {"name": "post_fusion", "groups": [{"name": "cpp_fused_mul_0", "handle": 1, "provenance": ["mul"]},
                                                 {"name": "cpp_fused_relu_1", "handle": 0,
                                                  "provenance": ["relu_1", "mul"]}]}]
    found = run(_session(gm, [torch.randn(4, 8)], stages), _wrong_relu, OPTIONS, 60.0)
    assert found["node"] == "relu" and found["kernel"] == "cpp_fused_relu_1"
    assert found["kernels"] == ["cpp_fused_relu_1"]
    assert "relu" in found["op"]
    assert found["method"] == "intermediate_outputs" and found["compiles"] == 1
    assert found["budget_exhausted"] is False and found["seconds"] >= 0
    assert found["max_abs"] >= 0.999 and found["max_rel"] > 0


def test_kernels_follow_origins_through_every_stage():
    stages = [{"name": "aot_forward", "nodes": [{"id": "a", "origins": ["x"]}, {"id": "b", "origins": ["y"]}]},
              {"name": "post_grad", "nodes": [{"id": "a2", "origins": ["a"]}, {"id": "b", "origins": ["b"]}]},
              {"name": "post_fusion", "groups": [{"name": "k0", "handle": 0, "provenance": ["b"]},
                                                 {"name": "k1", "handle": 1, "provenance": ["a2"]}]}]
    assert kernels_of(stages, "x") == ["k1"]
    assert kernels_of(stages, "y") == ["k0"]
    assert kernels_of(stages, "z") == []
    assert kernels_of([], "x") == []


def test_an_exhausted_budget_stops_before_compiling_and_says_so():
    gm = torch.fx.symbolic_trace(Net())
    calls = []
    found = run(_session(gm, [torch.randn(4, 8)]), lambda g, i: calls.append(1) or g, OPTIONS, -1.0)
    assert found["budget_exhausted"] is True and found["compiles"] == 0 and not calls
    assert "node" not in found and "budget" in found["reason"]


def test_a_graph_that_passes_with_intermediates_exposed_says_why_no_node():
    gm = torch.fx.symbolic_trace(Net())
    found = run(_session(gm, [torch.randn(4, 8)]), _right, OPTIONS, 60.0)
    assert "node" not in found and "fused" in found["reason"] and found["compiles"] == 1
