// The main window over a saved report: every tab gets the report, and a kernel picked in the
// trace table selects that kernel in the Graphs tab with the nodes it came from.
#include "MainWindow.h"

#include "BackendCharts.h"
#include "ComparisonModel.h"
#include "GraphPanel.h"
#include "GraphView.h"
#include "KernelTableModel.h"
#include "ShapesPanel.h"
#include "StageCompareWidget.h"
#include "TracePanel.h"
#include "codec/ReportCodec.h"
#include "codec/RunCodec.h"
#include "codec/SettingsCodec.h"
#include "codec/StageCodec.h"
#include "codec/TraceCodec.h"
#include "engine/ReportModel.h"
#include "model/BackendEntry.h"
#include "report/ReportFile.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QSettings>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <fstream>
#include <qcustomplot.h>
#include <sstream>

using namespace fusescope;

namespace {

Report reportWithTrace() {
    std::ifstream in(FUSESCOPE_GRAPH_FIXTURES "/mlp_inductor_run.json");
    std::stringstream text;
    text << in.rdbuf();
    Report report;
    report.modelSpec = "demo:mlp";
    BackendRun run = codec::decodeBackendRun(nlohmann::json::parse(text.str())).value();
    run.status = RunStatus::Ok;
    run.eagerSamplesMs = {2.0, 2.1, 2.2};
    run.compiledSamplesMs = {1.0, 1.1, 1.2};
    KernelTrace trace;
    trace.source = "cpu-profiler";
    trace.tracks = {{1, "CPU thread 1", TrackKind::CpuThread}};
    const int32_t gelu = trace.internName("cpp_fused_gelu_1");
    const int32_t norm = trace.internName("cpp_fused_native_layer_norm_0");
    const int32_t mm = trace.internName("aten::mm"); // the extern calls k1 and k3, by launch order
    trace.events = {{1000, 500, 1, norm, EventKind::Kernel, 1, 0},
                    {1600, 200, 1, mm, EventKind::CpuOp, 2, 0},
                    {2000, 300, 1, gelu, EventKind::Kernel, 3, 0},
                    {2400, 200, 1, mm, EventKind::CpuOp, 4, 0}};
    trace.iterations = 1;
    trace.finalize();
    run.trace = trace;
    report.backends = {run};
    return report;
}

} // namespace

class MainWindowTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        // Settings (recent files, the goal) apart from the user's, and clean at every run.
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
    }

    // Every damaged report fixture (tests/fixtures/reports/damaged, make_damaged.py): refused ones
    // leave the window usable with the file and the bad field in the status line; repaired ones
    // open, and every tab draws them. A crash or a throw here fails the test run.
    void damagedReportsNeverCrashTheWindow() {
        const QDir dir(FUSESCOPE_REPORT_FIXTURES "/damaged");
        QFile manifest(dir.filePath("expected.json"));
        QVERIFY(manifest.open(QIODevice::ReadOnly));
        const auto expected = nlohmann::json::parse(manifest.readAll().toStdString());
        QVERIFY(expected.size() >= 30);
        MainWindow window;
        window.resize(1200, 700);
        window.show();
        QVERIFY(window.openReport(FUSESCOPE_REPORT_FIXTURES "/good.fscope"));
        for (const auto& [name, want] : expected.items()) {
            const QString path = dir.filePath(QString::fromStdString(name) + ".fscope");
            const bool opened = window.openReport(path);
            QCOMPARE(opened, !want["refused"].get<bool>());
            if (!opened) {
                const QString status = window.statusText();
                QVERIFY2(status.contains(QFileInfo(path).fileName()), qPrintable(status));
                if (want["path"].is_string())
                    QVERIFY2(status.contains(QString::fromStdString(want["path"].get<std::string>())),
                             qPrintable(status));
                continue;
            }
            for (const char* tab :
                 {"comparison", "graphs", "charts", "traces", "breaks", "shapes", "modules"}) {
                window.showTab(tab);
                QVERIFY(!window.grab().isNull());
            }
        }
        // Close the warnings the refused ones opened.
        for (QWidget* w : QApplication::topLevelWidgets())
            if (auto* box = qobject_cast<QMessageBox*>(w))
                box->close();
    }

    // The GUI must not measure while its own start-up probe (a Python worker importing torch)
    // runs: a run asked for at once (what `fusescope MODEL --run` does) waits for the probe.
    void firstRunWaitsForTheBackendProbe() {
        MainWindow window;
        QVERIFY(window.isProbing()); // started by the constructor, answers in seconds
        window.setModelSpec("demo:mlp");
        window.setBackends({"eager"});
        window.startRun();
        QVERIFY(!window.isRunning());
        QVERIFY(window.runWaitingForProbe());
        QVERIFY(window.statusText().contains("probe"));
        QTRY_VERIFY_WITH_TIMEOUT(!window.isProbing(), 120000);
        // The probe's answer started the run it held back; nothing of it was measured before.
        QVERIFY(!window.runWaitingForProbe());
        QVERIFY(window.isRunning());
        window.cancelRun();
        QTRY_VERIFY_WITH_TIMEOUT(!window.isRunning(), 30000);
    }

    // `fusescope --backends` splits with the CLI's brace-aware splitter: an entry's {options}
    // keep their commas, so this is two rows, not four broken ones.
    void backendsWithBracesAreOneRowEach() {
        MainWindow window;
        QStringList entries;
        for (const auto& entry : splitBackendList("eager,inductor{fullgraph,dynamic=false}"))
            entries << QString::fromStdString(entry);
        window.setBackends(entries);
        QCOMPARE(window.checkedBackends(), (QStringList{"eager", "inductor{fullgraph,dynamic=false}"}));
        auto request = requestFor(window.checkedBackends()[1].toStdString(), window.baseRequest().value());
        QVERIFY(request);
        QCOMPARE(request.value().backend, std::string("inductor"));
        QCOMPARE(request.value().options["fullgraph"], nlohmann::json(true));
        QCOMPARE(request.value().options["dynamic"], nlohmann::json(false));
    }

    // Opening a report reads it on the engine thread: the window shows it once the answer is
    // in, every view follows the ReportModel, and a second open replaces it in every tab.
    void openingReportsReplacesWhatEveryViewShows() {
        QTemporaryDir dir;
        const QString first = dir.filePath("a.fscope"), second = dir.filePath("b.fscope");
        Report a = reportWithTrace();
        Report b = reportWithTrace();
        b.backends[0].name = "inductor_b";
        b.backends.push_back(b.backends[0]);
        b.backends[1].name = "second_b";
        QVERIFY(!writeReport(a, first.toStdString()).has_value());
        QVERIFY(!writeReport(b, second.toStdString()).has_value());
        MainWindow window;
        QVERIFY(window.openReport(first));
        const quint64 generation = window.reportModel()->generation();
        QCOMPARE(window.comparisonModel()->rowCount(), 1);
        QVERIFY(window.openReport(second));
        QVERIFY(window.reportModel()->generation() > generation);
        QCOMPARE(window.comparisonModel()->rowCount(), 2);
        QCOMPARE(window.comparisonModel()->index(1, 0).data().toString(), QString("second_b"));
        QCOMPARE(window.report().backends.size(), size_t(2));
        QVERIFY(window.statusText().contains("b.fscope"));
        window.charts()->flush();
        QCOMPARE(window.charts()->sampleStrip(false)->dataCount(), 6);
        QVERIFY(!window.openReport(dir.filePath("missing.fscope")));
        QCOMPARE(window.report().backends.size(), size_t(2)); // a refused open changes nothing
        for (QWidget* w : QApplication::topLevelWidgets())
            if (auto* box = qobject_cast<QMessageBox*>(w))
                box->close();
    }

    void traceKernelSelectsItsNodesInTheGraphs() {
        QTemporaryDir dir;
        const QString path = dir.filePath("r.fscope");
        QVERIFY(!writeReport(reportWithTrace(), path.toStdString()).has_value());
        MainWindow window;
        window.resize(1400, 800);
        window.show();
        QVERIFY(window.openReport(path));
        QCOMPARE(window.tracePanel()->shownBackend(), 0);
        QVERIFY(window.graphPanel()->sideBySide());

        emit window.tracePanel()->kernelSelected("cpp_fused_native_layer_norm_0");
        StageCompareWidget* compare = window.graphPanel()->compareWidget();
        QCOMPARE(compare->beforeNodesOfKernel("k0"), (QStringList{"buf1", "buf2", "buf3"}));
        QVERIFY(compare->codeView()->toPlainText().contains("cpp_fused_native_layer_norm_0"));
        QCOMPARE(window.graphPanel()->showKernel("mlp", "no_such_kernel"), 0);
        // An extern call's op has no group of its name: it reaches its groups by launch order.
        const int mmNodes =
            compare->beforeNodesOfKernel("k1").size() + compare->beforeNodesOfKernel("k3").size();
        QVERIFY(mmNodes > 0);
        QCOMPARE(window.graphPanel()->showKernel("inductor", "aten::mm"), mmNodes);
        // The kernel table says how many nodes each row came from; "-" where nothing links.
        KernelTableModel* table = window.tracePanel()->kernelTable();
        auto nodesOf = [table](const QString& name) {
            return table->index(table->rowOf(name), KernelTableModel::Nodes).data().toString();
        };
        QCOMPARE(nodesOf("cpp_fused_native_layer_norm_0"), QString("3"));
        QCOMPARE(nodesOf("aten::mm"), QString::number(mmNodes));
    }

    // The run-wide warnings (the machine check before the first backend) show above the table with
    // their code and message; a report without any hides the banner again.
    void runWideWarningsShowAboveTheTable() {
        QTemporaryDir dir;
        auto report = readReport(FUSESCOPE_REPORT_FIXTURES "/good.fscope");
        QVERIFY(report);
        report.value().warnings = {{"machine_busy", "other processes kept 1.8 CPUs busy"},
                                   {"cpu_steal", "the hypervisor took 12 % of CPU time"}};
        const QString warned = dir.filePath("warned.fscope");
        QVERIFY(!writeReport(report.value(), warned.toStdString()).has_value());
        MainWindow window;
        window.resize(1200, 700);
        window.show();
        QVERIFY(window.openReport(warned));
        auto* banner = window.findChild<QLabel*>("runWarningsBanner");
        QVERIFY(banner);
        QVERIFY(banner->isVisible());
        QVERIFY2(banner->text().contains("[machine_busy]: other processes kept 1.8 CPUs busy"),
                 qPrintable(banner->text()));
        QVERIFY(banner->text().contains("[cpu_steal]: the hypervisor took 12 % of CPU time"));
        // The fixture itself, a real run: its eager row's baseline read 79.6 ms where the
        // inductor row's read 0.45 ms, which the derived baseline_drift names.
        QVERIFY(window.openReport(FUSESCOPE_REPORT_FIXTURES "/good.fscope"));
        QVERIFY(banner->isVisible());
        QVERIFY2(
            banner->text().contains("[baseline_drift]: the same eager calls took 0.4515 ms (median) beside "
                                    "inductor and 79.638 ms beside eager"),
            qPrintable(banner->text()));
        // Nothing stored and baselines that agree: no banner.
        report.value().warnings.clear();
        for (auto& run : report.value().backends)
            run.eagerSamplesMs = report.value().backends.back().eagerSamplesMs;
        const QString quiet = dir.filePath("quiet.fscope");
        QVERIFY(!writeReport(report.value(), quiet.toStdString()).has_value());
        QVERIFY(window.openReport(quiet));
        QVERIFY2(!banner->isVisible(), qPrintable(banner->text()));
    }

    // The menus (MainMenus) own the actions; the window routes them: Ctrl+R's action starts what
    // startRun starts, Alt+N switches tabs, and Save is off until there are rows.
    void menuActionsReachTheWindow() {
        MainWindow window;
        QAction* save = nullptr;
        QAction* shapes = nullptr;
        for (auto* action : window.findChildren<QAction*>()) {
            if (action->text() == "&Save Report As...")
                save = action;
            if (action->text() == "&Shapes")
                shapes = action;
        }
        QVERIFY(save && shapes);
        QVERIFY(!save->isEnabled());
        shapes->trigger();
        QCOMPARE(qobject_cast<QTabWidget*>(window.centralWidget())->currentWidget(),
                 static_cast<QWidget*>(window.shapesPanel()));
        QVERIFY(window.openReport(FUSESCOPE_REPORT_FIXTURES "/good.fscope"));
        QVERIFY(save->isEnabled());
    }

    void chartsShowEveryBackendOfTheReport() {
        QTemporaryDir dir;
        const QString path = dir.filePath("r.fscope");
        QVERIFY(!writeReport(reportWithTrace(), path.toStdString()).has_value());
        MainWindow window;
        QVERIFY(window.openReport(path));
        window.charts()->flush();
        QCOMPARE(window.charts()->sampleStrip(false)->dataCount(), 3);
    }
};

QTEST_MAIN(MainWindowTest)
#include "MainWindowTest.moc"
