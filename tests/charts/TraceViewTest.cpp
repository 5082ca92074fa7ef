#include "KernelTableModel.h"
#include "SyntheticTrace.h"
#include "TimelineView.h"
#include "TraceCompareWidget.h"
#include "TracePanel.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QImage>
#include <QPainter>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <nlohmann/json.hpp>

using namespace fusescope;

namespace {

std::shared_ptr<const KernelTrace> bigTrace(int events) {
    return std::make_shared<const KernelTrace>(synthetic::syntheticTrace(events));
}

int distinctColours(const QImage& image) {
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 2)
        for (int x = TimelineView::kHeaderWidth; x < image.width(); x += 2)
            colours.insert(image.pixel(x, y));
    return colours.size();
}

} // namespace

class TraceViewTest : public QObject {
    Q_OBJECT
private slots:
    void paints100kEventsQuickly();
    void zoomAndPanKeepTheCursorTime();
    void clickSelectsAnEvent();
    void compareViewsShareTheTimeScale();
    void kernelTableModelIsAValidModel();
    void panelExportsAndSignalsKernels();
};

void TraceViewTest::paints100kEventsQuickly() {
    TimelineView view;
    view.resize(1600, 300);
    view.setTrace(bigTrace(100'000));
    QImage image(1600, 300, QImage::Format_ARGB32_Premultiplied);
    QElapsedTimer timer;
    timer.start();
    {
        QPainter p(&image);
        view.paintTimeline(p, image.rect());
    }
    const qint64 fullMs = timer.elapsed();
    // Zoomed out, 100k events must collapse to at most a few spans per pixel column per lane.
    // (Back-to-back kernels less than a pixel apart merge into a few busy spans.)
    QVERIFY2(view.lastPaintedSpans() < 3 * 1600 * 3, qPrintable(QString::number(view.lastPaintedSpans())));
    QVERIFY(view.lastPaintedSpans() > 0);
    QVERIFY2(fullMs < 2000, qPrintable(QStringLiteral("full paint took %1 ms").arg(fullMs)));
    QVERIFY(distinctColours(image) > 3);

    // Zoomed into 1/1000 of the trace: individual, labelled, coloured boxes.
    view.setTimeRange(view.durationNs() / 2, view.durationNs() / 2 + view.durationNs() / 1000);
    QImage zoomed = view.grab().toImage();
    QVERIFY(distinctColours(zoomed) > 5);
    QVERIFY(view.lastPaintedSpans() > 0);
}

void TraceViewTest::zoomAndPanKeepTheCursorTime() {
    TimelineView view;
    view.resize(1000 + TimelineView::kHeaderWidth, 200);
    view.setTrace(bigTrace(1000));
    view.setTimeRange(0, 1'000'000); // 1000 ns per pixel
    QSignalSpy changed(&view, &TimelineView::timeRangeChanged);
    const QPointF at(TimelineView::kHeaderWidth + 250, 50); // 250'000 ns
    QWheelEvent wheel(at, view.mapToGlobal(at), {}, QPoint(0, 120), Qt::NoButton, Qt::NoModifier,
                      Qt::NoScrollPhase, false);
    QApplication::sendEvent(&view, &wheel);
    QCOMPARE(changed.count(), 1);
    const double span = view.rangeEndNs() - view.rangeStartNs();
    QVERIFY(span < 1'000'000);
    const double under = view.rangeStartNs() + 250 * span / 1000;
    QVERIFY(std::abs(under - 250'000) < 1);

    const double startBefore = view.rangeStartNs();
    QTest::mousePress(&view, Qt::LeftButton, {}, QPoint(TimelineView::kHeaderWidth + 500, 50));
    QMouseEvent move(QEvent::MouseMove, QPointF(TimelineView::kHeaderWidth + 400, 50),
                     view.mapToGlobal(QPointF(TimelineView::kHeaderWidth + 400, 50)), Qt::NoButton,
                     Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&view, &move);
    QTest::mouseRelease(&view, Qt::LeftButton, {}, QPoint(TimelineView::kHeaderWidth + 400, 50));
    QVERIFY(std::abs(view.rangeStartNs() - (startBefore + 100 * span / 1000)) <
            1); // dragged left: later times
}

void TraceViewTest::clickSelectsAnEvent() {
    KernelTrace t;
    t.tracks = {{7, "stream 7", TrackKind::CudaStream}};
    const int gemm = t.internName("sm80_gemm");
    t.events = {{1000, 4000, 7, gemm, EventKind::Kernel, 1, 0},
                {6000, 1000, 7, t.internName("add"), EventKind::Kernel, 2, 0}};
    t.finalize();
    TimelineView view;
    view.resize(1000 + TimelineView::kHeaderWidth, 100);
    view.setTrace(std::make_shared<const KernelTrace>(t));
    // Times are relative to the first event: gemm is [0, 4000), add [5000, 6000). At 10 ns per
    // pixel gemm covers x 0..400 of the plot.
    view.setTimeRange(0, 10'000);
    QSignalSpy selected(&view, &TimelineView::eventSelected);
    const QPoint onGemm(TimelineView::kHeaderWidth + 200, TimelineView::kRulerHeight + 5);
    QVERIFY(view.toolTipAt(onGemm).contains("sm80_gemm"));
    QVERIFY(view.toolTipAt(onGemm).contains("4.00 µs"));
    QTest::mouseClick(&view, Qt::LeftButton, {}, onGemm);
    QCOMPARE(selected.count(), 1);
    QCOMPARE(selected.at(0).at(0).toString(), QStringLiteral("sm80_gemm"));
    QCOMPARE(view.selectedEvent(), 0);
    QVERIFY(
        view.toolTipAt(QPoint(TimelineView::kHeaderWidth + 450, TimelineView::kRulerHeight + 5)).isEmpty());
}

void TraceViewTest::compareViewsShareTheTimeScale() {
    TraceCompareWidget compare;
    compare.resize(1200, 600);
    auto a = bigTrace(4000);
    auto b = bigTrace(2000);
    compare.setTraces(a, "inductor", b, "eager");
    compare.show();
    QVERIFY(QTest::qWaitForWindowExposed(&compare));
    QCOMPARE(compare.topView()->width(), compare.bottomView()->width());
    // Both start at their own first event and show the longer trace's span.
    QCOMPARE(compare.topView()->rangeStartNs(), 0.0);
    QCOMPARE(compare.topView()->rangeEndNs(), compare.bottomView()->rangeEndNs());
    QVERIFY(compare.topView()->rangeEndNs() >=
            std::max(compare.topView()->durationNs(), compare.bottomView()->durationNs()));

    const QPointF at(TimelineView::kHeaderWidth + 100, 30);
    QWheelEvent wheel(at, compare.topView()->mapToGlobal(at), {}, QPoint(0, 240), Qt::NoButton,
                      Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(compare.topView(), &wheel);
    QCOMPARE(compare.bottomView()->rangeStartNs(), compare.topView()->rangeStartNs());
    QCOMPARE(compare.bottomView()->rangeEndNs(), compare.topView()->rangeEndNs());
    QVERIFY(compare.topView()->rangeEndNs() < compare.topView()->durationNs());
}

void TraceViewTest::kernelTableModelIsAValidModel() {
    KernelTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setSortRole(KernelTableModel::SortRole);
    QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const KernelTrace trace = synthetic::syntheticTrace(2000);
    model.setStats(computeKernelStats(trace));
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(model.columnCount(), int(KernelTableModel::ColumnCount));
    proxy.sort(KernelTableModel::Calls, Qt::AscendingOrder);
    proxy.sort(KernelTableModel::Total, Qt::DescendingOrder);
    // Sorted by the raw total, not by the text.
    for (int r = 1; r < proxy.rowCount(); ++r)
        QVERIFY(proxy.index(r - 1, KernelTableModel::Total).data(KernelTableModel::SortRole).toLongLong() >=
                proxy.index(r, KernelTableModel::Total).data(KernelTableModel::SortRole).toLongLong());
    QVERIFY(model.rowOf("sm80_gemm") >= 0);
    model.setStats({});
    QCOMPARE(model.rowCount(), 0);
}

void TraceViewTest::panelExportsAndSignalsKernels() {
    Report report;
    report.backends.resize(3);
    report.backends[0].name = "eager";
    report.backends[1].name = "inductor";
    report.backends[1].trace = synthetic::syntheticTrace(3000);
    report.backends[2].name = "cudagraphs";

    TracePanel panel;
    panel.resize(1200, 800);
    panel.setReport(&report, analyzeReport(std::make_shared<const Report>(report)));
    QCOMPARE(panel.shownBackend(), 1);
    QCOMPARE(panel.kernelTable()->rowCount(), 4);

    QSignalSpy kernels(&panel, &TracePanel::kernelSelected);
    const QModelIndex first = panel.kernelTableView()->model()->index(0, 0);
    panel.kernelTableView()->selectionModel()->setCurrentIndex(first, QItemSelectionModel::ClearAndSelect);
    QCOMPARE(kernels.count(), 1);
    QCOMPARE(kernels.at(0).at(0).toString(), first.data().toString());

    // A trace that streams in later for another backend can be compared with the first.
    report.backends[2].trace = synthetic::syntheticTrace(1500, 4, 11);
    panel.backendChanged(2, analyzeRun(std::make_shared<const BackendRun>(report.backends[2])));
    panel.compareWith(2);
    QVERIFY(panel.timelines()->bottomView()->trace());

    QTemporaryDir dir;
    QString error;
    QVERIFY2(panel.exportChromeTrace(dir.filePath("t.json"), &error), qPrintable(error));
    QVERIFY2(panel.exportKernelCsv(dir.filePath("k.csv"), &error), qPrintable(error));
    QFile json(dir.filePath("t.json"));
    QVERIFY(json.open(QIODevice::ReadOnly));
    const auto doc = nlohmann::json::parse(json.readAll().toStdString());
    QVERIFY(doc["traceEvents"].size() > 6000);
    QFile csv(dir.filePath("k.csv"));
    QVERIFY(csv.open(QIODevice::ReadOnly));
    QCOMPARE(csv.readAll().count('\n'), 5);

    panel.showBackend(0);
    QVERIFY(!panel.exportChromeTrace(dir.filePath("none.json"), &error));
    QVERIFY(!error.isEmpty());
}

int main(int argc, char** argv) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    TraceViewTest test;
    return QTest::qExec(&test, argc, argv);
}

#include "TraceViewTest.moc"
