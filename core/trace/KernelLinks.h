#pragma once

#include "model/BackendRun.h"

#include <map>
#include <string>
#include <vector>

namespace fusescope {

// Which kernel groups of a backend's after-fusion stages each traced kernel or op ran
// (docs/trace-view.md, "Kernels and their nodes").
//
// Generated kernels (group kind `kernel` or `template`: cpp_fused_*, triton_*) match a group of the
// same name. Extern calls (kind `extern_kernel`: extern_kernels.addmm, a fallback
// torch.ops.aten.X.default) launch kernels of other names, so they are matched by launch order,
// per traced iteration: the groups run in the order the stages list them, and the events between
// two generated kernels belong to the extern groups between those kernels' groups. Within such a
// span an event named after the op (aten::addmm on the CPU profiler) takes the next group of that
// op; otherwise (cuBLAS kernels on CUDA) one extern group takes every kernel of a span between two
// generated kernels, and k groups take k kernels one each. Spans at the start or end of an
// iteration (which may hold eager work around the compiled graphs) link only by op name or exact
// count. Anything else stays unlinked rather than guessed.
// One kernel group of one stage (group ids are unique within a stage only).
struct GroupRef {
    const StageGraph* stage = nullptr;
    std::string id;

    bool operator==(const GroupRef& o) const { return stage == o.stage && id == o.id; }
};

struct KernelLinks {
    std::map<std::string, std::vector<GroupRef>> groups; // traced name -> its groups, first seen first
    std::vector<std::string> unlinkedKernels;            // kernel-kind names that matched no group, sorted
    // Per event of the trace (same index as KernelTrace::events): the index into `linked` of the
    // group that event ran, -1 when it is not linked. Lets time be attributed per call, so two
    // groups of one extern op (aten::addmm of different sizes) each get their own calls' time.
    std::vector<int32_t> eventGroup;
    std::vector<GroupRef> linked;

    const std::vector<GroupRef>* groupsOf(const std::string& name) const;
};

KernelLinks linkKernelsToGroups(const KernelTrace& trace, const std::vector<const StageGraph*>& stages);

// A run's after-fusion stages in the order their kernels run: forward graphs in graph order, then
// (training) the backward graphs in reverse graph order.
std::vector<const StageGraph*> afterFusionStages(const BackendRun& run);

// `aten::addmm`, `extern_kernels.addmm`, `torch.ops.aten.addmm.default` -> `addmm`; else "".
std::string externOpName(const std::string& name);

} // namespace fusescope
