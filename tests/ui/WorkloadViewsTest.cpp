// The workload views of the main window over a report built here: the recommendation under the
// table, graph breaks with their source, the break banner on the Dynamo graph, the shape study,
// the module tree that builds a mixed run, and the workload options that go into a run request.
#include "AdvicePanel.h"
#include "BackendEntryDialog.h"
#include "BreaksPanel.h"
#include "ComparisonModel.h"
#include "ComparisonTab.h"
#include "GraphPanel.h"
#include "MainWindow.h"
#include "ModuleAssignPanel.h"
#include "RecommendationPanel.h"
#include "ShapesPanel.h"
#include "WorkloadOptions.h"
#include "analysis/Format.h"
#include "report/ReportFile.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>
#include <QTreeWidget>
#include <algorithm>

using namespace fusescope;

namespace {

const char* kShapes = "1x8:int64;4x8:int64";
// The break below is at line 4, `print(x)`.
const char* kSource = "import torch\n\ndef forward(x):\n    print(x)\n    return x * 2\n";

StageGraph dynamoGraph(int graph) {
    StageGraph s;
    s.name = "dynamo_fx";
    s.graph = graph;
    s.label = "Dynamo FX graph";
    s.level = "torch";
    s.fusion = "none";
    GraphNode x{"x", "x", "placeholder", "placeholder", "input", {{"4", "8"}}, {"float32"}, "", "", {},
                "",  {}};
    GraphNode lin{"linear",     "linear",    "torch._C._nn.linear", "call_function",   "matmul",
                  {{"4", "8"}}, {"float32"}, "encoder.0",           "torch.nn.Linear", {},
                  "",           {}};
    s.nodes = {x, lin};
    s.edges = {{"x", "linear"}};
    return s;
}

BackendRun okRun(const std::string& name, std::vector<double> compiled, double compile) {
    BackendRun run;
    run.name = name;
    run.status = RunStatus::Ok;
    run.compileSeconds = compile;
    // Ten pairs: the recommendation calls a win only when the speedups' 95 % intervals are apart,
    // and fewer than six pairs never are (docs/measurement.md).
    run.eagerSamplesMs = {2.0, 2.2, 2.1, 1.9, 2.0, 2.1, 1.9, 2.0, 2.2, 2.0};
    run.compiledSamplesMs = std::move(compiled);
    run.peakMemoryBytes = 1 << 20;
    run.memoryMethod = "profiler-allocator-peak";
    run.accuracy =
        Accuracy{1e-6, 1e-5, 0.999999, 1e-7, true, "allclose", 1e-2, "bf16", "pass", "", std::nullopt};
    run.workload = Workload{"training", "bf16", {}, {}};
    return run;
}

// Inductor and aot_eager tie inside the spread, eager is slower, `broken` fails accuracy.
Report workloadReport(const QString& sourceFile) {
    Report r;
    r.modelSpec = "demo:tiny";
    r.model.name = "demo:tiny";
    r.model.modules = {{"encoder", "Sequential", 136, 1}, {"encoder.0", "Linear", 72, 2},
                       {"encoder.1", "Linear", 64, 2},    {"decoder", "Linear", 72, 1},
                       {"layers", "ModuleList", 144, 1},  {"layers.0", "Linear", 72, 2}};
    r.settings.workload = Workload{"training", "bf16", parseShapeList(kShapes).value(), {}};

    BackendRun eager = okRun("eager", {2.0, 2.2, 2.1, 1.9, 2.0, 2.0, 2.1, 2.2, 1.9, 2.0}, 0.1);
    BackendRun inductor = okRun("inductor", {1.0, 1.2, 0.9, 1.0, 1.1, 1.0, 1.1, 0.9, 1.2, 1.0}, 30);
    inductor.graphs = 3;
    inductor.graphBreaks = 2;
    inductor.stages = {dynamoGraph(0), dynamoGraph(1), dynamoGraph(2)};
    inductor.breakReasons = {
        GraphBreak{"call to print", sourceFile.toStdString(), 4, "Graph break: builtin print", 1},
        GraphBreak{"data-dependent branch", "/nonexistent/fusescope/helper.py", 7, "", 2}};
    TrainingResult training;
    training.loss = "mean of squares";
    training.optimizer = "SGD(lr=1e-3)";
    training.batchSize = 4;
    training.compileForwardSeconds = 2.5;
    training.compileBackwardSeconds = 4.25;
    training.gradientAccuracy =
        Accuracy{2e-4, 3e-3, 0.9999, 1e-4, true, "allclose", 1e-2, "bf16", "pass", "", std::nullopt};
    training.worstParameter = "encoder.0.weight";
    inductor.training = training;
    ShapeStudy study;
    study.sets = parseShapeList(kShapes).value();
    ShapeRun fixed;
    fixed.dynamic = false;
    fixed.recompiles = 1;
    fixed.guardFailures = 1;
    fixed.recompileLimit = 1;
    fixed.limitHit = true;
    fixed.points = {{0, "ok", false, 2.0, {1.0, 1.0, 1.0}, {0.5, 0.5, 0.5}, ""},
                    {1, "ok", true, 0.1, {4.0, 4.0, 4.0}, {4.0, 4.0, 4.0}, ""}};
    ShapeRun dynamic;
    dynamic.dynamic = true;
    dynamic.recompiles = 0;
    dynamic.guardFailures = 0;
    dynamic.recompileLimit = 8;
    dynamic.points = {{0, "ok", false, 3.0, {1.0, 1.0, 1.0}, {0.8, 0.8, 0.8}, ""},
                      {1, "failed", false, std::nullopt, {}, {}, "input set 1: shape mismatch"}};
    study.runs = {fixed, dynamic};
    inductor.shapes = study;

    BackendRun aot = okRun("aot_eager", {1.05, 1.1, 1.0, 1.0, 1.05, 1.0, 1.05, 1.1, 1.0, 1.05}, 5);
    BackendRun broken = okRun("broken", {0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5}, 1);
    broken.accuracy->pass = false;
    broken.accuracy->maxRel = 0.4;
    r.backends = {eager, inductor, aot, broken};
    SearchOutcome search;
    search.strategy = "exhaustive";
    search.candidates = {{"mixed[encoder=inductor,decoder=eager]", "ok", std::nullopt, std::nullopt},
                         {"mixed[encoder=eager,decoder=inductor]", "failed", std::nullopt, std::nullopt}};
    search.verdict = "no assignment beats inductor beyond the measured spread; keep inductor";
    search.pick = "inductor";
    r.search = search;
    return r;
}

struct Fixture {
    QTemporaryDir dir;
    QString source;
    QString report;

    Fixture() {
        source = dir.filePath("model.py");
        QFile f(source);
        if (f.open(QIODevice::WriteOnly))
            f.write(kSource);
        report = dir.filePath("r.fscope");
        writeReport(workloadReport(source), report.toStdString());
    }
};

QTabWidget* tabsOf(MainWindow& window) {
    return window.findChild<QTabWidget*>();
}

} // namespace

class WorkloadViewsTest : public QObject {
    Q_OBJECT
private slots:
    // FUSESCOPE_SAVE_WORKLOAD_REPORT=DIR keeps this test's report (and its source file) in DIR, to
    // look at it in the app: fusescope DIR/workload.fscope --tab breaks.
    void initTestCase() {
        // Settings (recent files, the goal) apart from the user's, and clean at every run.
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
        const QString keep = qEnvironmentVariable("FUSESCOPE_SAVE_WORKLOAD_REPORT");
        if (keep.isEmpty())
            return;
        QDir().mkpath(keep);
        const QString source = QDir(keep).filePath("model.py");
        QFile f(source);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(kSource);
        f.close();
        QVERIFY(!writeReport(workloadReport(source), QDir(keep).filePath("workload.fscope").toStdString()));
    }

    void goalAndBudgetStayPickedForTheNextSession() {
        {
            RecommendationPanel panel;
            QCOMPARE(panel.goal(), Goal::Latency); // settings cleared in initTestCase
            panel.setGoal(Goal::Compile);
            panel.findChild<QDoubleSpinBox*>()->setValue(12.5);
        }
        RecommendationPanel next;
        QCOMPARE(next.goal(), Goal::Compile);
        QCOMPARE(next.findChild<QDoubleSpinBox*>()->value(), 12.5);
        QVERIFY(next.findChild<QDoubleSpinBox*>()->isEnabled());
        next.setGoal(Goal::Latency); // the other tests start from the default
        QVERIFY(!next.findChild<QDoubleSpinBox*>()->isEnabled());
    }

    void recommendationShowsTheTieAndTheExcluded() {
        Fixture fx;
        MainWindow window;
        QVERIFY(window.openReport(fx.report));
        RecommendationPanel* panel = window.recommendationPanel();
        QVERIFY2(panel->verdictText().contains("no single winner"), qPrintable(panel->verdictText()));
        QVERIFY(panel->verdictText().contains("inductor"));
        QVERIFY(panel->verdictText().contains("aot_eager"));
        QTreeWidget* ranked = panel->rankedList();
        QCOMPARE(ranked->topLevelItemCount(), 3);
        QStringList tierOne;
        for (int i = 0; i < ranked->topLevelItemCount(); ++i)
            if (ranked->topLevelItem(i)->text(0) == "1")
                tierOne << ranked->topLevelItem(i)->text(1);
        tierOne.sort();
        QCOMPARE(tierOne, (QStringList{"aot_eager", "inductor"}));
        QCOMPARE(ranked->topLevelItem(2)->text(1), QString("eager"));
        QCOMPARE(ranked->topLevelItem(2)->text(0), QString("2"));
        QCOMPARE(panel->excludedList()->topLevelItemCount(), 1);
        QCOMPARE(panel->excludedList()->topLevelItem(0)->text(0), QString("broken"));
        QVERIFY(panel->excludedList()->topLevelItem(0)->text(1).contains("failed accuracy"));
        QVERIFY(panel->searchText().contains("2 candidates"));
        QVERIFY(panel->searchText().contains("keep inductor"));

        // A 10 s compile budget leaves eager alone (inductor 30 s, aot_eager 5 s... and eager 0.1 s).
        panel->setGoal(Goal::Compile);
        panel->budgetBox()->setValue(10);
        QStringList excluded;
        for (int i = 0; i < panel->excludedList()->topLevelItemCount(); ++i)
            excluded << panel->excludedList()->topLevelItem(i)->text(0);
        QVERIFY(excluded.contains("inductor"));
        QVERIFY(!excluded.contains("aot_eager"));
    }

    void breaksListTheirSourceLine() {
        Fixture fx;
        MainWindow window;
        QVERIFY(window.openReport(fx.report));
        BreaksPanel* breaks = window.breaksPanel();
        QTreeWidget* list = breaks->breakList();
        QCOMPARE(list->topLevelItemCount(), 2);
        QTreeWidgetItem* first = list->topLevelItem(0);
        QCOMPARE(first->text(BreaksPanel::BackendColumn), QString("inductor"));
        QCOMPARE(first->text(BreaksPanel::ReasonColumn), QString("call to print"));
        QCOMPARE(first->text(BreaksPanel::LocationColumn), fx.source + ":4");
        QCOMPARE(first->text(BreaksPanel::GraphColumn), QString("after graph 0"));

        list->setCurrentItem(list->topLevelItem(1));
        QVERIFY(breaks->locationText().contains("/nonexistent/fusescope/helper.py"));
        QVERIFY(!breaks->openInEditorButton()->isEnabled());
        QCOMPARE(breaks->highlightedLine(), 0);

        list->setCurrentItem(first);
        QCOMPARE(breaks->shownFile(), fx.source);
        QCOMPARE(breaks->highlightedLine(), 4);
        QCOMPARE(breaks->sourceView()->textCursor().blockNumber(), 3);
        QCOMPARE(breaks->sourceView()->textCursor().block().text(), QString("    print(x)"));
        QCOMPARE(breaks->sourceView()->extraSelections().size(), 1);
        QVERIFY(breaks->openInEditorButton()->isEnabled());
    }

    void graphBannerMarksTheGraphABreakEnded() {
        Fixture fx;
        MainWindow window;
        window.resize(1400, 800);
        window.show();
        QVERIFY(window.openReport(fx.report));
        GraphPanel* graphs = window.graphPanel();
        QVERIFY(graphs->showDynamoGraph("inductor", 0));
        QCOMPARE(graphs->breakBanners().size(), 1);
        QVERIFY(graphs->breakBanners().front().contains("Graph break after this graph: call to print"));
        QVERIFY(graphs->breakBanners().front().contains(fx.source + ":4"));
        QVERIFY(graphs->showDynamoGraph("inductor", 1));
        QCOMPARE(graphs->breakBanners().size(), 1);
        QVERIFY(graphs->breakBanners().front().contains("data-dependent branch"));
        QVERIFY(graphs->showDynamoGraph("inductor", 2));
        QVERIFY(graphs->breakBanners().isEmpty());

        // Clicking the banner opens the break's source in the Breaks tab.
        window.showTab("graphs");
        QVERIFY(graphs->showDynamoGraph("inductor", 0));
        auto buttons = graphs->findChildren<QPushButton*>("graphBreakBanner");
        QPushButton* banner = nullptr;
        for (auto* b : buttons)
            if (!b->isHidden()) // replaced banners are hidden until deleted
                banner = b;
        QVERIFY(banner);
        banner->click();
        QCOMPARE(tabsOf(window)->currentWidget(), static_cast<QWidget*>(window.breaksPanel()));
        QCOMPARE(window.breaksPanel()->highlightedLine(), 4);
    }

    void shapesShowEverySetAndTheLimitWarning() {
        Fixture fx;
        MainWindow window;
        QVERIFY(window.openReport(fx.report));
        ShapesPanel* shapes = window.shapesPanel();
        QTreeWidget* tree = shapes->tree();
        QCOMPARE(tree->topLevelItemCount(), 1);
        QTreeWidgetItem* inductor = tree->topLevelItem(0);
        QVERIFY(inductor->text(0).startsWith("inductor"));
        QVERIFY(inductor->text(0).contains(
            "dynamic=False: 1 recompiles, 1 guard failures (limit 1) - LIMIT HIT"));
        QVERIFY(inductor->text(0).contains("dynamic=True: 0 recompiles, 0 guard failures"));
        QCOMPARE(inductor->childCount(), 2);
        QTreeWidgetItem* small = inductor->child(0);
        QCOMPARE(small->text(ShapesPanel::InputSet), QString("1x8:int64"));
        QCOMPARE(small->text(ShapesPanel::StaticMs), QString::fromStdString(format::milliseconds(0.5)));
        QCOMPARE(small->text(ShapesPanel::DynamicMs), QString::fromStdString(format::milliseconds(0.8)));
        QCOMPARE(small->text(ShapesPanel::StaticSpeedup), QString("2.00x"));
        QCOMPARE(small->text(ShapesPanel::DynamicSpeedup), QString("1.25x"));
        QTreeWidgetItem* large = inductor->child(1);
        QCOMPARE(large->text(ShapesPanel::InputSet), QString("4x8:int64"));
        QCOMPARE(large->text(ShapesPanel::Recompiled), QString("yes / no"));
        QVERIFY(large->text(ShapesPanel::Status).contains("shape mismatch"));
        QVERIFY(shapes->warningText().contains("inductor with dynamic=False hit the recompile limit"));
        QVERIFY(shapes->warningText().contains("eager"));
    }

    void moduleTreeBuildsAMixedRunAndRefusesOverlaps() {
        Fixture fx;
        MainWindow window;
        QVERIFY(window.openReport(fx.report));
        ModuleAssignPanel* modules = window.modulesPanel();
        QCOMPARE(modules->tree()->topLevelItemCount(), 3);
        QCOMPARE(modules->tree()->topLevelItem(0)->childCount(), 2);
        QCOMPARE(modules->tree()->topLevelItem(0)->child(1)->text(ModuleAssignPanel::NameColumn),
                 QString("1"));
        QCOMPARE(modules->tree()->topLevelItem(0)->text(ModuleAssignPanel::BackendColumn),
                 modelDefaultLabel());
        QVERIFY(modules->backendChoices().contains("inductor"));

        QVERIFY(modules->assign("decoder", "aot_eager"));
        QVERIFY(modules->assign("encoder", "inductor"));
        QVERIFY(!modules->assign("nosuch", "inductor"));
        const QString label = modules->addMixedRun();
        // Definition order, not the order of the picks.
        QCOMPARE(label, QString("mixed[encoder=inductor,decoder=aot_eager]"));
        QVERIFY(window.checkedBackends().contains(label));

        QVERIFY(modules->assign("encoder.0", "eager"));
        QVERIFY(modules->addMixedRun().isEmpty());
        QVERIFY(modules->messageText().contains("encoder (inductor) contains encoder.0 (eager)"));

        QVERIFY(modules->assign("encoder.0", ""));
        QVERIFY(modules->assign("layers", "inductor"));
        QVERIFY(modules->addMixedRun().isEmpty());
        QVERIFY(modules->messageText().contains("ModuleList"));
    }

    void entryDialogBuildsTheLabelTheCliReads() {
        auto start = parseBackendEntry("inductor@max-autotune{fullgraph,epilogue_fusion=false}");
        QVERIFY(start);
        BackendEntryDialog dialog(start.value());
        QCOMPARE(dialog.modeBox()->currentText(), QString("max-autotune"));
        QCOMPARE(dialog.fullgraphBox()->currentText(), QString("true"));
        QCOMPARE(dialog.dynamicBox()->currentIndex(), 0); // run-wide
        QCOMPARE(dialog.inductorEdit()->text(), QString("epilogue_fusion=false"));
        QCOMPARE(dialog.label(), QString("inductor@max-autotune{fullgraph,epilogue_fusion=false}"));

        dialog.dynamicBox()->setCurrentText("false");
        dialog.modeBox()->setCurrentIndex(0);
        dialog.inductorEdit()->setText("epilogue_fusion=false, max_fusion_size=16");
        QCOMPARE(dialog.label(),
                 QString("inductor{fullgraph,dynamic=false,epilogue_fusion=false,max_fusion_size=16}"));
        QVERIFY(dialog.applyButton()->isEnabled());
        if (const QString keep = qEnvironmentVariable("FUSESCOPE_SAVE_WORKLOAD_REPORT"); !keep.isEmpty()) {
            dialog.adjustSize();
            QVERIFY(dialog.grab().save(QDir(keep).filePath("entry-dialog.png")));
        }

        // Dynamo's options share the field and survive Apply.
        auto withDynamo = parseBackendEntry("inductor{dynamo.capture_scalar_outputs=true,freezing=true}");
        QVERIFY(withDynamo);
        BackendEntryDialog dynamoDialog(withDynamo.value());
        QCOMPARE(dynamoDialog.inductorEdit()->text(),
                 QString("dynamo.capture_scalar_outputs=true,freezing=true"));
        QCOMPARE(dynamoDialog.label(), QString("inductor{dynamo.capture_scalar_outputs=true,freezing=true}"));
        if (const QString keep = qEnvironmentVariable("FUSESCOPE_SAVE_WORKLOAD_REPORT"); !keep.isEmpty()) {
            dynamoDialog.adjustSize();
            QVERIFY(dynamoDialog.grab().save(QDir(keep).filePath("entry-dialog-dynamo.png")));
        }

        dialog.inductorEdit()->setText("epilogue_fusion");
        QVERIFY(dialog.label().isEmpty());
        QVERIFY(!dialog.applyButton()->isEnabled() && !dialog.addButton()->isEnabled());
        dialog.inductorEdit()->setText("dynamic=true");
        QVERIFY(!dialog.entry());
        QVERIFY(QString::fromStdString(dialog.entry().error().message).contains("own fields"));

        // The row's precision (docs/quantization.md), and a backend of another family: Precision only.
        dialog.inductorEdit()->clear();
        dialog.precisionBox()->setCurrentText("int8_static");
        QCOMPARE(dialog.label(), QString("inductor{precision=int8_static,fullgraph,dynamic=false}"));
        auto aoti = parseBackendEntry("aot_inductor{precision=int8_dynamic}");
        QVERIFY(aoti);
        BackendEntryDialog precisionOnly(aoti.value(), nullptr, false);
        QCOMPARE(precisionOnly.precisionBox()->currentText(), QString("int8_dynamic"));
        QVERIFY(precisionOnly.modeBox()->isHidden() && precisionOnly.inductorEdit()->isHidden());
        QVERIFY(!precisionOnly.precisionBox()->isHidden());
        precisionOnly.precisionBox()->setCurrentText("int8_weight_only");
        QCOMPARE(precisionOnly.label(), QString("aot_inductor{precision=int8_weight_only}"));
    }

    void backendListTakesVariantsWithOptions() {
        MainWindow window;
        window.setBackends({"eager", "inductor", "torchscript"});
        QListWidget* list = window.backendList();
        const int row = list->row(list->findItems("inductor", Qt::MatchExactly).front());
        QVERIFY(!window.setEntryVariant(row, "inductor{epilogue_fusion=false}", true));
        QCOMPARE(list->item(row + 1)->text(), QString("inductor{epilogue_fusion=false}"));
        QVERIFY(window.checkedBackends().contains("inductor"));
        QVERIFY(window.checkedBackends().contains("inductor{epilogue_fusion=false}"));
        // The row's own label becomes the run's row, with its options on top of the run-wide ones.
        auto request = requestFor("inductor{epilogue_fusion=false}", window.baseRequest().value());
        QVERIFY(request);
        QVERIFY(request.value().options["inductor"]["epilogue_fusion"] == false);

        QVERIFY(!window.setEntryVariant(row, "inductor@max-autotune", false));
        QCOMPARE(list->item(row)->text(), QString("inductor@max-autotune"));
        auto duplicate = window.setEntryVariant(row, "inductor{epilogue_fusion=false}", false);
        QVERIFY(duplicate && QString::fromStdString(duplicate->message).contains("already has"));
        auto twice = window.setEntryVariant(row, "inductor@max-autotune", true); // unchanged, as a new row
        QVERIFY(twice && QString::fromStdString(twice->message).contains("already has"));
        auto bad = window.setEntryVariant(row, "inductor{dynamic=maybe}", false);
        QVERIFY(bad && QString::fromStdString(bad->message).contains("dynamic takes"));
        const int eager = list->row(list->findItems("eager", Qt::MatchExactly).front());
        QVERIFY(!window.setEntryVariant(eager, "eager{fullgraph}", true)); // eager is a torch.compile backend
        const int ts = list->row(list->findItems("torchscript", Qt::MatchExactly).front());
        auto refused = window.setEntryVariant(ts, "torchscript{fullgraph}", false);
        QVERIFY(refused && QString::fromStdString(refused->message).contains("not a torch.compile backend"));
        // A precision is the workload's: every family takes it (docs/quantization.md).
        QVERIFY(!window.setEntryVariant(ts, "torchscript{precision=int8_dynamic}", true));
        QVERIFY(window.checkedBackends().contains("torchscript{precision=int8_dynamic}"));
        // Entries with options stay out of the submodule choices (mixed runs take NAME or NAME@MODE).
        QVERIFY(!window.modulesPanel()->backendChoices().contains("inductor{epilogue_fusion=false}"));
        QVERIFY(window.modulesPanel()->backendChoices().contains("inductor@max-autotune"));
    }

    void optionsMakeTheRunRequestAndFollowAReport() {
        MainWindow window;
        WorkloadOptions* options = window.workloadOptions();
        auto plain = window.baseRequest();
        QVERIFY(plain);
        QVERIFY(plain.value().workload.isDefault());

        options->modeBox()->setCurrentIndex(options->modeBox()->findData("training"));
        options->precisionBox()->setCurrentText("bf16");
        options->shapesEdit()->setText(kShapes);
        auto request = window.baseRequest();
        QVERIFY(request);
        QCOMPARE(request.value().workload.mode, std::string("training"));
        QCOMPARE(request.value().workload.precision, std::string("bf16"));
        QVERIFY2(request.value().workload.shapes == parseShapeList(kShapes).value(),
                 format::shapeList(request.value().workload.shapes).c_str());
        QVERIFY(request.value().workload.assign.empty());

        options->shapesEdit()->setText("1xq:int64");
        QVERIFY(!window.baseRequest());
        QVERIFY(window.baseRequest().error().message.find("1xq:int64") != std::string::npos);
        QVERIFY(options->shapesProblem().contains("1xq:int64"));
        QVERIFY(options->shapesEdit()->styleSheet().contains("border"));
        QCOMPARE(options->shapesEdit()->toolTip(), options->shapesProblem());
        options->shapesEdit()->clear();
        QVERIFY(options->shapesEdit()->styleSheet().isEmpty());
        QVERIFY(window.baseRequest().value().workload.shapes.empty());

        // Opening a report shows what it ran.
        options->modeBox()->setCurrentIndex(0);
        Fixture fx;
        QVERIFY(window.openReport(fx.report));
        QCOMPARE(options->modeBox()->currentData().toString(), QString("training"));
        QCOMPARE(options->precisionBox()->currentText(), QString("bf16"));
        QCOMPARE(options->shapesEdit()->text(), QString(kShapes));
        QVERIFY(options->searchBox()->isChecked());
        QVERIFY(window.windowTitle().contains("Training, bf16, 2 input sets"));
        // ... and its rows and run-wide options, so Ctrl+R runs the same comparison again.
        QCOMPARE(window.checkedBackends(), QStringList({"eager", "inductor", "aot_eager", "broken"}));
    }

    void openingAReportRestoresItsRowsAndRunWideOptions() {
        Report r;
        r.modelSpec = "demo:mlp";
        r.settings.options = {
            {"fullgraph", true},
            {"dynamic", false},
            {"mode", "max-autotune"},
            {"inductor", {{"epilogue_fusion", false}, {"sizes", {1, 2}}, {"note", "a,b"}, {"flag", "true"}}}};
        r.backends = {okRun("eager", {1.0, 1.0, 1.0}, 0.1),
                      okRun("inductor{dynamic=true}", {0.5, 0.5, 0.5}, 2),
                      okRun("mixed[encoder=inductor]", {0.7, 0.7, 0.7}, 3)};
        QTemporaryDir dir;
        const QString path = dir.filePath("options.fscope");
        QVERIFY(!writeReport(r, path.toStdString()));
        MainWindow window;
        window.setBackends({"aot_eager"});
        QVERIFY(window.openReport(path));
        // The run-wide --compile-mode goes onto the torch.compile rows as NAME@MODE.
        QCOMPARE(window.checkedBackends(),
                 QStringList({"eager@max-autotune", "inductor@max-autotune{dynamic=true}",
                              "mixed[encoder=inductor]"}));
        auto request = window.baseRequest();
        QVERIFY(request);
        QVERIFY(request.value().options["fullgraph"] == true);
        QVERIFY(request.value().options["dynamic"] == false);
        // Values with commas and strings that look like JSON come back as they were.
        QVERIFY2(request.value().options["inductor"] == r.settings.options["inductor"],
                 request.value().options["inductor"].dump().c_str());
        QVERIFY(!request.value().captureTrace);                 // no row of this report has a trace
        QCOMPARE(request.value().roofs, std::string("cached")); // the default, as the CLI's

        // A name given twice is one row, and the rows not named end unchecked.
        window.setBackends({"aot_eager", "aot_eager"});
        QCOMPARE(window.checkedBackends(), QStringList({"aot_eager"}));
    }

    void trainingDetailsShowInTheTable() {
        Fixture fx;
        MainWindow window;
        QVERIFY(window.openReport(fx.report));
        ComparisonModel* model = window.comparisonModel();
        const QString compile =
            model->index(1, ComparisonModel::CompileSeconds).data(Qt::ToolTipRole).toString();
        QVERIFY2(compile.contains("forward compile 2.50 s, backward compile 4.25 s"), qPrintable(compile));
        const QString accuracy = model->index(1, ComparisonModel::Accuracy).data(Qt::ToolTipRole).toString();
        QVERIFY(accuracy.contains("gradients"));
        QVERIFY(accuracy.contains("encoder.0.weight"));
        QVERIFY(model->index(1, ComparisonModel::Accuracy).data().toString().endsWith("pass"));
        QVERIFY(model->index(0, ComparisonModel::CompileSeconds).data(Qt::ToolTipRole).isNull());
    }

    // docs/advice.md: inductor's shape study hit the recompile limit, so its details offer
    // "Add row: inductor{dynamic=true}", and one click puts that entry in the backend list.
    void adviceAddsItsEntryToTheBackendList() {
        Fixture fx;
        MainWindow window;
        QVERIFY(window.openReport(fx.report));
        auto* tab = window.findChild<ComparisonTab*>();
        QVERIFY(tab);
        tab->table()->selectRow(0); // eager: no evidence, no advice
        QVERIFY(tab->advice()->advice().empty());
        QVERIFY(tab->advice()->isHidden());
        tab->table()->selectRow(1);
        QPushButton* add = nullptr;
        for (auto* button : tab->advice()->findChildren<QPushButton*>())
            if (button->text() == "Add row: inductor{dynamic=true}")
                add = button;
        QVERIFY2(add, "no Add row button for the recompiles advice");
        const auto labels = tab->advice()->findChildren<QLabel*>();
        QVERIFY(std::any_of(labels.begin(), labels.end(), [](QLabel* l) {
            return l->text().contains("[recompiles]") && l->text().contains("recompile limit 1 hit");
        }));
        QVERIFY(!window.checkedBackends().contains("inductor{dynamic=true}"));
        add->click();
        QVERIFY(window.checkedBackends().contains("inductor{dynamic=true}"));
    }

    void newTabsHaveShortcuts() {
        MainWindow window;
        QStringList shortcuts;
        for (auto* action : window.findChildren<QAction*>())
            if (action->text() == "&Breaks" || action->text() == "&Shapes" || action->text() == "&Modules")
                shortcuts << action->shortcut().toString();
        shortcuts.sort();
        QCOMPARE(shortcuts, (QStringList{"Alt+5", "Alt+6", "Alt+7"}));
        window.showTab("shapes");
        QCOMPARE(tabsOf(window)->currentWidget(), static_cast<QWidget*>(window.shapesPanel()));
    }
};

QTEST_MAIN(WorkloadViewsTest)
#include "WorkloadViewsTest.moc"
