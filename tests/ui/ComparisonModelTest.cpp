#include "ComparisonModel.h"

#include "MainWindow.h"
#include "TestData.h"
#include "report/ReportFile.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace fusescope;

class ComparisonModelTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        qputenv("QT_QPA_PLATFORM", "offscreen");
        // Settings (recent files, the goal) apart from the user's, and clean at every run.
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
    }

    void modelPassesTheTester() {
        const Report report = testdata::sampleReport();
        ComparisonModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setReport(&report);
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.columnCount(), int(ComparisonModel::ColumnCount));
        model.setReport(nullptr);
        QCOMPARE(model.rowCount(), 0);
    }

    void rowsShowTheNumbers() {
        const Report report = testdata::sampleReport();
        ComparisonModel model;
        model.setReport(&report);
        auto cell = [&](int row, int col) { return model.index(row, col).data().toString(); };
        QCOMPARE(cell(0, ComparisonModel::Backend), QString("inductor"));
        QCOMPARE(cell(0, ComparisonModel::Status), QString("ok"));
        // The median of the per-iteration ratios eager[k] / compiled[k]: 2.0, 2.0, 2.33, 1.9.
        QCOMPARE(cell(0, ComparisonModel::Speedup), QString("2.00x"));
        QCOMPARE(cell(0, ComparisonModel::NodesBeforeFusion), QString("3"));
        QCOMPARE(cell(0, ComparisonModel::KernelsAfterFusion), QString("2"));
        QCOMPARE(cell(1, ComparisonModel::Status), QString("unavailable"));
        QVERIFY(model.index(1, 0).data(Qt::ToolTipRole).toString().contains("apache-tvm"));
        // Sorting uses numbers, not their text.
        QCOMPARE(model.index(0, ComparisonModel::MedianMs).data(ComparisonModel::SortRole).toDouble(), 1.0);
    }

    void notesShowInTheStatusAndItsTip() {
        Report report = testdata::sampleReport();
        report.backends[0].notes = {
            "inductor@reduce-overhead on cpu: CUDA graphs apply only to CUDA kernels"};
        ComparisonModel model;
        model.setReport(&report);
        QCOMPARE(model.index(0, ComparisonModel::Status).data().toString(), QString("ok (1 note)"));
        QVERIFY(model.index(0, ComparisonModel::Status)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains("CUDA graphs apply"));
        QVERIFY(
            model.index(1, ComparisonModel::Status).data(Qt::ToolTipRole).toString().contains("apache-tvm"));
    }

    void warningsShowInTheStatusAndItsTip() {
        Report report = testdata::sampleReport();
        report.backends[0].notes = {"a note"};
        report.backends[0].warnings = {{"machine_busy", "other processes used 0.93 of 2 cores"}};
        report.backends[0].compiledSamplesMs = {1.0, 1.2, 1.4, 1.6, 1.8}; // IQR 0.4 of 1.4: high_variance
        ComparisonModel model;
        model.setReport(&report);
        const auto status = model.index(0, ComparisonModel::Status);
        QCOMPARE(status.data().toString(), QString("ok (1 note, 2 warnings)"));
        const QString tip = status.data(Qt::ToolTipRole).toString();
        QVERIFY(tip.contains("warning [machine_busy]: other processes used 0.93 of 2 cores"));
        QVERIFY(tip.contains("warning [high_variance]: compiled samples vary"));
    }

    void windowOpensAReportAndRefusesABadOne() {
        QTemporaryDir dir;
        const QString good = dir.filePath("good.fscope");
        QVERIFY(!writeReport(testdata::sampleReport(), good.toStdString()).has_value());
        MainWindow window;
        QVERIFY(window.openReport(good));
        QCOMPARE(window.comparisonModel()->rowCount(), 2);

        const QString bad = dir.filePath("bad.fscope");
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"format\": \"fusescope-report\", \"schema\": 99}");
        f.close();
        // A QMessageBox would block: close it as soon as it shows.
        QTimer::singleShot(0, [] {
            for (auto* w : QApplication::topLevelWidgets())
                if (w->inherits("QMessageBox"))
                    w->close();
        });
        QTimer closer;
        QObject::connect(&closer, &QTimer::timeout, [] {
            for (auto* w : QApplication::topLevelWidgets())
                if (w->inherits("QMessageBox") && w->isVisible())
                    w->close();
        });
        closer.start(20);
        QVERIFY(!window.openReport(bad));
        // The good report stays: a bad file loses nothing.
        QCOMPARE(window.comparisonModel()->rowCount(), 2);
    }
};

QTEST_MAIN(ComparisonModelTest)
#include "ComparisonModelTest.moc"
