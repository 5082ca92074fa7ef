// `fusescope-cli import INPUT --out R.fscope` (docs/import.md): a TORCH_TRACE directory or log, or
// another format of import/Import.h's table, written as a report.
#include "Commands.h"
#include "ExitCodes.h"
#include "analysis/Format.h"
#include "import/Import.h"
#include "report/ReportFile.h"
#include "trace/KinetoTrace.h"

#include <cstdio>

namespace fusescope::cli {

namespace {

// `import TRACE --into R.fscope --backend NAME --out R2.fscope` (docs/import.md, "PyTorch profiler
// traces"): the trace becomes NAME's, its kernels linked to NAME's graphs by name.
int runImportInto(const ImportOptions& options) {
    auto report = openReportPrintingNotes(options.into);
    if (!report)
        return kExitError;
    auto outcome = import::attachKinetoTrace(*report, options.backend, options.input);
    if (!outcome) {
        std::fprintf(stderr, "error: %s: %s [%s]\n", options.into.c_str(), outcome.error().message.c_str(),
                     outcome.error().code.c_str());
        return kExitError;
    }
    if (auto bad = writeReport(*report, options.out)) {
        std::fprintf(stderr, "error: %s\n", bad->message.c_str());
        return kExitError;
    }
    if (!options.quiet) {
        const auto& o = outcome.value();
        std::printf(
            "attached %s to backend %s of %s -> %s: %zu events; %zu of %zu kernel names linked to its "
            "graphs\n",
            options.input.c_str(), options.backend.c_str(), options.into.c_str(), options.out.c_str(),
            o.events, o.linkedNames, o.kernelNames);
    }
    return kExitOk;
}

} // namespace

int runImport(const ImportOptions& options) {
    if (!options.into.empty())
        return runImportInto(options);
    auto report = import::importPath(options.input);
    if (!report) {
        std::fprintf(stderr, "error: %s [%s]\n", report.error().message.c_str(), report.error().code.c_str());
        return kExitError;
    }
    if (auto bad = writeReport(report.value(), options.out)) {
        std::fprintf(stderr, "error: %s\n", bad->message.c_str());
        return kExitError;
    }
    if (!options.quiet) {
        const Report& r = report.value();
        const std::string format = r.settings.import ? r.settings.import->format : std::string();
        std::printf("imported %s (%s%s) -> %s\n", options.input.c_str(), format.c_str(),
                    r.environment.torch.empty() ? "" : (", torch " + r.environment.torch).c_str(),
                    options.out.c_str());
        for (const BackendRun& run : r.backends) {
            int kernels = 0;
            for (const auto& s : run.stages)
                kernels += s.kernelCount();
            std::printf("  %s: %d graph(s), %d break(s), %d recompile(s), %zu stage(s), %d kernel(s)",
                        run.name.c_str(), run.graphs, run.graphBreaks, run.recompiles, run.stages.size(),
                        kernels);
            if (run.compileSeconds)
                std::printf(", compile %s s", format::seconds(*run.compileSeconds).c_str());
            if (run.trace)
                std::printf(", trace of %zu event(s) over %d iteration(s)", run.trace->events.size(),
                            run.trace->iterations);
            std::printf("\n");
        }
    }
    return kExitOk;
}

} // namespace fusescope::cli
