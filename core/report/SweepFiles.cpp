#include "SweepFiles.h"

#include "ReportFile.h"
#include "codec/Json.h"
#include "codec/SweepCodec.h"
#include "files/PathChecks.h"

#include <filesystem>

namespace fusescope {

namespace {

constexpr uint64_t kMaxSweepFileBytes = uint64_t(64) << 20;

} // namespace

Result<SweepFiles> readSweepFiles(const std::string& dir) {
    const std::string statePath = (std::filesystem::path(dir) / "sweep.json").string();
    auto bytes = files::readRegularFile(statePath, kMaxSweepFileBytes);
    if (!bytes)
        return Error{
            bytes.error().code == "not_found" ? "suite_not_found" : "suite_corrupt",
            statePath + ": " +
                (bytes.error().code == "not_found"
                     ? std::string("no such file: not a sweep folder (fusescope-cli sweep writes it)")
                     : bytes.error().message)};
    auto parsed = codec::parseJson(bytes.value());
    if (!parsed)
        return Error{"suite_corrupt", statePath + ": " + parsed.error().message};
    auto state = codec::decodeSweepState(parsed.value().value);
    if (!state)
        return Error{"suite_corrupt", statePath + ": " + state.error().message};

    SweepFiles out;
    out.dir = dir;
    out.state = std::move(state).value();
    out.reports.resize(out.state.jobs.size());
    for (size_t j = 0; j < out.state.jobs.size(); ++j) {
        const SuiteJob& job = out.state.jobs[j];
        if (!job.finished() || job.report.empty())
            continue;
        const std::string path = (std::filesystem::path(dir) / job.report).string();
        if (!std::filesystem::exists(path))
            continue; // the job failed before writing one; its reason says why
        auto report = readReport(path);
        if (report)
            out.reports[j] = std::move(report).value();
        else
            out.notes.push_back(report.error().message);
    }
    return out;
}

Status writeSuiteFile(const std::string& dir, const nlohmann::json& suite) {
    const std::string path = (std::filesystem::path(dir) / "suite.json").string();
    return writeFileAtomically(path, codec::dumpJson(suite, 1) + "\n");
}

} // namespace fusescope
