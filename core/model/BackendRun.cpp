#include "BackendRun.h"

#include <algorithm>
#include <sstream>

namespace fusescope {

const char* toString(RunStatus status) {
    switch (status) {
    case RunStatus::Pending:
        return "pending";
    case RunStatus::Running:
        return "running";
    case RunStatus::Ok:
        return "ok";
    case RunStatus::Failed:
        return "failed";
    case RunStatus::Unavailable:
        return "unavailable";
    case RunStatus::Cancelled:
        return "cancelled";
    }
    return "failed";
}

RunStatus runStatusFromString(const std::string& text) {
    for (auto s : {RunStatus::Pending, RunStatus::Running, RunStatus::Ok, RunStatus::Failed,
                   RunStatus::Unavailable, RunStatus::Cancelled})
        if (text == toString(s))
            return s;
    return RunStatus::Failed;
}

const StageGraph* BackendRun::findStage(const std::string& key) const {
    auto it = std::find_if(stages.begin(), stages.end(), [&](const StageGraph& s) { return s.key() == key; });
    return it == stages.end() ? nullptr : &*it;
}

std::string firstDivergenceText(const FirstDivergence& d) {
    std::ostringstream out;
    out.precision(3);
    if (d.node.empty()) {
        out << "no diverging node named: " << (d.reason.empty() ? "unknown" : d.reason);
    } else {
        out << "first diverging node " << d.node;
        if (!d.op.empty())
            out << " (" << d.op << ")";
        if (d.graph >= 0)
            out << " in graph " << d.graph;
        out << ", kernel " << (d.kernel.empty() ? "unknown" : d.kernel);
        if (d.kernels.size() > 1)
            out << " (and " << d.kernels.size() - 1 << " more)";
        if (!d.module.empty())
            out << ", module " << d.module;
        if (!d.file.empty())
            out << ", at " << d.file << ":" << d.line;
        if (!d.code.empty())
            out << " `" << d.code << "`";
        if (d.maxAbs)
            out << "; max abs " << *d.maxAbs;
        if (d.maxRel)
            out << ", max rel " << *d.maxRel;
    }
    out << " (bisect " << (d.method.empty() ? "" : d.method + ", ") << d.compiles
        << (d.compiles == 1 ? " compile, " : " compiles, ") << d.seconds << " s"
        << (d.budgetExhausted ? ", budget exhausted" : "") << ")";
    return out.str();
}

std::string accuracyStatus(const Accuracy& a) {
    if (!a.status.empty())
        return a.status;
    return a.pass ? "pass" : "fail_accuracy";
}

} // namespace fusescope
