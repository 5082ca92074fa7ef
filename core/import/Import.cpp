#include "Import.h"

#include "TorchTraceLog.h"
#include "files/PathChecks.h"
#include "trace/KinetoTrace.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>

namespace fusescope::import {

namespace fs = std::filesystem;

const std::vector<Importer>& importers() {
    // The dispatch table: one entry per format. Detection tries them in this order.
    static const std::vector<Importer> table = {
        {"torch_trace", "TORCH_TRACE log (a directory of them or one .log)", looksLikeTorchTrace,
         importTorchTrace},
        {"kineto", "PyTorch profiler trace (the JSON of prof.export_chrome_trace)",
         [](const ImportProbe& probe) { return looksLikeKinetoTrace(probe.isDirectory, probe.head); },
         importKinetoTrace},
    };
    return table;
}

Result<ImportProbe> probeImportPath(const std::string& path) {
    ImportProbe probe;
    probe.path = path;
    std::error_code ec;
    const auto status = fs::status(path, ec);
    if (ec || !fs::exists(status))
        return Error{"import_not_found", path + ": no such file or directory"};
    if (fs::is_directory(status)) {
        probe.isDirectory = true;
        fs::directory_iterator it(path, ec);
        if (ec)
            return Error{"import_unreadable", path + ": " + ec.message()};
        size_t seen = 0;
        for (; it != fs::directory_iterator(); it.increment(ec)) {
            if (ec)
                return Error{"import_unreadable", path + ": " + ec.message()};
            if (++seen > 100000)
                break; // a directory this large is no trace directory; what was seen decides
            std::error_code fileEc;
            if (it->is_regular_file(fileEc))
                probe.children.push_back(it->path().filename().string());
        }
        std::sort(probe.children.begin(), probe.children.end());
        return probe;
    }
    if (!fs::is_regular_file(status)) {
        struct stat st {};
        const std::string kind =
            ::stat(path.c_str(), &st) == 0 ? files::kindOf(st.st_mode) : "not a regular file";
        return Error{"import_unreadable", path + ": is " + kind + ", not a log or trace file"};
    }
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return Error{"import_unreadable", path + ": cannot be opened"};
    probe.head.resize(kProbeBytes);
    in.read(probe.head.data(), std::streamsize(kProbeBytes));
    probe.head.resize(size_t(in.gcount()));
    return probe;
}

Result<const Importer*> detectImporter(const std::string& path) {
    auto probe = probeImportPath(path);
    if (!probe)
        return probe.error();
    for (const Importer& importer : importers())
        if (importer.detect(probe.value()))
            return &importer;
    std::string tried;
    for (const Importer& importer : importers())
        tried += std::string(tried.empty() ? "" : "; ") + importer.description;
    std::string what;
    if (probe.value().isDirectory)
        what = "a directory with " + std::to_string(probe.value().children.size()) +
               " file(s), none of them a log of a format FuseScope imports";
    else if (probe.value().head.empty())
        what = "an empty file";
    else
        what = "a file starting with '" + files::printable(probe.value().head.substr(0, 40)) + "'";
    return Error{"import_unknown_format", path + ": " + what + " (formats tried: " + tried + ")"};
}

Result<Report> importPath(const std::string& path) {
    auto importer = detectImporter(path);
    if (!importer)
        return importer.error();
    auto report = importer.value()->run(path);
    if (!report)
        return report;
    auto& source = report.value().settings.import;
    if (!source)
        source.emplace();
    source->format = importer.value()->name;
    source->source = path;
    return report;
}

std::optional<Result<Report>> importIfForeign(const std::string& path) {
    if (path.size() >= 7 && path.compare(path.size() - 7, 7, ".fscope") == 0)
        return std::nullopt;
    auto importer = detectImporter(path);
    if (!importer)
        return std::nullopt; // readReport names what is wrong with it as a report
    return importPath(path);
}

} // namespace fusescope::import
