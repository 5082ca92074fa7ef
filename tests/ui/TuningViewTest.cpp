// The Tuning tab (docs/tuning.md) over a tuning outcome built here: the verdict, one table row per
// candidate with its interval or why it was dropped, the chart's classes and clicks, the snippet
// and its Copy button, and the main window's --tab tuning.
#include "MainWindow.h"
#include "TuneDialog.h"
#include "TuningChart.h"
#include "TuningPanel.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>
#include <qcustomplot.h>

using namespace fusescope;

namespace {

Report tunedReport() {
    Report report;
    report.modelSpec = "demo:mlp";
    for (const char* name : {"inductor", "inductor{freezing=true}", "tvm", "inductor{fullgraph}"}) {
        BackendRun row;
        row.name = name;
        row.status = RunStatus::Ok;
        report.backends.push_back(row);
    }
    TuneOutcome t;
    t.budgetSeconds = 300;
    t.elapsedSeconds = 281.5;
    t.stoppedBy = "max_rounds";
    t.candidates = {{"inductor", "space", "ok", 1.20, SpeedupInterval{1.17, 1.23}, 12.0, 65536, "pass",
                     std::nullopt, 3, ""},
                    {"inductor{freezing=true}", "space", "ok", 1.31, SpeedupInterval{1.28, 1.34}, 9.0, 60000,
                     "pass", std::nullopt, 3, ""},
                    {"tvm", "space", "ok", 0.40, SpeedupInterval{0.39, 0.41}, 2.0, 50000, "pass",
                     std::string("slower than inductor{freezing=true} beyond the uncertainty"), 1, ""},
                    {"inductor{fullgraph}", "space", "failed", std::nullopt, std::nullopt, std::nullopt,
                     std::nullopt, "", std::string("failed (compile_failed): graph break"), 1, ""},
                    {"inductor@lite", "advice", "pending", std::nullopt, std::nullopt, std::nullopt,
                     std::nullopt, "", std::nullopt, 0, "compile_kernel_compilation"}};
    t.best = TuneBest{"inductor{freezing=true}", 1.31, SpeedupInterval{1.28, 1.34},
                      "model = torch.compile(model, backend=\"inductor\", options={\"freezing\": True})"};
    t.runnersUp = {"inductor"};
    t.pareto = {"inductor{freezing=true}", "tvm"};
    t.adviceOutcomes = {
        {"inductor@lite", "compile_kernel_compilation", "inductor", "", "not measured: the budget ended"}};
    t.verdict =
        "inductor{freezing=true} is the best setting found for latency: 1.31x (1.28x-1.34x) over eager.";
    t.notes = {"precision is not in the space"};
    report.tuning = t;
    return report;
}

} // namespace

class TuningViewTest : public QObject {
    Q_OBJECT
private slots:
    void showsTheCandidatesTheAnswerAndTheSnippet() {
        const Report report = tunedReport();
        TuningPanel panel;
        panel.resize(1100, 700);
        panel.setReport(&report);
        panel.refresh();
        QCOMPARE(panel.table()->topLevelItemCount(), 5);
        const auto* best = panel.table()->topLevelItem(1);
        QCOMPARE(best->text(TuningPanel::Status), QString("best"));
        QCOMPARE(best->text(TuningPanel::Speedup), QString("1.31x (1.28x-1.34x)"));
        QVERIFY(panel.table()->topLevelItem(2)->text(TuningPanel::Status).startsWith("dropped: slower than"));
        QCOMPARE(panel.table()->topLevelItem(4)->text(TuningPanel::Origin),
                 QString("advice (compile_kernel_compilation)"));
        QVERIFY(panel.verdict().startsWith("inductor{freezing=true} is the best"));
        QCOMPARE(panel.snippet(), QString::fromStdString(report.tuning->best->snippet));
        panel.copySnippet();
        QCOMPARE(QApplication::clipboard()->text(), panel.snippet());
        // Three placed (the failed and the pending ones have no speedup), said in the caption.
        QCOMPARE(panel.chart()->placed().size(), size_t(3));
        QVERIFY(panel.chart()->caption().contains("3 of 5 candidates placed"));
        QVERIFY(panel.chart()->caption().contains("Stopped by max_rounds"));
    }

    void aPointAndARowSelectEachOther() {
        const Report report = tunedReport();
        TuningPanel panel;
        panel.resize(1100, 700);
        panel.setReport(&report);
        panel.refresh();
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        auto* plot = panel.chart()->plot();
        plot->replot();
        const QPoint at(int(plot->xAxis->coordToPixel(2.0)), int(plot->yAxis->coordToPixel(0.40)));
        QCOMPARE(panel.chart()->candidateAt(at), QString("tvm"));
        QSignalSpy clicked(panel.chart(), &TuningChart::candidateClicked);
        QTest::mouseClick(plot, Qt::LeftButton, {}, at);
        QCOMPARE(clicked.count(), 1);
        QCOMPARE(panel.table()->currentItem()->text(TuningPanel::Entry), QString("tvm"));
        QVERIFY(panel.selectCandidate("inductor"));
        QVERIFY(!panel.selectCandidate("nosuch"));
        QSignalSpy graphs(&panel, &TuningPanel::graphsRequested);
        emit panel.table()->itemActivated(panel.table()->topLevelItem(0), 0);
        QCOMPARE(graphs.count(), 1);
        QCOMPARE(graphs.at(0).at(0).toString(), QString("inductor"));
    }

    // The legend never hides a point: slow candidates with the longest compiles sit bottom right,
    // where a fixed legend covered them (seen on a scalar_break.py tuning).
    void theLegendLeavesEveryPointVisible() {
        Report report = tunedReport();
        for (auto& c : report.tuning->candidates)
            if (c.speedup) {
                c.speedup = *c.speedup * 0.2;
                c.speedupCi95 = SpeedupInterval{*c.speedup * 0.9, *c.speedup * 1.1};
            }
        TuningPanel panel;
        panel.resize(1100, 700);
        panel.setReport(&report);
        panel.refresh();
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        auto* plot = panel.chart()->plot();
        plot->replot();
        const QRect legend = plot->legend->outerRect();
        QVERIFY(legend.isValid());
        for (const auto& c : panel.chart()->placed()) {
            const QPoint at(int(plot->xAxis->coordToPixel(*c.compileSeconds)),
                            int(plot->yAxis->coordToPixel(*c.speedup)));
            QVERIFY2(!legend.adjusted(-6, -6, 6, 6).contains(at), c.entry.c_str());
        }
    }

    // Run > Tune...: the budget and the space file are checked as they are typed.
    void theTuneDialogChecksWhatIsTyped() {
        QStandardPaths::setTestModeEnabled(true);
        TuneDialog dialog;
        auto* ok = dialog.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
        dialog.budgetEdit()->setText("90s");
        dialog.spaceEdit()->clear();
        QVERIFY(ok->isEnabled());
        QCOMPARE(dialog.settings().value().budgetSeconds, 90.0);
        dialog.goalBox()->setCurrentText("memory");
        QCOMPARE(dialog.settings().value().goal, Goal::Memory);
        dialog.budgetEdit()->setText("5 minutes");
        QVERIFY(!ok->isEnabled());
        QVERIFY(dialog.problem().contains("budget '5 minutes'"));
        dialog.budgetEdit()->setText("5m");
        QTemporaryDir dir;
        const QString space = dir.filePath("space.toml");
        QFile file(space);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("backendz = [\"inductor\"]\n");
        file.close();
        dialog.spaceEdit()->setText(space);
        QVERIFY(!ok->isEnabled());
        QVERIFY(dialog.problem().contains("unknown key 'backendz'"));
        dialog.spaceEdit()->clear();
        QVERIFY(ok->isEnabled());
    }

    // The Tune action sits in the Run menu and the toolbar, disabled while a run goes.
    void theTuneActionIsInTheRunMenu() {
        MainWindow window;
        QAction* tune = nullptr;
        for (auto* action : window.findChildren<QAction*>())
            if (action->text() == "&Tune...")
                tune = action;
        QVERIFY(tune);
        QCOMPARE(tune->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_T));
        QVERIFY(tune->isEnabled());
    }

    void aReportWithoutTuningSaysHowToMakeOne() {
        Report report;
        TuningPanel panel;
        panel.setReport(&report);
        panel.refresh();
        QVERIFY(panel.verdict().contains("fusescope-cli tune"));
        QCOMPARE(panel.table()->topLevelItemCount(), 0);
        QVERIFY(panel.chart()->caption().contains("No tuning"));
    }
};

QTEST_MAIN(TuningViewTest)
#include "TuningViewTest.moc"
