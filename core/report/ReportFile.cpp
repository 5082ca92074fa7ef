#include "ReportFile.h"

#include "codec/Json.h"
#include "codec/ReportCodec.h"
#include "files/PathChecks.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace fusescope {

using nlohmann::json;

namespace {

Error fileError(const std::string& code, const std::string& path, const std::string& what) {
    return Error{code, "report " + path + ": " + what};
}

std::string systemError() {
    return std::strerror(errno);
}

} // namespace

Result<Report> parseReport(const std::string& text, const std::string& origin, ReadLeftovers* leftovers) {
    if (text.find_first_not_of(" \t\r\n") == std::string::npos)
        return fileError("report_empty", origin, "the file is empty");
    auto parsed = codec::parseJson(text);
    if (!parsed) {
        const auto& e = parsed.error();
        if (e.code == "json_limit")
            return fileError("report_corrupt", origin, e.message);
        return fileError(
            "report_corrupt", origin,
            std::string(e.code == "json_truncated" ? "the file is truncated" : "not valid JSON") + " (" +
                e.message + ")");
    }
    auto report = codec::decodeReport(parsed.value().value);
    if (!report)
        return fileError(report.error().code, origin, report.error().message);
    if (const size_t bad = parsed.value().replacedSequences)
        report.value().readNotes.push_back(
            std::to_string(bad) + " ill-formed UTF-8 sequence(s) in the file were replaced by U+FFFD");
    if (leftovers)
        leftovers->held = std::make_shared<const json>(std::move(parsed.value().value));
    return report;
}

namespace {

// A report is read whole into memory: past this it is no report (docs/report-format.md), and a
// file that never ends cannot exhaust memory.
constexpr uint64_t kMaxReportBytes = uint64_t(4) << 30;

Result<std::string> readReportBytes(const std::string& path) {
    auto bytes = files::readRegularFile(path, kMaxReportBytes);
    if (bytes)
        return bytes;
    const auto& e = bytes.error();
    if (e.code == "not_found")
        return fileError("report_not_found", path, "no such file");
    if (e.code == "is_directory")
        return fileError("report_not_found", path, "is a directory, not a report file");
    if (e.code == "not_regular")
        return fileError("report_not_a_file", path, e.message + "; give the path of a .fscope file");
    return fileError("report_" + e.code, path, e.message);
}

} // namespace

Result<Report> readReport(const std::string& path, ReadLeftovers* leftovers, DeferredStages* deferred) {
    auto bytes = readReportBytes(path);
    if (!bytes)
        return bytes.error();
    if (deferred) {
        if (auto spans = codec::findStageSpans(bytes.value())) {
            size_t stageBytes = 0;
            for (const auto& span : *spans)
                stageBytes += span.end - span.begin;
            if (stageBytes >= kDeferStagesFromBytes) {
                auto report = parseReport(codec::withoutSpans(bytes.value(), *spans), path, leftovers);
                if (report) {
                    *deferred = DeferredStages{std::make_shared<const std::string>(std::move(bytes).value()),
                                               std::move(*spans), path};
                    return report;
                }
            }
        }
    } // else, or when the stages are small or cannot be told apart: read whole
    auto report = parseReport(bytes.value(), path, leftovers);
    if (leftovers && report) // the tree and the bytes, freed together by the caller
        leftovers->held = std::make_shared<const std::pair<std::shared_ptr<const void>, std::string>>(
            std::move(leftovers->held), std::move(bytes).value());
    return report;
}

Report withDeferredStages(const Report& skeleton, const DeferredStages& deferred) {
    Report full = skeleton;
    auto decoded = codec::decodeStageSpans(*deferred.text, deferred.spans,
                                           std::max(1u, std::thread::hardware_concurrency()));
    for (size_t i = 0; i < deferred.spans.size(); ++i) {
        const size_t backend = deferred.spans[i].backend;
        if (backend >= full.backends.size())
            continue; // cannot happen for a skeleton read from the same text
        auto& stages = decoded[i];
        if (!stages) {
            full.readNotes.push_back("report " + deferred.origin + ": " + stages.error().message +
                                     "; backend " + full.backends[backend].name +
                                     " is shown without its graphs");
            continue;
        }
        full.backends[backend].stages = std::move(stages.value().stages);
        if (const size_t bad = stages.value().replacedSequences)
            full.readNotes.push_back(std::to_string(bad) + " ill-formed UTF-8 sequence(s) in backends[" +
                                     std::to_string(backend) + "].stages were replaced by U+FFFD");
    }
    return full;
}

namespace {

ForeignReportReader& foreignReader() {
    static ForeignReportReader reader;
    return reader;
}

} // namespace

void setForeignReportReader(ForeignReportReader reader) {
    foreignReader() = std::move(reader);
}

Result<Report> openReportOrImport(const std::string& path, ReadLeftovers* leftovers,
                                  DeferredStages* deferred) {
    if (const auto& reader = foreignReader())
        if (auto imported = reader(path))
            return std::move(*imported);
    return readReport(path, leftovers, deferred);
}

Status writeFileAtomically(const std::string& path, const std::string& contents) {
    namespace fs = std::filesystem;
    const fs::path target(path);
    const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
    std::string tmpl = (dir / (target.filename().string() + ".tmp-XXXXXX")).string();
    const int fd = mkstemp(tmpl.data());
    if (fd < 0)
        return Error{"write_failed", "cannot write " + path + ": " + systemError()};
    size_t written = 0;
    while (written < contents.size()) {
        const ssize_t n = ::write(fd, contents.data() + written, contents.size() - written);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            const auto err = systemError();
            ::close(fd);
            ::unlink(tmpl.c_str());
            return Error{"write_failed", "cannot write " + path + ": " + err};
        }
        written += static_cast<size_t>(n);
    }
    // mkstemp creates 0600; a report is an ordinary document.
    ::fchmod(fd, 0644);
    if (::fsync(fd) != 0 || ::close(fd) != 0) {
        const auto err = systemError();
        ::unlink(tmpl.c_str());
        return Error{"write_failed", "cannot write " + path + ": " + err};
    }
    if (::rename(tmpl.c_str(), path.c_str()) != 0) {
        const auto err = systemError();
        ::unlink(tmpl.c_str());
        return Error{"write_failed", "cannot replace " + path + ": " + err};
    }
    return std::nullopt;
}

Status writeReport(const Report& report, const std::string& path) {
    return writeFileAtomically(path, codec::dumpJson(json(report)) + "\n");
}

} // namespace fusescope
