// Measured time on the graph in the Graphs tab: the heat colours and legend on both views, the
// Time panel's rows, a row selecting its nodes, and an export that keeps the legend
// (ui/GraphPanel, ui/TimeTable, ui/graph/GraphScene::setHeat).
#include "../fixtures/RooflineCounts.h"
#include "GraphExport.h"
#include "GraphItems.h"
#include "GraphPanel.h"
#include "GraphScene.h"
#include "GraphView.h"
#include "StageCompareWidget.h"
#include "TimeTable.h"
#include "report/ReportFile.h"
#include "trace/TimeAttribution.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace fusescope;

class TimeViewTest : public QObject {
    Q_OBJECT
private slots:
    void timeColoursBothViewsAndTheTableSelectsNodes() {
        auto read = readReport(FUSESCOPE_REPORT_FIXTURES "/good.fscope");
        QVERIFY(read);
        const auto snapshot = std::make_shared<const Report>(std::move(read).value());
        const Report* report = snapshot.get();
        GraphPanel panel;
        panel.resize(1200, 800);
        panel.setReport(report, analyzeReport(snapshot));
        panel.showBackend("inductor");
        panel.show();
        QVERIFY(panel.sideBySide());
        GraphScene* after = panel.compareWidget()->afterView()->graphScene();
        GraphScene* before = panel.compareWidget()->beforeView()->graphScene();
        QTRY_VERIFY(!after->isLayoutPending() && !before->isLayoutPending());
        QVERIFY(!after->heatLegend()); // off by default
        panel.setTimeShown(true);
        QVERIFY(panel.timeTable()->isVisible());
        QTRY_VERIFY(after->heatLegend() && before->heatLegend());
        QVERIFY(after->heatLegend()->maxShare() > 0 && after->heatLegend()->maxShare() <= 1);
        // Shares of one view's nodes add up to what the attribution tied to that stage.
        double sum = 0;
        for (const auto& h : after->heat())
            sum += h.share;
        const auto* run = report->findBackend("inductor");
        const TimeAttribution time = attributeKernelTime(*run);
        QVERIFY(std::abs(sum - (1 - time.unattributedNs / time.tracedNs)) < 1e-9);

        // The panel: rows by module, largest first, shares adding up to 100 %.
        TimeTable* table = panel.timeTable();
        QVERIFY(table->rowCount() > 1);
        double shares = 0;
        for (int r = 0; r < table->rowCount(); ++r)
            shares += table->text(r, 2).chopped(2).toDouble();
        QVERIFY2(std::abs(shares - 100) < 0.1 * table->rowCount(), qPrintable(QString::number(shares)));
        QVERIFY(table->text(0, 1).toDouble() >= table->text(1, 1).toDouble());
        QSignalSpy selected(table, &TimeTable::nodesSelected);
        table->selectRow(0);
        QCOMPARE(selected.count(), 1);
        const QStringList nodes = selected.front().at(1).toStringList();
        QVERIFY(!nodes.isEmpty());
        QTRY_VERIFY(!panel.compareWidget()->afterView()->graphScene()->highlightedNodes().isEmpty());
        table->setGrouping(TimeGrouping::Line);
        QVERIFY(table->rowCount() > 0);

        // Off again: no colours, no legend.
        panel.setTimeShown(false);
        QVERIFY(!after->heatLegend() && after->heat().isEmpty());
    }

    void roofHeatColoursAfterFusionNodesByTheirKernelsFraction() {
        auto read = readReport(FUSESCOPE_REPORT_FIXTURES "/good.fscope");
        QVERIFY(read);
        Report report = std::move(read).value();
        BackendRun* run = nullptr;
        for (auto& r : report.backends)
            if (r.name == "inductor")
                run = &r;
        QVERIFY(run && run->trace);
        // The fixture predates the roofline: give its kernels counts and the run roofs.
        fixtures::addRooflineCounts(*run);
        const auto snapshot = std::make_shared<const Report>(std::move(report));
        const auto views = analyzeReport(snapshot);
        GraphPanel panel;
        panel.resize(1200, 800);
        panel.setReport(snapshot.get(), views);
        panel.showBackend("inductor");
        panel.show();
        GraphScene* after = panel.compareWidget()->afterView()->graphScene();
        GraphScene* before = panel.compareWidget()->beforeView()->graphScene();
        QTRY_VERIFY(!after->isLayoutPending() && !before->isLayoutPending());
        panel.setTimeShown(true);
        panel.setRoofHeat(true);
        QVERIFY(panel.isRoofHeat());
        QTRY_VERIFY(after->heatLegend());
        QCOMPARE(after->heatScale(), HeatScale::RoofFraction);
        QVERIFY(after->heatLegend()->title().contains("roof"));
        QVERIFY(before->heat().isEmpty()); // before fusion: no kernel, no fraction
        // Each coloured node carries its kernel group's fraction as computeRoofline gives it.
        const StageGraph* stage = after->stage();
        QVERIFY(stage);
        const BackendRun* shown = snapshot->findBackend("inductor");
        size_t index = 0;
        for (size_t i = 0; i < snapshot->backends.size(); ++i)
            if (&snapshot->backends[i] == shown)
                index = i;
        const BackendRoofline& roofline = views[index]->roofline;
        QVERIFY(!after->heat().isEmpty());
        for (auto it = after->heat().cbegin(); it != after->heat().cend(); ++it) {
            const GraphNode* node = stage->findNode(it.key().toStdString());
            QVERIFY(node);
            bool found = false;
            for (const auto& k : roofline.kernels)
                if (k.stageKey == stage->key() && k.groupId == node->group && k.roofFraction) {
                    QVERIFY(std::abs(it->share - *k.roofFraction) < 1e-12);
                    found = true;
                }
            QVERIFY2(found, qPrintable(it.key()));
        }
        // Back to time: the legend is the time share again.
        panel.setRoofHeat(false);
        QTRY_VERIFY(after->heatLegend() && after->heatScale() == HeatScale::TimeShare);
        QVERIFY(after->heatLegend()->title().contains("time"));
    }

    void exportKeepsTheColoursAndTheLegend() {
        auto report = readReport(FUSESCOPE_REPORT_FIXTURES "/good.fscope");
        QVERIFY(report);
        const auto* run = report.value().findBackend("inductor");
        QTemporaryDir dir;
        const QString svg = dir.filePath("t.svg");
        QString error;
        QVERIFY2(exportStageImage(*run, "post_fusion", svg, 1.0, &error, true), qPrintable(error));
        QFile file(svg);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray text = file.readAll();
        QVERIFY(text.contains("Share of the traced kernel time"));
        const QString plain = dir.filePath("p.svg");
        QVERIFY(exportStageImage(*run, "post_fusion", plain, 1.0, &error));
        QFile other(plain);
        QVERIFY(other.open(QIODevice::ReadOnly));
        QVERIFY(!other.readAll().contains("Share of the traced kernel time"));
        // A run without a trace cannot be coloured by it, and says so.
        BackendRun untraced = *run;
        untraced.trace.reset();
        QVERIFY(!exportStageImage(untraced, "post_fusion", plain, 1.0, &error, true));
        QVERIFY(error.contains("no kernel trace"));
    }
};

QTEST_MAIN(TimeViewTest)
#include "TimeViewTest.moc"
