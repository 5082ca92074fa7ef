#include "CompileTime.h"

#include "Format.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace fusescope {

namespace {

std::string percent(double part, double whole) {
    if (whole <= 0)
        return "-";
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.0f %%", 100.0 * part / whole);
    return buffer;
}

} // namespace

std::string compilePhaseLabel(const std::string& phase) {
    static const std::map<std::string, std::string> labels = {
        {"dynamo_tracing", "Dynamo tracing"},
        {"dynamo_guards", "Dynamo guards"},
        {"aot_autograd", "AOTAutograd"},
        {"backend_compile", "backend, untimed inside"},
        {"inductor_graph_passes", "Inductor graph passes"},
        {"inductor_lowering", "Inductor lowering"},
        {"inductor_scheduling", "Inductor scheduling"},
        {"code_generation", "code generation"},
        {"kernel_compilation", "C++/Triton compilation"},
        {"autotuning", "autotuning"},
        {"compile_cache", "compile cache"},
        {"other_timers", "other torch timers"},
        {"first_run", "first run (outside timers)"},
        {"unaccounted", "unaccounted"}};
    const auto it = labels.find(phase);
    return it == labels.end() ? phase : it->second;
}

double timedPhaseSeconds(const std::vector<CompilePhase>& phases) {
    double total = 0;
    for (const auto& p : phases)
        if (p.name != "first_run" && p.name != "unaccounted")
            total += p.seconds;
    return total;
}

std::vector<std::string> compileTimeLines(const BackendRun& run) {
    std::vector<std::string> lines;
    if (!run.compileSeconds && !run.captureSeconds && !run.warmCompileSeconds &&
        run.compileBreakdown.empty() && !run.tuning)
        return lines;
    std::string head = "compile " + format::seconds(run.compileSeconds) + " s";
    if (run.captureFrom == "timed_compile")
        head += " (first call; this compile captured the stages, FuseScope's hooks " +
                format::seconds(run.captureOverheadSeconds) + " s of it)";
    else if (run.captureSeconds || run.warmCompileSeconds)
        head += " (plain torch.compile, first call)";
    if (run.warmCompileSeconds)
        head += "; warm caches " + format::seconds(run.warmCompileSeconds) + " s";
    if (run.captureSeconds)
        head +=
            "; capture " + format::seconds(run.captureSeconds) + " s (a separate compile, not in compile)";
    lines.push_back(head);
    if (run.captureFrom == "second_compile" && !run.captureFromReason.empty())
        lines.push_back("  stages from a second compile: " + run.captureFromReason);
    if (run.tuning) // tvm{tune=N}: the schedule search, not in compile_s (docs/tvm.md "Tuning")
        lines.push_back(tuningLine(*run.tuning));
    if (run.compileBreakdown.empty())
        return lines;
    const double total = run.compileSeconds.value_or(0);
    size_t width = 0;
    for (const auto& p : run.compileBreakdown)
        width = std::max(width, compilePhaseLabel(p.name).size());
    for (const auto& p : orderedPhases(run.compileBreakdown)) {
        const std::string label = compilePhaseLabel(p.name);
        char seconds[32];
        std::snprintf(seconds, sizeof seconds, "%8.3f s", p.seconds);
        lines.push_back("  " + label + std::string(width - label.size(), ' ') + " " + seconds + "  " +
                        percent(p.seconds, total));
    }
    lines.push_back("  (torch's timers cover " + percent(timedPhaseSeconds(run.compileBreakdown), total) +
                    " of compile; docs/measurement.md)");
    return lines;
}

} // namespace fusescope
