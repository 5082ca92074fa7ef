"""Matching Inductor's kernel provenance records to scheduler nodes (capture/kernel_matching.py),
on hand-written cases shaped like what torch 2.13 produces on CPU."""
from fusescope_worker.capture.kernel_matching import kernel_groups


def node(name, origins, kind="scheduler_node", origin_node=None, multi_output=False, reads=()):
    return {"name": name, "kind": kind, "nodes": name.split("_"), "origins": set(origins),
            "origin_node": origin_node, "multi_output": multi_output, "reads": list(reads)}


def by_id(groups):
    return {g["id"]: g for g in groups}


def test_one_cpp_kernel_spanning_several_fused_nodes_and_a_reused_kernel_name():
    structure = [
        node("op0", {"embedding", "var_mean"}),
        node("op1_op2", {"embedding", "var_mean", "add", "mul"}),
        node("op3", {"addmm", "mul"}, kind="extern_kernel", origin_node="addmm"),
        node("op4", {"erf", "mul_1"}),
        node("op5", {"addmm_1"}, kind="extern_kernel", origin_node="addmm_1"),
        node("op6", {"erf_1", "mul_2"}),
        node("op7", set(), kind="nop"),
    ]
    mapping = {"cpp_fused_norm_0:1": ["embedding", "var_mean", "add", "mul"],
               "extern_kernels.addmm:2": ["addmm"],
               "cpp_fused_gelu_1:3": ["erf", "mul_1"],
               "extern_kernels.addmm:4": ["addmm_1"],
               "cpp_fused_gelu_1:5": ["erf_1", "mul_2"]}
    groups, node_group, warnings = kernel_groups(structure, mapping, {}, "output_code.py")
    groups = by_id(groups)
    assert warnings == []
    assert groups["cpp_fused_norm_0:1"]["nodes"] == ["op0", "op1", "op2"]
    assert groups["cpp_fused_norm_0:1"]["scheduler_nodes"] == ["op0", "op1_op2"]
    assert groups["cpp_fused_gelu_1:3"]["nodes"] == ["op4"] and groups["cpp_fused_gelu_1:5"]["nodes"] == ["op6"]
    assert groups["cpp_fused_gelu_1:5"]["name"] == "cpp_fused_gelu_1" and groups["cpp_fused_gelu_1:5"]["handle"] == 5
    assert groups["extern_kernels.addmm:2"]["kind"] == "extern_kernel"
    assert node_group["op3"] == "extern_kernels.addmm:2" and "op7" not in node_group


def test_multi_output_joins_the_extern_call_it_unpacks():
    structure = [node("op5", {"sdpa", "view"}, kind="extern_kernel"),
                 node("op6", {"sdpa", "view"}, kind="extern_kernel", origin_node="getitem", multi_output=True,
                      reads=["buf5"])]
    mapping = {"torch.ops.aten.sdpa.default:1": ["sdpa", "view"]}
    groups, node_group, warnings = kernel_groups(structure, mapping, {"buf5": "op5"}, None)
    assert warnings == [] and groups[0]["nodes"] == ["op5", "op6"]
    assert node_group == {"op5": groups[0]["id"], "op6": groups[0]["id"]}


def test_impossible_alignment_is_reported_and_kernels_keep_their_records():
    structure = [node("op0", {"a"}), node("op1", {"b"})]
    mapping = {"cpp_fused_0:1": ["a", "zzz"]}
    groups, node_group, warnings = kernel_groups(structure, mapping, {}, None)
    assert groups[0]["provenance"] == ["a", "zzz"] and groups[0]["name"] == "cpp_fused_0"
    assert node_group == {"op0": "cpp_fused_0:1"}
    assert any("could not be aligned" in w for w in warnings)
    assert any("op1" in w for w in warnings)


def test_ambiguous_alignment_is_reported():
    structure = [node("op0", {"a"}), node("op1", {"a"}), node("op2", {"a", "b"})]
    mapping = {"cpp_fused_0:1": ["a"], "cpp_fused_1:2": ["a", "b"]}
    groups, node_group, warnings = kernel_groups(structure, mapping, {}, None)
    assert any("more than one assignment" in w for w in warnings)
    assert set(node_group) == {"op0", "op1", "op2"}
