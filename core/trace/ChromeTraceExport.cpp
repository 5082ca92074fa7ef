#include "ChromeTraceExport.h"

#include "codec/Json.h"

#include <QSaveFile>
#include <cstdio>
#include <sstream>

namespace fusescope {

using nlohmann::json;

namespace {

constexpr int kCpuPid = 1;
constexpr int kGpuPid = 2;

int pidOf(const TraceTrack& track) {
    return track.kind == TrackKind::CudaStream ? kGpuPid : kCpuPid;
}

double micros(int64_t ns, int64_t originNs) {
    return static_cast<double>(ns - originNs) / 1000.0;
}

json metadata(const char* what, int pid, int tid, const json& args) {
    return {{"ph", "M"}, {"name", what}, {"pid", pid}, {"tid", tid}, {"args", args}};
}

std::string csvField(const std::string& text) {
    if (text.find_first_of(",\"\n\r") == std::string::npos)
        return text;
    std::string out = "\"";
    for (char c : text) {
        if (c == '"')
            out += '"';
        out += c;
    }
    return out + "\"";
}

Status writeText(const std::string& text, const std::string& path) {
    QSaveFile file(QString::fromStdString(path));
    if (!file.open(QIODevice::WriteOnly) ||
        file.write(text.data(), static_cast<qint64>(text.size())) != static_cast<qint64>(text.size()) ||
        !file.commit())
        return Error{"export_failed", "could not write " + path + ": " + file.errorString().toStdString()};
    return std::nullopt;
}

} // namespace

json chromeTraceJson(const KernelTrace& trace, const std::string& label) {
    const int64_t origin = trace.beginNs();
    json events = json::array();
    events.push_back(metadata("process_name", kCpuPid, 0, {{"name", label + " (CPU)"}}));
    events.push_back(metadata("process_name", kGpuPid, 0, {{"name", label + " (GPU)"}}));
    int sortIndex = 0;
    for (const TraceTrack& t : trace.tracks) {
        if (t.kind == TrackKind::Memory)
            continue;
        events.push_back(metadata("thread_name", pidOf(t), t.id, {{"name", t.name}}));
        events.push_back(metadata("thread_sort_index", pidOf(t), t.id, {{"sort_index", sortIndex++}}));
    }
    auto trackPid = [&](int id) {
        for (const TraceTrack& t : trace.tracks)
            if (t.id == id)
                return pidOf(t);
        return kCpuPid;
    };
    int lastTrack = -1;
    int lastPid = kCpuPid;
    for (const TraceEvent& e : trace.events) {
        if (e.track != lastTrack) { // events are grouped by track after finalize(): one lookup per track
            lastTrack = e.track;
            lastPid = trackPid(e.track);
        }
        json args = {{"kind", toString(e.kind)}};
        if (e.correlation != 0)
            args["correlation"] = e.correlation;
        if (e.iteration >= 0)
            args["iteration"] = e.iteration;
        const std::string& name = e.name >= 0 && static_cast<size_t>(e.name) < trace.names.size()
                                      ? trace.names[static_cast<size_t>(e.name)]
                                      : std::string("?");
        events.push_back({{"ph", "X"},
                          {"name", name},
                          {"cat", toString(e.kind)},
                          {"pid", lastPid},
                          {"tid", e.track},
                          {"ts", micros(e.startNs, origin)},
                          {"dur", static_cast<double>(e.durationNs) / 1000.0},
                          {"args", std::move(args)}});
    }
    for (const MemoryEvent& m : trace.memory) {
        const std::string name =
            m.device < 0 ? "memory in use (CPU)" : "memory in use (cuda:" + std::to_string(m.device) + ")";
        events.push_back({{"ph", "C"},
                          {"name", name},
                          {"pid", m.device < 0 ? kCpuPid : kGpuPid},
                          {"ts", micros(m.timeNs, origin)},
                          {"args", {{"bytes", m.totalBytes}}}});
    }
    return {{"traceEvents", std::move(events)},
            {"displayTimeUnit", "ns"},
            {"otherData",
             {{"generator", "FuseScope"},
              {"source", trace.source},
              {"origin_ns", origin},
              {"iterations", trace.iterations},
              {"dropped_records", trace.dropped},
              {"overhead_ns", trace.overheadNs}}}};
}

Status writeChromeTrace(const KernelTrace& trace, const std::string& label, const std::string& path) {
    return writeText(codec::dumpJson(chromeTraceJson(trace, label)), path);
}

std::string kernelStatsCsv(const KernelStatsTable& table) {
    std::ostringstream out;
    out << "name,calls,total_ns,mean_ns,min_ns,max_ns,share_percent,per_iteration_ns\n";
    char numbers[160];
    for (const KernelStat& s : table.rows) {
        std::snprintf(numbers, sizeof numbers, ",%lld,%lld,%.1f,%lld,%lld,%.3f,%.1f\n",
                      static_cast<long long>(s.calls), static_cast<long long>(s.totalNs), s.meanNs,
                      static_cast<long long>(s.minNs), static_cast<long long>(s.maxNs), s.share * 100.0,
                      s.perIterationNs);
        out << csvField(s.label) << numbers;
    }
    return out.str();
}

Status writeKernelStatsCsv(const KernelStatsTable& table, const std::string& path) {
    return writeText(kernelStatsCsv(table), path);
}

} // namespace fusescope
