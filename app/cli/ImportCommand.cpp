// `fusescope-cli import INPUT --out R.fscope` (docs/import.md): a TORCH_TRACE directory or log, or
// another format of import/Import.h's table, written as a report.
#include "Commands.h"
#include "ExitCodes.h"
#include "analysis/Format.h"
#include "import/Import.h"
#include "report/ReportFile.h"

#include <cstdio>

namespace fusescope::cli {

int runImport(const ImportOptions& options) {
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
        const std::string format = r.settings.value("/import/format"_json_pointer, std::string());
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
            std::printf("\n");
        }
    }
    return kExitOk;
}

} // namespace fusescope::cli
