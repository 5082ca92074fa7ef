#include "SweepCodec.h"

#include "Reader.h"
#include "model/ErrorCode.h"

namespace fusescope::codec {

using nlohmann::json;

namespace {

// The members of a job that sweep.json and the `started`/`finished` events share.
void readJob(const Reader& item, SuiteJob& job) {
    job.id = item.str("id");
    job.model = item.str("model");
    job.backends = item.strings("backends");
    const json axes = item.raw("axes", json::object());
    job.axes = axes.is_object() ? axes : json::object();
    job.status = item.str("status", "pending");
    job.report = item.str("report");
    job.reason = item.str("reason");
    job.seconds = item.optNumber("seconds");
    job.node = item.str("node");
}

} // namespace

Result<SweepState> decodeSweepState(const json& j) {
    const Reader root(j);
    if (!root.expectObject() || root.str("kind") != "fusescope-sweep")
        return Error{"suite_corrupt", "not a FuseScope sweep state (kind is not fusescope-sweep)"};
    SweepState state;
    state.name = root.str("name");
    root.each("jobs", [&](const Reader& item) {
        if (!item.expectObject())
            return;
        SuiteJob job;
        readJob(item, job);
        if (job.id.empty())
            item.failAt("id", "a job needs an id");
        state.jobs.push_back(std::move(job));
    });
    if (auto err = root.error("suite_corrupt"))
        return *err;
    return state;
}

Result<SweepEvent> decodeSweepEvent(const json& j) {
    const Reader r(j);
    SweepEvent e;
    if (!r.expectObject())
        return *r.error(toString(ErrorCode::ProtocolError));
    const std::string kind = r.str("event");
    if (kind == "plan") {
        e.kind = SweepEvent::Kind::Plan;
        e.name = r.str("name");
        e.executor = r.str("executor");
        e.jobs = r.integer("jobs");
        e.skipped = r.integer("skipped");
        e.toRun = r.integer("to_run");
    } else if (kind == "started" || kind == "finished") {
        e.kind = kind == "started" ? SweepEvent::Kind::Started : SweepEvent::Kind::Finished;
        readJob(r, e.job);
        e.done = r.integer("done");
        e.total = r.integer("total");
    } else if (kind == "done") {
        e.kind = SweepEvent::Kind::Done;
        e.exitCode = r.has("exit") ? std::optional<int>(r.integer("exit")) : std::nullopt;
    }
    if (auto err = r.error(toString(ErrorCode::ProtocolError)))
        return *err;
    return e;
}

} // namespace fusescope::codec
