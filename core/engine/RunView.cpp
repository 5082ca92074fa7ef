#include "RunView.h"

namespace fusescope {

RunViewSnapshot analyzeRun(RunSnapshot run) {
    auto view = std::make_shared<RunView>();
    view->run = std::move(run);
    if (!view->run)
        return nullptr;
    if (view->run->trace) {
        view->links = linkKernelsToGroups(*view->run->trace, afterFusionStages(*view->run));
        view->time = attributeKernelTime(*view->run, *view->links);
    }
    view->roofline = computeRoofline(*view->run, view->links ? &*view->links : nullptr);
    return view;
}

RunViews analyzeReport(const ReportSnapshot& report) {
    RunViews views;
    if (!report)
        return views;
    views.reserve(report->backends.size());
    for (const auto& run : report->backends)
        views.push_back(analyzeRun(RunSnapshot(report, &run)));
    return views;
}

std::shared_ptr<const TimeAttribution> timeOf(const RunViewSnapshot& view) {
    return view && view->time ? std::shared_ptr<const TimeAttribution>(view, &*view->time) : nullptr;
}

std::shared_ptr<const KernelLinks> linksOf(const RunViewSnapshot& view) {
    return view && view->links ? std::shared_ptr<const KernelLinks>(view, &*view->links) : nullptr;
}

std::shared_ptr<const KernelTrace> traceOf(const RunViewSnapshot& view) {
    return view && view->run->trace ? std::shared_ptr<const KernelTrace>(view, &*view->run->trace) : nullptr;
}

} // namespace fusescope
