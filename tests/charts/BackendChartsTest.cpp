#include "BackendCharts.h"

#include "analysis/LatencyStats.h"
#include "analysis/Summary.h"

#include <QFile>
#include <QImage>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <qcustomplot.h>

using namespace fusescope;

namespace {

BackendRun finishedRun(const std::string& name, double compiledMs, double eagerMs, int samples) {
    BackendRun run;
    run.name = name;
    run.status = RunStatus::Ok;
    run.compileSeconds = 3.5;
    run.peakMemoryBytes = int64_t{64} << 20;
    for (int i = 0; i < samples; ++i) {
        run.compiledSamplesMs.push_back(compiledMs + 0.01 * (i % 7));
        run.eagerSamplesMs.push_back(eagerMs + 0.02 * (i % 5));
    }
    return run;
}

// Points of a QCPStatisticalBox/QCPBars/QCPGraph container.
template <typename Plottable> int pointCount(Plottable* p) {
    return p->data()->size();
}

} // namespace

class BackendChartsTest : public QObject {
    Q_OBJECT
private slots:
    void pointsGrowAsSamplesStream();
    void updatesAreCoalesced();
    void statisticsComeFromTheCore();
    void logScaleToggles();
    void exportsNonBlankFiles();
    void compileTimeStacksItsPhases();
    void tuningStandsOnTheCompileBarAndTheLegendNamesOnlyWhatIsShown();
    void deploymentChartShowsOnlyArtifactBackends();
};

void BackendChartsTest::pointsGrowAsSamplesStream() {
    Report report;
    report.backends.push_back(finishedRun("eager", 2.0, 2.0, 20));
    report.backends.push_back(BackendRun{});
    report.backends[1].name = "inductor";
    report.backends[1].status = RunStatus::Running;

    BackendCharts charts;
    charts.setReport(&report);
    QCOMPARE(pointCount(charts.sampleStrip(false)), 20);
    QCOMPARE(pointCount(charts.sampleStrip(true)), 20);
    QCOMPARE(pointCount(charts.latencyBoxes(false)), 1);

    // The worker streams samples into the live run; the report's vector grows in place.
    BackendRun& live = report.backends[1];
    for (int batch = 1; batch <= 5; ++batch) {
        for (int i = 0; i < 10; ++i) {
            live.eagerSamplesMs.push_back(2.0 + 0.01 * i);
            live.compiledSamplesMs.push_back(1.0 + 0.01 * i);
        }
        charts.samplesArrived(1);
        QSignalSpy redrawn(&charts, &BackendCharts::redrawn);
        QVERIFY(redrawn.wait(2000));
        QCOMPARE(pointCount(charts.sampleStrip(false)), 20 + 10 * batch);
        QCOMPARE(pointCount(charts.sampleStrip(true)), 20 + 10 * batch);
        QCOMPARE(pointCount(charts.latencyBoxes(false)), 2);
    }
    live.compileSeconds = 12.0;
    live.peakMemoryBytes = int64_t{128} << 20;
    live.status = RunStatus::Ok;
    charts.backendUpdated(1);
    charts.flush();
    QCOMPARE(pointCount(charts.bars(BackendCharts::Chart::CompileTime)), 2);
    QCOMPARE(pointCount(charts.bars(BackendCharts::Chart::PeakMemory)), 2);
    QCOMPARE(pointCount(charts.bars(BackendCharts::Chart::Speedup)), 2);
    QCOMPARE(charts.bars(BackendCharts::Chart::CompileTime)->data()->at(1)->value, 12.0);

    // A run passed from outside the report (the one streaming now) is read through its pointer.
    BackendRun outside = finishedRun("cudagraphs", 0.5, 2.0, 7);
    charts.setLiveRun(2, &outside);
    charts.flush();
    QCOMPARE(pointCount(charts.sampleStrip(false)), 20 + 50 + 7);
    charts.setLiveRun(2, nullptr);
    charts.flush();
    QCOMPARE(pointCount(charts.sampleStrip(false)), 20 + 50);
}

void BackendChartsTest::updatesAreCoalesced() {
    Report report;
    report.backends.push_back(finishedRun("inductor", 1.0, 2.0, 0));
    BackendCharts charts;
    charts.setReport(&report);
    const int before = charts.redrawCount();
    QSignalSpy redrawn(&charts, &BackendCharts::redrawn);
    // 200 samples arriving back to back: one redraw, not 200.
    for (int i = 0; i < 200; ++i) {
        report.backends[0].compiledSamplesMs.push_back(1.0 + i * 0.001);
        charts.samplesArrived(0);
    }
    QVERIFY(redrawn.wait(2000));
    QTest::qWait(3 * BackendCharts::kRedrawIntervalMs);
    QCOMPARE(charts.redrawCount() - before, 1);
    QCOMPARE(pointCount(charts.sampleStrip(false)), 200);
}

void BackendChartsTest::statisticsComeFromTheCore() {
    Report report;
    report.backends.push_back(finishedRun("inductor", 1.0, 3.0, 9));
    BackendCharts charts;
    charts.setReport(&report);
    const LatencyStats s = computeLatencyStats(report.backends[0].compiledSamplesMs);
    const auto box = charts.latencyBoxes(false)->data()->at(0);
    QCOMPARE(box->median, s.median);
    QCOMPARE(box->lowerQuartile, s.q1);
    QCOMPARE(box->upperQuartile, s.q3);
    QCOMPARE(charts.bars(BackendCharts::Chart::Speedup)->data()->at(0)->value,
             *speedupOverEager(report.backends[0]));
}

void BackendChartsTest::logScaleToggles() {
    Report report;
    report.backends.push_back(finishedRun("inductor", 1.0, 3.0, 9));
    BackendCharts charts;
    charts.setReport(&report);
    auto* axis = charts.plot(BackendCharts::Chart::Latency)->yAxis;
    QCOMPARE(axis->scaleType(), QCPAxis::stLinear);
    charts.setLatencyLogScale(true);
    QVERIFY(charts.latencyLogScale());
    QCOMPARE(axis->scaleType(), QCPAxis::stLogarithmic);
    QVERIFY(axis->range().lower > 0);
    QCOMPARE(pointCount(charts.sampleStrip(false)), 9);
    charts.setLatencyLogScale(false);
    QCOMPARE(axis->scaleType(), QCPAxis::stLinear);
}

void BackendChartsTest::exportsNonBlankFiles() {
    Report report;
    report.backends.push_back(finishedRun("eager", 2.0, 2.0, 30));
    report.backends.push_back(finishedRun("inductor", 1.0, 2.0, 30));
    BackendCharts charts;
    charts.resize(900, 700);
    charts.setReport(&report);
    QTemporaryDir dir;
    for (auto chart : {BackendCharts::Chart::Latency, BackendCharts::Chart::Speedup,
                       BackendCharts::Chart::CompileTime, BackendCharts::Chart::PeakMemory}) {
        const QString stem = dir.filePath(QStringLiteral("chart%1").arg(static_cast<int>(chart)));
        QString error;
        QVERIFY2(charts.exportChart(chart, stem + ".png", 600, 400, &error), qPrintable(error));
        QVERIFY2(charts.exportChart(chart, stem + ".svg", 600, 400, &error), qPrintable(error));
        QVERIFY2(charts.exportChart(chart, stem + ".pdf", 600, 400, &error), qPrintable(error));

        const QImage png(stem + ".png");
        QCOMPARE(png.size(), QSize(600, 400));
        QSet<QRgb> colours;
        for (int y = 0; y < png.height(); y += 4)
            for (int x = 0; x < png.width(); x += 4)
                colours.insert(png.pixel(x, y));
        QVERIFY2(colours.size() > 3, "the PNG is blank");

        QFile svg(stem + ".svg");
        QVERIFY(svg.open(QIODevice::ReadOnly));
        const QByteArray svgText = svg.readAll();
        QVERIFY(svgText.contains("<svg"));
        QVERIFY(svgText.contains("inductor")); // the tick labels are drawn, not just a frame
        QVERIFY(svgText.count("<path") + svgText.count("<polyline") > 5);

        QFile pdf(stem + ".pdf");
        QVERIFY(pdf.open(QIODevice::ReadOnly));
        const QByteArray pdfBytes = pdf.readAll();
        QVERIFY(pdfBytes.startsWith("%PDF"));
        QVERIFY(pdfBytes.size() > 2000);
    }
    QString error;
    QVERIFY(!charts.exportChart(BackendCharts::Chart::Latency, dir.filePath("x.bmp"), 100, 100, &error));
    QVERIFY(error.contains("bmp"));
}

// compile_breakdown as a stacked bar: one segment per phase, in phase order, adding up to the
// compile_s bar they cover; a run without a breakdown keeps its single bar and no legend.
void BackendChartsTest::compileTimeStacksItsPhases() {
    Report report;
    report.backends.push_back(finishedRun("eager", 2.0, 2.0, 5));
    report.backends.push_back(finishedRun("inductor", 1.0, 2.0, 5));
    BackendCharts charts;
    charts.setReport(&report);
    QCustomPlot* plot = charts.plot(BackendCharts::Chart::CompileTime);
    QVERIFY(!plot->legend->visible());
    QVERIFY(charts.compilePhaseBars("kernel_compilation"));
    QVERIFY(!charts.compilePhaseBars("no_such_phase"));

    report.backends[1].compileSeconds = 10.0;
    report.backends[1].compileBreakdown = {
        {"dynamo_tracing", 1.0}, {"kernel_compilation", 8.5}, {"unaccounted", 0.5}};
    charts.backendUpdated(1);
    charts.flush();
    QCOMPARE(pointCount(charts.bars(BackendCharts::Chart::CompileTime)), 2); // compile_s of both runs
    double top = 0;
    for (const auto& [phase, seconds] : std::vector<std::pair<std::string, double>>{
             {"dynamo_tracing", 1.0}, {"kernel_compilation", 8.5}, {"unaccounted", 0.5}}) {
        QCPBars* bars = charts.compilePhaseBars(phase);
        QCOMPARE(pointCount(bars), 1);
        QCOMPARE(bars->data()->at(0)->key, 1.0);
        QCOMPARE(bars->data()->at(0)->value, seconds);
        bool found = false;
        top = std::max(top, bars->getValueRange(found, QCP::sdBoth).upper);
        QVERIFY(found);
    }
    QCOMPARE(top, 10.0); // stacked: the last segment ends at compile_s
    QCOMPARE(pointCount(charts.compilePhaseBars("inductor_lowering")), 0);
    QVERIFY(plot->legend->visible());
    // Issue 33: the legend covered the inductor bar of a training report. It sits beside the axis
    // rect, never on it, at any size the tab gives the chart.
    for (const QSize size : {QSize(320, 200), QSize(640, 400), QSize(1200, 700)}) {
        plot->resize(size);
        plot->replot();
        QVERIFY(plot->legend->outerRect().isValid());
        QVERIFY2(!plot->legend->outerRect().intersects(plot->axisRect()->rect()),
                 qPrintable(QStringLiteral("legend %1 on axis rect %2 at %3x%4")
                                .arg(plot->legend->outerRect().x())
                                .arg(plot->axisRect()->rect().right())
                                .arg(size.width())
                                .arg(size.height())));
    }
    const int withLegend = plot->axisRect()->rect().width();

    report.backends[1].compileBreakdown.clear();
    charts.backendUpdated(1);
    charts.flush();
    QCOMPARE(pointCount(charts.compilePhaseBars("kernel_compilation")), 0);
    QVERIFY(!plot->legend->visible());
    plot->replot();
    QVERIFY(plot->axisRect()->rect().width() > withLegend); // a hidden legend gives its room back
}

// A tvm{tune=N} row: its tuning bar stands on its compile bar (tune_s is not compile_s), the
// axis reaches the top of both, and the legend lists the tuning alone, not every empty phase.
void BackendChartsTest::tuningStandsOnTheCompileBarAndTheLegendNamesOnlyWhatIsShown() {
    Report report;
    report.backends.push_back(finishedRun("tvm", 1.0, 2.0, 5));
    report.backends.push_back(finishedRun("tvm{tune=64}", 1.0, 2.0, 5));
    report.backends[1].compileSeconds = 3.0;
    Tuning tuning;
    tuning.seconds = 200.0;
    tuning.cache = "miss";
    report.backends[1].tuning = tuning;
    BackendCharts charts;
    charts.setReport(&report);
    charts.flush();
    QCustomPlot* plot = charts.plot(BackendCharts::Chart::CompileTime);
    QCPBars* tune = charts.tuningBars();
    QVERIFY(tune);
    QCOMPARE(pointCount(tune), 1);
    QCOMPARE(tune->data()->at(0)->key, 1.0);
    QCOMPARE(tune->barBelow(), charts.bars(BackendCharts::Chart::CompileTime));
    QVERIFY(plot->yAxis->range().upper >= 203.0);
    QVERIFY(plot->legend->visible());
    QCOMPARE(plot->legend->itemCount(), 1);
    QVERIFY(plot->legend->hasItemWithPlottable(tune));
}

// The deployment chart (BackendRun::deployment): hidden until a backend has an artifact, then
// artifact size, eager size (KiB) and load time (ms, right axis) for those backends only, keyed
// 0, 1, ... among them; it exports like the other charts.
void BackendChartsTest::deploymentChartShowsOnlyArtifactBackends() {
    Report report;
    report.backends.push_back(finishedRun("eager", 2.0, 2.0, 5));
    report.backends.push_back(finishedRun("inductor", 1.0, 2.0, 5));
    report.backends.push_back(finishedRun("aot_inductor", 0.8, 2.0, 5));
    BackendCharts charts;
    charts.resize(900, 900);
    charts.setReport(&report);
    QCustomPlot* plot = charts.plot(BackendCharts::Chart::Deployment);
    QVERIFY(plot->isHidden());
    QCOMPARE(pointCount(charts.deploymentBars(BackendCharts::DeploymentSeries::ArtifactSize)), 0);

    Deployment d;
    d.artifact = "model.pt2";
    d.artifactBytes = 200 * 1024;
    d.eagerModelBytes = 100 * 1024;
    d.loadSeconds = 0.015;
    d.freshProcesses = 3;
    report.backends[2].deployment = d;
    charts.backendUpdated(2);
    charts.flush();
    QVERIFY(!plot->isHidden());
    QCOMPARE(charts.deploymentBackends(), QStringList{"aot_inductor"});
    auto* artifact = charts.deploymentBars(BackendCharts::DeploymentSeries::ArtifactSize);
    auto* eager = charts.deploymentBars(BackendCharts::DeploymentSeries::EagerSize);
    auto* load = charts.deploymentBars(BackendCharts::DeploymentSeries::LoadTime);
    QCOMPARE(pointCount(artifact), 1);
    QCOMPARE(artifact->data()->at(0)->key, 0.0);
    QCOMPARE(artifact->data()->at(0)->value, 200.0); // KiB
    QCOMPARE(eager->data()->at(0)->value, 100.0);
    QCOMPARE(load->data()->at(0)->value, 15.0); // ms
    QCOMPARE(load->valueAxis(), plot->yAxis2);
    QVERIFY(plot->yAxis->label().contains("KiB"));

    QTemporaryDir dir;
    for (const char* suffix : {".png", ".svg", ".pdf"}) {
        QString error;
        QVERIFY2(charts.exportChart(BackendCharts::Chart::Deployment, dir.filePath(QString("d") + suffix),
                                    600, 400, &error),
                 qPrintable(error));
    }
    QFile svg(dir.filePath("d.svg"));
    QVERIFY(svg.open(QIODevice::ReadOnly));
    QVERIFY(svg.readAll().contains("aot_inductor"));

    report.backends[2].deployment.reset();
    charts.backendUpdated(2);
    charts.flush();
    QVERIFY(plot->isHidden());
}

int main(int argc, char** argv) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    BackendChartsTest test;
    return QTest::qExec(&test, argc, argv);
}

#include "BackendChartsTest.moc"
