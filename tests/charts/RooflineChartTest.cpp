// The Roofline chart (ui/charts/RooflineChart.h, docs/roofline.md): kernels placed on log-log
// intensity x GFLOP/s under the roofs, the ones that cannot be placed counted, a click on a point
// naming its kernel.
#include "RooflineChart.h"

#include <QSignalSpy>
#include <QTest>
#include <qcustomplot.h>

using namespace fusescope;

namespace {

KernelRoofline kernel(const std::string& name, std::optional<int64_t> bytes, std::optional<int64_t> flops,
                      double timeMs, const Roofs& roofs) {
    KernelRoofline k;
    k.name = k.traceName = name;
    k.calls = 5;
    k.bytes = bytes;
    k.flops = flops;
    k.dtype = "float32";
    k.timeMs = timeMs;
    applyRoofs(k, &roofs);
    noteAboveRoof(k, roofs);
    return k;
}

Roofs roofs() {
    Roofs r;
    r.bandwidthGbs = 20;
    r.gflops = {{"float32", 100}, {"bfloat16", 200}};
    r.measuredAt = "2026-12-07T05:00:00+00:00";
    r.threads = 1;
    return r;
}

} // namespace

class RooflineChartTest : public QObject {
    Q_OBJECT
private slots:
    void placesKernelsAndCountsTheRest() {
        const Roofs r = roofs();
        RooflineChart chart;
        chart.resize(800, 500);
        chart.setRoofline({kernel("cpp_fused_gelu_0", 100000, 20000, 0.01, r),           // memory-bound
                           kernel("aten::addmm", 40000, 8000000, 0.1, r),                // compute-bound
                           kernel("cpp_fused_copy_1", 100000, 0, 0.01, r),               // no arithmetic
                           kernel("aten::copy_", std::nullopt, std::nullopt, 0.005, r)}, // not linked
                          &r, "inductor");
        QCOMPARE(chart.placed().size(), size_t(2));
        QVERIFY(chart.caption().contains("2 of 4 kernels placed"));
        QVERIFY(chart.caption().contains("2 without bytes"));
        QVERIFY(chart.caption().contains("1 thread"));
        // Two roofs (float32, bfloat16) and two classes of points (memory, compute).
        QCOMPARE(chart.plot()->graphCount(), 4);
        QCOMPARE(chart.plot()->graph(0)->name().left(7), QStringLiteral("float32"));
    }

    void clickingAPointNamesItsKernel() {
        const Roofs r = roofs();
        RooflineChart chart;
        chart.resize(800, 500);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.setRoofline({kernel("cpp_fused_gelu_0", 100000, 20000, 0.01, r),
                           kernel("aten::addmm", 40000, 8000000, 0.1, r)},
                          &r, "inductor");
        chart.plot()->replot();
        const QPoint at(static_cast<int>(chart.plot()->xAxis->coordToPixel(200.0)),
                        static_cast<int>(chart.plot()->yAxis->coordToPixel(80.0)));
        QCOMPARE(chart.kernelAt(at), QStringLiteral("aten::addmm"));
        QSignalSpy clicked(&chart, &RooflineChart::kernelClicked);
        QTest::mouseClick(chart.plot(), Qt::LeftButton, {}, at);
        QCOMPARE(clicked.count(), 1);
        QCOMPARE(clicked.at(0).at(0).toString(), QStringLiteral("aten::addmm"));
        // Far from every point: nothing.
        QTest::mouseClick(chart.plot(), Qt::LeftButton, {}, QPoint(5, 5));
        QCOMPARE(clicked.count(), 1);
        // The selected point is ringed: one more graph.
        QCOMPARE(chart.plot()->graphCount(), 5);
    }

    void withoutRoofsSaysWhyAndStillPlacesMeasuredRates() {
        Roofs skipped;
        skipped.error = "skipped: the request said capture.roofs = skip (--no-roofs)";
        KernelRoofline k;
        k.name = k.traceName = "cpp_fused_gelu_0";
        k.bytes = 100000;
        k.flops = 20000;
        k.timeMs = 0.01;
        applyRoofs(k, &skipped);
        RooflineChart chart;
        chart.setRoofline({k}, &skipped, "inductor");
        QCOMPARE(chart.placed().size(), size_t(1));
        QVERIFY(chart.caption().contains("--no-roofs"));
        QCOMPARE(chart.plot()->graphCount(), 1); // the point, grey: no roof to compare with
    }
};

QTEST_MAIN(RooflineChartTest)
#include "RooflineChartTest.moc"
