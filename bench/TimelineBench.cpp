// Frame costs of the kernel timeline: the visible-range query with sub-pixel merging
// (TimelineIndex) and a full TimelineView paint, against the naive "look at every event" way, in
// the same run, so the result is a ratio. Prints the tables of docs/trace-view.md.
//
//   fusescope_bench_timeline [--snapshot DIR]   (DIR gets PNGs of the painted timelines)
#include "SyntheticTrace.h"
#include "TimelineView.h"
#include "trace/KernelLinks.h"
#include "trace/TimelineIndex.h"

#include <QApplication>
#include <QImage>
#include <QPainter>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <vector>

using namespace fusescope;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kWidth = 1600;

// Median of `repeats` runs, in milliseconds: one frame's cost without the first-touch outliers.
double medianMs(int repeats, const std::function<size_t()>& frame, size_t* result) {
    std::vector<double> ms;
    for (int i = 0; i < repeats; ++i) {
        const auto t0 = Clock::now();
        *result = frame();
        ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
    std::nth_element(ms.begin(), ms.begin() + repeats / 2, ms.end());
    return ms[static_cast<size_t>(repeats / 2)];
}

size_t indexedFrame(const TimelineIndex& index, int64_t t0, int64_t t1) {
    const double npp = static_cast<double>(t1 - t0) / kWidth;
    size_t spans = 0;
    for (int track : index.eventTracks())
        for (int lane = 0; lane < index.laneCount(track); ++lane)
            spans += index.spansInLane(track, lane, t0, t1, npp).size();
    return spans;
}

// The naive frame: test every event of the trace against the window and merge sub-pixel
// neighbours while walking (per track, ignoring nesting).
size_t naiveFrame(const KernelTrace& trace, int64_t t0, int64_t t1) {
    const double npp = static_cast<double>(t1 - t0) / kWidth;
    size_t spans = 0;
    int track = -1;
    int64_t groupEnd = INT64_MIN;
    for (const TraceEvent& e : trace.events) {
        if (e.track != track) {
            track = e.track;
            groupEnd = INT64_MIN;
        }
        if (e.startNs >= t1 || e.endNs() <= t0)
            continue;
        const bool narrow = static_cast<double>(e.durationNs) < npp;
        if (narrow && static_cast<double>(e.startNs - groupEnd) < npp) {
            groupEnd = std::max(groupEnd, e.endNs());
            continue;
        }
        ++spans;
        groupEnd = narrow ? e.endNs() : INT64_MIN;
    }
    return spans;
}

// The naive paint: every overlapping event drawn as its own box, labelled when wide enough like
// the view does, with no merging and no memory strip.
size_t naivePaint(const KernelTrace& trace, int64_t t0, int64_t t1, QImage& image) {
    QPainter p(&image);
    p.fillRect(image.rect(), Qt::white);
    const QFontMetrics fm(p.font());
    const double npp = static_cast<double>(t1 - t0) / kWidth;
    size_t drawn = 0;
    for (const TraceEvent& e : trace.events) {
        if (e.startNs >= t1 || e.endNs() <= t0)
            continue;
        const double x = static_cast<double>(e.startNs - t0) / npp;
        const QRectF box(x, 20 + (e.track % 4) * 20, std::max(static_cast<double>(e.durationNs) / npp, 1.0),
                         16);
        p.fillRect(box, QColor::fromHsv(e.name * 37 % 360, 120, 220));
        if (box.width() > 40) {
            const QRectF visible = box.intersected(QRectF(image.rect()));
            p.drawText(visible, Qt::AlignVCenter,
                       fm.elidedText(QString::fromStdString(trace.names[static_cast<size_t>(e.name)]),
                                     Qt::ElideRight, static_cast<int>(visible.width())));
        }
        ++drawn;
    }
    return drawn;
}

} // namespace

int main(int argc, char** argv) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    const QString snapshotDir = argc > 2 && QString::fromLatin1(argv[1]) == QLatin1String("--snapshot")
                                    ? QString::fromLocal8Bit(argv[2])
                                    : QString();

    std::printf(
        "| kernels | events | zoom (of span) | drawn spans | indexed query+merge ms | naive scan ms | "
        "naive/indexed |"
        " view paint ms | naive paint ms | naive/view |\n|---|---|---|---|---|---|---|---|---|---|\n");
    for (int kernels : {100'000, 1'000'000}) {
        auto trace = std::make_shared<const KernelTrace>(synthetic::syntheticTrace(kernels));
        const auto b0 = Clock::now();
        const TimelineIndex index(*trace);
        const double buildMs = std::chrono::duration<double, std::milli>(Clock::now() - b0).count();
        TimelineView view;
        view.resize(kWidth + TimelineView::kHeaderWidth, 400);
        view.setTrace(trace);
        const int64_t begin = trace->beginNs();
        const int64_t span = trace->endNs() - begin;
        for (int64_t divisor : {1, 10, 100, 1000, 10000}) {
            const int64_t width = span / divisor;
            const int64_t t0 = begin + span / 2 - width / 2;
            const int64_t t1 = t0 + width;
            const int repeats = divisor == 1 && kernels > 100'000 ? 5 : 15;
            size_t spans = 0;
            size_t naiveSpans = 0;
            const double indexed = medianMs(
                repeats, [&] { return indexedFrame(index, t0, t1); }, &spans);
            const double naive = medianMs(
                repeats, [&] { return naiveFrame(*trace, t0, t1); }, &naiveSpans);

            view.setTimeRange(static_cast<double>(t0 - begin), static_cast<double>(t1 - begin));
            QImage image(kWidth + TimelineView::kHeaderWidth, 400, QImage::Format_ARGB32_Premultiplied);
            size_t painted = 0;
            const double paint = medianMs(
                repeats,
                [&] {
                    QPainter p(&image);
                    view.paintTimeline(p, image.rect());
                    return view.lastPaintedSpans();
                },
                &painted);
            if (!snapshotDir.isEmpty())
                image.save(QStringLiteral("%1/timeline-%2k-1of%3.png")
                               .arg(snapshotDir)
                               .arg(kernels / 1000)
                               .arg(divisor));
            QImage naiveImage(kWidth, 400, QImage::Format_ARGB32_Premultiplied);
            size_t naiveDrawn = 0;
            const double naivePaintMs = medianMs(
                std::min(repeats, 5), [&] { return naivePaint(*trace, t0, t1, naiveImage); }, &naiveDrawn);
            std::printf(
                "| %dk | %zu | 1/%lld | %zu | %.3f | %.3f | %.0fx | %.2f | %.1f (%zu rects) | %.0fx |\n",
                kernels / 1000, trace->events.size(), static_cast<long long>(divisor), spans, indexed, naive,
                naive / indexed, paint, naivePaintMs, naiveDrawn, naivePaintMs / paint);
            (void)naiveSpans;
            std::fflush(stdout);
        }
        std::printf("| %dk | %zu | index build | | %.1f ms once per trace | | | | | |\n", kernels / 1000,
                    trace->events.size(), buildMs);
        // Linking kernels to groups (what a kernel-table click and `show --json` do): the
        // synthetic names as one Inductor graph, the GEMM as its extern call.
        StageGraph stage;
        stage.name = "post_fusion";
        stage.fusion = "after";
        int n = 0;
        for (const auto& [name, kind] :
             std::vector<std::pair<std::string, std::string>>{{"triton_poi_fused_add_0", "kernel"},
                                                              {"triton_red_fused_sum_1", "kernel"},
                                                              {"extern_kernels.mm", "extern_kernel"},
                                                              {"triton_per_fused_softmax_2", "kernel"}})
            stage.groups.push_back({name + ":" + std::to_string(++n), name, kind, {}, {}, {}, std::nullopt});
        size_t linked = 0;
        const double linkMs = medianMs(
            3, [&] { return linkKernelsToGroups(*trace, {&stage}).groups.size(); }, &linked);
        std::printf("| %dk | %zu | link kernels to groups | | %.1f ms (%zu names linked) | | | | | |\n",
                    kernels / 1000, trace->events.size(), linkMs, linked);
    }
    return 0;
}
