// Traced kernels and ops linked to the kernel groups they ran: by name, and by launch order for
// extern calls (core/trace/KernelLinks.h).
#include "trace/KernelLinks.h"

#include <gtest/gtest.h>

using namespace fusescope;

namespace {

FusionGroup group(const std::string& name, const std::string& kind, int index) {
    FusionGroup g;
    g.id = name + ":" + std::to_string(index);
    g.name = name;
    g.kind = kind;
    return g;
}

StageGraph afterFusion(const std::vector<std::pair<std::string, std::string>>& groups, int graph = 0,
                       const std::string& pass = "") {
    StageGraph s;
    s.name = pass.empty() ? "post_fusion" : "post_fusion_backward";
    s.graph = graph;
    s.fusion = "after";
    s.pass = pass;
    int i = 1;
    for (const auto& [name, kind] : groups)
        s.groups.push_back(group(name, kind, i++));
    return s;
}

// Events in the order given, 10 ns apart, `kind` each, one iteration per list.
KernelTrace trace(const std::vector<std::vector<std::pair<std::string, EventKind>>>& iterations) {
    KernelTrace t;
    t.source = "test";
    int64_t at = 0;
    for (size_t it = 0; it < iterations.size(); ++it)
        for (const auto& [name, kind] : iterations[it]) {
            TraceEvent e;
            e.startNs = at += 10;
            e.durationNs = 5;
            e.name = t.internName(name);
            e.kind = kind;
            e.iteration = static_cast<int32_t>(it);
            t.events.push_back(e);
        }
    t.iterations = static_cast<int>(iterations.size());
    t.finalize();
    return t;
}

std::vector<std::string> ids(const KernelLinks& links, const std::string& name) {
    std::vector<std::string> out;
    if (const auto* refs = links.groupsOf(name))
        for (const auto& r : *refs)
            out.push_back(r.id);
    return out;
}

const auto K = EventKind::Kernel;
const auto Op = EventKind::CpuOp;

} // namespace

TEST(KernelLinks, CpuProfilerOpsTakeTheirExternCallsInOrder) {
    // demo:transformer under Inductor on CPU, shortened: what the profiler records per iteration.
    const auto stage =
        afterFusion({{"cpp_fused_ln_0", "kernel"},
                     {"extern_kernels.addmm", "extern_kernel"},
                     {"torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default", "extern_kernel"},
                     {"extern_kernels.addmm", "extern_kernel"},
                     {"cpp_fused_gelu_1", "kernel"},
                     {"extern_kernels.addmm", "extern_kernel"},
                     {"cpp_fused_ln_0", "kernel"}});
    const std::vector<std::pair<std::string, EventKind>> one = {
        {"cpp_fused_ln_0", K},
        {"aten::addmm", Op},
        {"aten::_scaled_dot_product_flash_attention_for_cpu", Op},
        {"aten::addmm", Op},
        {"cpp_fused_gelu_1", K},
        {"aten::empty", Op},
        {"aten::addmm", Op},
        {"cpp_fused_ln_0", K}};
    const auto t = trace({one, one});
    const auto links = linkKernelsToGroups(t, {&stage});
    EXPECT_EQ(ids(links, "aten::addmm"),
              (std::vector<std::string>{"extern_kernels.addmm:2", "extern_kernels.addmm:4",
                                        "extern_kernels.addmm:6"}));
    EXPECT_EQ(
        ids(links, "aten::_scaled_dot_product_flash_attention_for_cpu"),
        (std::vector<std::string>{"torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default:3"}));
    EXPECT_EQ(ids(links, "cpp_fused_ln_0"),
              (std::vector<std::string>{"cpp_fused_ln_0:1", "cpp_fused_ln_0:7"}));
    EXPECT_EQ(ids(links, "cpp_fused_gelu_1"), (std::vector<std::string>{"cpp_fused_gelu_1:5"}));
    EXPECT_EQ(links.groupsOf("aten::empty"), nullptr); // a wrapper allocation, no group
    EXPECT_TRUE(links.unlinkedKernels.empty());
}

TEST(KernelLinks, CudaLibraryKernelsTakeTheExternCallsBetweenGeneratedKernels) {
    const auto stage = afterFusion({{"triton_poi_fused_a_0", "kernel"},
                                    {"extern_kernels.mm", "extern_kernel"},
                                    {"triton_poi_fused_b_1", "kernel"},
                                    {"extern_kernels.mm", "extern_kernel"},
                                    {"extern_kernels.bmm", "extern_kernel"},
                                    {"triton_per_fused_c_2", "kernel"},
                                    {"extern_kernels.addmm", "extern_kernel"},
                                    {"triton_poi_fused_d_3", "kernel"},
                                    {"extern_kernels.mm", "extern_kernel"},
                                    {"extern_kernels.mm", "extern_kernel"}});
    const auto t = trace({{{"triton_poi_fused_a_0", K},
                           {"sm90_gemm_x", K},
                           {"triton_poi_fused_b_1", K},
                           {"sm90_gemm_y", K},
                           {"sm90_batched_gemm_z", K},
                           {"triton_per_fused_c_2", K},
                           {"gemm_splitk_main", K}, // one extern call, two library kernels
                           {"splitk_reduce", K},
                           {"triton_poi_fused_d_3", K},
                           {"gemm_p", K}, // two calls, three kernels: not guessed
                           {"gemm_q", K},
                           {"gemm_r", K}}});
    const auto links = linkKernelsToGroups(t, {&stage});
    EXPECT_EQ(ids(links, "sm90_gemm_x"), (std::vector<std::string>{"extern_kernels.mm:2"}));
    EXPECT_EQ(ids(links, "sm90_gemm_y"), (std::vector<std::string>{"extern_kernels.mm:4"}));
    EXPECT_EQ(ids(links, "sm90_batched_gemm_z"), (std::vector<std::string>{"extern_kernels.bmm:5"}));
    EXPECT_EQ(ids(links, "gemm_splitk_main"), (std::vector<std::string>{"extern_kernels.addmm:7"}));
    EXPECT_EQ(ids(links, "splitk_reduce"), (std::vector<std::string>{"extern_kernels.addmm:7"}));
    EXPECT_EQ(ids(links, "triton_per_fused_c_2"), (std::vector<std::string>{"triton_per_fused_c_2:6"}));
    EXPECT_EQ(links.unlinkedKernels, (std::vector<std::string>{"gemm_p", "gemm_q", "gemm_r"}));
}

TEST(KernelLinks, GroupsOfDifferentGraphsStayApartAndMissingKernelsDoNotDerail) {
    // Two Dynamo graphs with the same group ids; graph 1's kernel was not traced in iteration 0.
    const auto g0 = afterFusion({{"cpp_fused_a_0", "kernel"}, {"extern_kernels.mm", "extern_kernel"}}, 0);
    const auto g1 = afterFusion({{"cpp_fused_b_0", "kernel"}, {"extern_kernels.mm", "extern_kernel"}}, 1);
    const auto t = trace({{{"cpp_fused_a_0", K}, {"aten::mm", Op}, {"aten::mm", Op}},
                          {{"cpp_fused_a_0", K}, {"aten::mm", Op}, {"cpp_fused_b_0", K}, {"aten::mm", Op}}});
    const auto links = linkKernelsToGroups(t, {&g0, &g1});
    const auto* mm = links.groupsOf("aten::mm");
    ASSERT_NE(mm, nullptr);
    ASSERT_EQ(mm->size(), 2u);
    EXPECT_EQ((*mm)[0].stage, &g0);
    EXPECT_EQ((*mm)[1].stage, &g1);
    EXPECT_EQ((*mm)[0].id, (*mm)[1].id); // same id, told apart by stage
    EXPECT_EQ(links.groupsOf("cpp_fused_b_0")->front().stage, &g1);
}

TEST(KernelLinks, NamesOfExternOps) {
    EXPECT_EQ(externOpName("aten::addmm"), "addmm");
    EXPECT_EQ(externOpName("extern_kernels.addmm"), "addmm");
    EXPECT_EQ(externOpName("torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default"),
              "_scaled_dot_product_flash_attention_for_cpu");
    EXPECT_EQ(externOpName("cpp_fused_gelu_0"), "");
}

TEST(KernelLinks, AfterFusionStagesRunForwardThenBackwardInReverse) {
    BackendRun run;
    run.stages = {afterFusion({{"k", "kernel"}}, 1), afterFusion({{"k", "kernel"}}, 0),
                  afterFusion({{"k", "kernel"}}, 0, "backward"),
                  afterFusion({{"k", "kernel"}}, 1, "backward")};
    StageGraph unsupported = afterFusion({{"k", "kernel"}}, 2);
    unsupported.status = StageStatus::Unsupported;
    run.stages.push_back(unsupported);
    StageGraph before = afterFusion({{"k", "kernel"}}, 0);
    before.fusion = "before";
    run.stages.push_back(before);
    const auto order = afterFusionStages(run);
    ASSERT_EQ(order.size(), 4u);
    EXPECT_EQ(order[0], &run.stages[1]);
    EXPECT_EQ(order[1], &run.stages[0]);
    EXPECT_EQ(order[2], &run.stages[3]);
    EXPECT_EQ(order[3], &run.stages[2]);
}

TEST(KernelLinks, EagerWorkAfterTheLastKernelIsNotTakenForAnExternCall) {
    // A graph ending in a Linear layer, then an eager loss and optimizer step in the same iteration.
    const auto stage =
        afterFusion({{"triton_poi_fused_0", "kernel"}, {"extern_kernels.addmm", "extern_kernel"}});
    const auto withEager = trace({{{"triton_poi_fused_0", K},
                                   {"sm90_gemm", K},
                                   {"nll_loss_forward_kernel", K},
                                   {"multi_tensor_apply_kernel", K}}});
    const auto links = linkKernelsToGroups(withEager, {&stage});
    EXPECT_EQ(links.groupsOf("sm90_gemm"), nullptr);
    EXPECT_EQ(links.groupsOf("nll_loss_forward_kernel"), nullptr);
    EXPECT_EQ(links.unlinkedKernels, (std::vector<std::string>{"multi_tensor_apply_kernel",
                                                               "nll_loss_forward_kernel", "sm90_gemm"}));
    // With exactly one kernel after the last generated one, the count decides.
    const auto alone = trace({{{"triton_poi_fused_0", K}, {"sm90_gemm", K}}});
    EXPECT_EQ(ids(linkKernelsToGroups(alone, {&stage}), "sm90_gemm"),
              (std::vector<std::string>{"extern_kernels.addmm:2"}));
}
