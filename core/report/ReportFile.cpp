#include "ReportFile.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
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

Result<Report> parseReport(const std::string& text, const std::string& origin) {
    if (text.find_first_not_of(" \t\r\n") == std::string::npos)
        return fileError("report_empty", origin, "the file is empty");
    json j;
    try {
        j = json::parse(text);
    } catch (const json::parse_error& e) {
        const bool atEnd = e.byte >= text.size();
        return fileError("report_corrupt", origin,
                         std::string(atEnd ? "the file is truncated" : "the file is not valid JSON") +
                             " (byte " + std::to_string(e.byte) + " of " + std::to_string(text.size()) + ")");
    }
    if (!j.is_object() || j.value("format", "") != kReportFormatName)
        return fileError("report_not_fscope", origin,
                         "not a FuseScope report (no \"format\": \"fusescope-report\")");
    const auto schema = j.find("schema");
    if (schema == j.end() || !schema->is_number_integer())
        return fileError("report_corrupt", origin, "the manifest has no integer \"schema\" version");
    if (schema->get<int>() > kReportSchemaVersion)
        return fileError("report_newer_schema", origin,
                         "written with report schema " + std::to_string(schema->get<int>()) +
                             " by a newer FuseScope; this build reads schema " +
                             std::to_string(kReportSchemaVersion) +
                             " and older. Update FuseScope to open it.");
    try {
        return j.get<Report>();
    } catch (const json::exception& e) {
        return fileError("report_corrupt", origin, std::string("unexpected structure: ") + e.what());
    }
}

Result<Report> readReport(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        return fileError("report_not_found", path, "no such file");
    if (std::filesystem::is_directory(path, ec))
        return fileError("report_not_found", path, "is a directory, not a report file");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return fileError("report_unreadable", path, "cannot open: " + systemError());
    std::ostringstream buffer;
    buffer << in.rdbuf();
    return parseReport(buffer.str(), path);
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
    return writeFileAtomically(path, json(report).dump() + "\n");
}

} // namespace fusescope
