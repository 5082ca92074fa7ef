// The CLI's table (`fusescope-cli show`) and the GUI's Comparison tab (ComparisonModel) show the
// same cells for the same runs: both are drawn from analysis/ComparisonColumns.
#include "ComparisonModel.h"
#include "TestData.h"
#include "analysis/ComparisonColumns.h"
#include "report/ReportFile.h"

#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace fusescope;

namespace {

// Runs that exercise every kind of cell: numbers, a note and warnings in the status, failed
// gradients, a non-finite output, a failed run with nothing measured.
Report variedReport() {
    Report report = testdata::sampleReport();
    BackendRun noted = report.backends[0];
    noted.name = "inductor@max-autotune";
    noted.notes = {"CUDA graphs apply only to CUDA kernels"};
    noted.warnings = {{"machine_busy", "other processes used 0.93 of 2 cores"}};
    noted.compiledSamplesMs = {1.0, 1.2, 1.4, 1.6, 1.8}; // high_variance, derived
    BackendRun training = report.backends[0];
    training.name = "aot_eager";
    TrainingResult t;
    t.gradientAccuracy =
        Accuracy{1e-2, 1e-1, 0.99, 1e-3, false, "allclose", 1e-3, "fp32", "fail_accuracy", ""};
    training.training = t;
    training.peakMemoryBytes = 3'500'000'000LL;
    training.compileSeconds = 123.456;
    BackendRun nonfinite = report.backends[0];
    nonfinite.name = "inductor{epilogue_fusion=false}";
    nonfinite.accuracy->pass = false;
    nonfinite.accuracy->status = "nonfinite";
    nonfinite.graphBreaks = 2;
    nonfinite.graphs = 3;
    BackendRun failed;
    failed.name = "torchscript";
    failed.status = RunStatus::Failed;
    failed.error = RunError{"worker_crashed", "torchscript: killed by signal 11", "", ""};
    report.backends.push_back(noted);
    report.backends.push_back(training);
    report.backends.push_back(nonfinite);
    report.backends.push_back(failed);
    return report;
}

// The table's lines split at the runs of two or more spaces that separate its columns.
QStringList cellsOf(const QString& line) {
    return line.trimmed().split(QRegularExpression("\\s{2,}"));
}

} // namespace

class FrontEndsAgreeTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { qputenv("QT_QPA_PLATFORM", "offscreen"); }

    void cliTableAndGuiModelShowTheSameCells() {
        const Report report = variedReport();
        QTemporaryDir dir;
        const QString path = dir.filePath("varied.fscope");
        QVERIFY(!writeReport(report, path.toStdString()).has_value());

        QProcess cli;
        cli.start(FUSESCOPE_CLI, {"show", path});
        QVERIFY2(cli.waitForFinished(30000), FUSESCOPE_CLI);
        QCOMPARE(cli.exitCode(), 0);
        const QStringList lines = QString::fromUtf8(cli.readAllStandardOutput()).split('\n');

        const auto& columns = comparisonColumns();
        QStringList tableHeaders;
        for (const auto& c : columns)
            tableHeaders << QString::fromStdString(c.tableHeader);
        const auto header = std::find_if(lines.begin(), lines.end(),
                                         [&](const QString& l) { return cellsOf(l) == tableHeaders; });
        QVERIFY2(header != lines.end(), qPrintable("no table header in:\n" + lines.join('\n')));

        ComparisonModel model;
        model.setReport(&report);
        QCOMPARE(model.columnCount(), int(columns.size()));
        QCOMPARE(model.rowCount(), int(report.backends.size()));
        for (int c = 0; c < model.columnCount(); ++c)
            QCOMPARE(model.headerData(c, Qt::Horizontal).toString(),
                     QString::fromStdString(columns[c].header));
        for (int r = 0; r < model.rowCount(); ++r) {
            const QStringList cli = cellsOf(*(header + 1 + r));
            QStringList gui;
            for (int c = 0; c < model.columnCount(); ++c)
                gui << model.index(r, c).data().toString();
            QCOMPARE(cli, gui);
        }
        // The cells these runs are here for, in both.
        auto cell = [&](int row, int col) { return model.index(row, col).data().toString(); };
        QCOMPARE(cell(2, ComparisonModel::Status), QString("ok (1 note, 2 warnings)"));
        QVERIFY(cell(3, ComparisonModel::Accuracy).endsWith(" grad FAIL"));
        QCOMPARE(cell(4, ComparisonModel::Accuracy), QString("nonfinite"));
        QCOMPARE(cell(5, ComparisonModel::Status), QString("failed"));
        QCOMPARE(cell(5, ComparisonModel::MedianMs), QString("-"));
    }
};

QTEST_MAIN(FrontEndsAgreeTest)
#include "FrontEndsAgreeTest.moc"
