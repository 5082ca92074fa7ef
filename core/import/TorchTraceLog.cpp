#include "TorchTraceLog.h"

#include "codec/Json.h"
#include "codec/Reader.h"
#include "files/PathChecks.h"

#include <QByteArrayView>
#include <QCryptographicHash>
#include <algorithm>
#include <cctype>
#include <filesystem>

namespace fusescope::import {

namespace fs = std::filesystem;
using nlohmann::json;

std::string TraceRecord::compileId() const {
    if (frameId < 0 || frameCompileId < 0)
        return {};
    std::string id = std::to_string(frameId) + "/" + std::to_string(frameCompileId);
    if (attempt > 0)
        id += "_" + std::to_string(attempt);
    if (compiledAutogradId >= 0)
        id = "!" + std::to_string(compiledAutogradId) + "/" + id;
    return id;
}

namespace {

bool isDigit(char c) {
    return c >= '0' && c <= '9';
}

// The offset of the JSON after "] " when `line` is a glog-style envelope
// ("V1201 15:48:10.296000 8435 path.py:2841] {...}", optionally after "[rank0]:"), else npos.
size_t envelopeJsonStart(std::string_view line) {
    size_t at = 0;
    if (line.substr(0, 5) == "[rank") {
        const size_t close = line.find("]:", 5);
        if (close == std::string_view::npos || close > 16)
            return std::string_view::npos;
        at = close + 2;
    }
    if (line.size() < at + 6 || std::string_view("VIWEC").find(line[at]) == std::string_view::npos)
        return std::string_view::npos;
    for (size_t i = at + 1; i < at + 5; ++i)
        if (!isDigit(line[i]))
            return std::string_view::npos;
    if (line[at + 5] != ' ')
        return std::string_view::npos;
    // The logger's "file.py:LINE] " ends the prefix; a prefix is short.
    const size_t close = line.find("] ", at + 6);
    if (close == std::string_view::npos || close > at + 1024)
        return std::string_view::npos;
    return close + 2;
}

int intField(const codec::Reader& r, const char* key, int fallback) {
    auto v = r.optInt64(key);
    if (!v || *v < 0 || *v > 1'000'000'000)
        return fallback;
    return int(*v);
}

struct Parser {
    const std::string& origin;
    const TorchTraceLimits& limits;
    TorchTraceLog log;
    std::string expectedMd5; // of the record whose payload is being read
    bool inPayload = false;
    size_t payloadLines = 0;

    void note(size_t line, const std::string& what) {
        ++log.skippedLines;
        if (log.notes.size() < limits.maxNotes)
            log.notes.push_back(origin + ":" + std::to_string(line) + ": " + what);
    }

    void finishPayload() {
        if (!inPayload)
            return;
        inPayload = false;
        TraceRecord& record = log.records.back();
        if (expectedMd5.size() == 32) {
            const QByteArray digest =
                QCryptographicHash::hash(
                    QByteArrayView(record.payload.data(), qsizetype(record.payload.size())),
                    QCryptographicHash::Md5)
                    .toHex();
            if (std::string_view(digest.constData(), size_t(digest.size())) != expectedMd5) {
                note(record.line, "the payload of this " + record.kind +
                                      " record does not match its has_payload md5 (damaged or cut short); "
                                      "kept as read");
                --log.skippedLines; // kept, only noted
            }
        }
    }

    Status envelope(std::string_view text, size_t lineNo) {
        codec::JsonLimits jsonLimits;
        jsonLimits.maxDepth = 64;
        jsonLimits.maxStringBytes = limits.maxEnvelopeBytes;
        jsonLimits.maxItems = 1'000'000;
        auto parsed = codec::parseJson(text, jsonLimits);
        if (!parsed) {
            note(lineNo, "envelope skipped: " + parsed.error().message);
            return std::nullopt;
        }
        const json& value = parsed.value().value;
        if (!value.is_object()) {
            note(lineNo,
                 std::string("envelope skipped: expected a JSON object, got ") + codec::describeType(value));
            return std::nullopt;
        }
        if (log.records.size() >= limits.maxRecords)
            return Error{"import_limit", origin + ":" + std::to_string(lineNo) + ": more than " +
                                             std::to_string(limits.maxRecords) + " records in one log"};
        codec::Reader r(value);
        TraceRecord record;
        record.file = origin;
        record.line = lineNo;
        static const char* const idFields[] = {
            "frame_id", "frame_compile_id", "attempt", "compiled_autograd_id", "has_payload", "rank"};
        for (auto it = value.begin(); it != value.end(); ++it) {
            const bool isId = std::any_of(std::begin(idFields), std::end(idFields),
                                          [&](const char* f) { return it.key() == f; });
            if (!isId && record.kind.empty()) {
                record.kind = it.key();
                record.metadata = it.value();
            }
        }
        if (record.kind.empty()) {
            note(lineNo, "envelope skipped: no record kind (only id fields)");
            return std::nullopt;
        }
        record.frameId = intField(r, "frame_id", -1);
        record.frameCompileId = intField(r, "frame_compile_id", -1);
        record.attempt = intField(r, "attempt", 0);
        record.compiledAutogradId = intField(r, "compiled_autograd_id", -1);
        const json* md5 = nullptr;
        if (auto it = value.find("has_payload"); it != value.end() && !it->is_null())
            md5 = &*it;
        record.hasPayload = md5 != nullptr;
        log.records.push_back(std::move(record));
        if (md5) {
            inPayload = true;
            payloadLines = 0;
            expectedMd5 = md5->is_string() ? md5->get<std::string>() : std::string();
        }
        return std::nullopt;
    }

    Status payloadLine(std::string_view text, size_t lineNo) {
        if (!inPayload) {
            note(lineNo, "payload line with no record announcing a payload before it; skipped");
            return std::nullopt;
        }
        std::string& payload = log.records.back().payload;
        if (payload.size() + text.size() + 1 > limits.maxPayloadBytes)
            return Error{"import_limit", origin + ":" + std::to_string(log.records.back().line) +
                                             ": the payload of this " + log.records.back().kind +
                                             " record is larger than " +
                                             files::sizeText(limits.maxPayloadBytes)};
        if (payloadLines++ > 0)
            payload += '\n';
        payload.append(text);
        return std::nullopt;
    }
};

} // namespace

Result<TorchTraceLog> parseTorchTraceText(std::string_view text, const std::string& origin,
                                          const TorchTraceLimits& limits) {
    Parser p{origin, limits, {}, {}, false, 0};
    size_t lineNo = 0;
    size_t pos = 0;
    while (pos < text.size()) {
        size_t end = text.find('\n', pos);
        if (end == std::string_view::npos)
            end = text.size();
        std::string_view line = text.substr(pos, end - pos);
        pos = end + 1;
        ++lineNo;
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        if (!line.empty() && line.front() == '\t') {
            if (auto bad = p.payloadLine(line.substr(1), lineNo))
                return *bad;
            continue;
        }
        p.finishPayload();
        if (line.empty())
            continue;
        const size_t start = envelopeJsonStart(line);
        if (start == std::string_view::npos) {
            p.note(
                lineNo,
                "not a structured-trace line (no 'V1201 12:00:00.000000 PID file.py:N] ' prefix); skipped");
            continue;
        }
        if (auto bad = p.envelope(line.substr(start), lineNo))
            return *bad;
    }
    p.finishPayload();
    return std::move(p.log);
}

bool looksLikeTorchTraceText(std::string_view head) {
    size_t pos = 0;
    // The first non-empty line decides.
    while (pos < head.size() && (head[pos] == '\n' || head[pos] == '\r'))
        ++pos;
    const size_t end = head.find('\n', pos);
    const std::string_view line =
        head.substr(pos, end == std::string_view::npos ? head.size() - pos : end - pos);
    const size_t start = envelopeJsonStart(line);
    return start != std::string_view::npos && start < line.size() && line[start] == '{';
}

namespace {

// The logs of a TORCH_TRACE directory: dedicated_log_torch_trace_*.log (one per process/rank),
// else every *.log, in name order.
std::vector<std::string> traceLogsIn(const std::vector<std::string>& children) {
    std::vector<std::string> dedicated, logs;
    for (const auto& name : children) {
        if (name.size() < 4 || name.compare(name.size() - 4, 4, ".log") != 0)
            continue;
        (name.rfind("dedicated_log_torch_trace_", 0) == 0 ? dedicated : logs).push_back(name);
    }
    return dedicated.empty() ? logs : dedicated;
}

} // namespace

bool looksLikeTorchTrace(const ImportProbe& probe) {
    if (!probe.isDirectory)
        return looksLikeTorchTraceText(probe.head);
    for (const auto& name : traceLogsIn(probe.children)) {
        auto child = probeImportPath((fs::path(probe.path) / name).string());
        if (child && looksLikeTorchTraceText(child.value().head))
            return true;
    }
    return false;
}

Result<TorchTraceLog> readTorchTrace(const std::string& path, const TorchTraceLimits& limits) {
    auto probe = probeImportPath(path);
    if (!probe)
        return probe.error();
    std::vector<std::string> files;
    if (probe.value().isDirectory) {
        for (const auto& name : traceLogsIn(probe.value().children))
            files.push_back((fs::path(path) / name).string());
        if (files.empty())
            return Error{"import_unknown_format", path + ": a directory without any .log file"};
    } else {
        files.push_back(path);
    }
    TorchTraceLog all;
    for (const auto& file : files) {
        auto bytes = files::readRegularFile(file, limits.maxFileBytes);
        if (!bytes)
            return Error{bytes.error().code == "too_large" ? "import_limit" : "import_unreadable",
                         file + ": " + bytes.error().message};
        if (probe.value().isDirectory && !looksLikeTorchTraceText(bytes.value().substr(0, kProbeBytes))) {
            all.notes.push_back(file + ": not a structured trace; skipped");
            continue;
        }
        auto log = parseTorchTraceText(bytes.value(), file, limits);
        if (!log)
            return log.error();
        for (auto& record : log.value().records)
            all.records.push_back(std::move(record));
        for (auto& n : log.value().notes)
            if (all.notes.size() < limits.maxNotes)
                all.notes.push_back(std::move(n));
        all.skippedLines += log.value().skippedLines;
    }
    if (all.records.empty())
        return Error{"import_empty",
                     path + ": no structured-trace record in " +
                         (files.size() == 1 ? files.front() : std::to_string(files.size()) + " logs") +
                         (all.notes.empty() ? std::string() : " (" + all.notes.front() + ")")};
    return all;
}

Result<Report> importTorchTrace(const std::string& path) {
    auto log = readTorchTrace(path);
    if (!log)
        return log.error();
    return reportFromTorchTrace(log.value(), path);
}

} // namespace fusescope::import
