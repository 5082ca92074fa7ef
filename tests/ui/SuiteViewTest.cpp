// The Suite view over a sweep folder built in the test: grid, failures with reasons, totals, and
// a click asking for the job's report (docs/sweeps.md, "The Suite view").
#include "SuiteView.h"

#include "SuiteModel.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace fusescope;

class SuiteViewTest : public QObject {
    Q_OBJECT
private slots:
    void gridFailuresTotalsAndClick();
    void folderWithoutSweepStateFails();
};

namespace {

void writeFile(const QString& path, const QByteArray& text) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(text);
}

// The view only reads folders through the engine: it runs no backend.
std::vector<std::unique_ptr<BackendFamily>> noFamilies() {
    return {};
}

} // namespace

void SuiteViewTest::gridFailuresTotalsAndClick() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QVERIFY(
        QFile::copy(QStringLiteral(FUSESCOPE_REPORT_FIXTURES "/good.fscope"), dir.filePath("good.fscope")));
    writeFile(dir.filePath("sweep.json"), R"({"kind": "fusescope-sweep", "name": "t", "jobs": [
        {"id": "good", "model": "demo:mlp", "backends": ["eager", "inductor"], "axes": {}, "status": "ok",
         "report": "good.fscope"},
        {"id": "bad", "model": "broken.py", "backends": ["eager", "inductor"], "axes": {"precision": "bf16"},
         "status": "failed", "report": "bad.fscope", "reason": "timeout: the job ran past 5 s"}]})");

    QTabWidget tabs;
    tabs.addTab(new QWidget, "Comparison");
    QStringList opened;
    QVERIFY(isSweepDir(dir.path()));
    Engine engine(noFamilies);
    SuiteView* view = showSuiteTab(&tabs, engine, dir.path(), [&](const QString& p) { opened << p; });
    QCOMPARE(tabs.count(), 2);
    QCOMPARE(tabs.currentWidget(), view);
    QSignalSpy loaded(view, &SuiteView::loaded);
    QVERIFY(loaded.wait(10000));
    QAbstractItemModelTester tester(view->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);

    SuiteModel* m = view->model();
    QCOMPARE(m->rowCount(), 3);    // two jobs and the totals
    QCOMPARE(m->columnCount(), 3); // status, eager, inductor
    QCOMPARE(m->headerData(1, Qt::Vertical).toString(), QStringLiteral("broken.py [precision=bf16]"));
    QCOMPARE(m->headerData(2, Qt::Horizontal).toString(), QStringLiteral("inductor"));
    // The good job: speedups coloured; the failed one: FAIL with the job's reason.
    QVERIFY(m->data(m->index(0, 2)).toString().endsWith('x'));
    QVERIFY(m->data(m->index(0, 2), Qt::BackgroundRole).isValid());
    QCOMPARE(m->data(m->index(1, 1)).toString(), QStringLiteral("FAIL"));
    QVERIFY(m->data(m->index(1, 1), Qt::ToolTipRole).toString().contains("timeout"));
    QVERIFY(m->data(m->index(2, 2)).toString().contains("(1/2)"));
    QVERIFY(m->data(m->index(2, 2), Qt::ToolTipRole).toString().contains("failed in broken.py"));

    // A click on the good job opens its report and shows the Comparison tab; the failed job has none.
    QTableView* table = view->table();
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(m->index(0, 2)).center());
    QCOMPARE(opened, QStringList{dir.filePath("good.fscope")});
    QCOMPARE(tabs.currentIndex(), 0);
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(m->index(1, 1)).center());
    QCOMPARE(opened.size(), 1);

    // Opening again reuses the tab.
    QCOMPARE(showSuiteTab(&tabs, engine, dir.path(), [](const QString&) {}), view);
    QCOMPARE(tabs.count(), 2);
}

void SuiteViewTest::folderWithoutSweepStateFails() {
    QTemporaryDir dir;
    QVERIFY(!isSweepDir(dir.path()));
    Engine engine(noFamilies);
    SuiteView view(engine);
    QSignalSpy failed(&view, &SuiteView::failed);
    view.openDir(dir.path());
    QVERIFY(failed.wait(10000));
    QVERIFY(failed.front().front().toString().contains("sweep.json"));
}

QTEST_MAIN(SuiteViewTest)
#include "SuiteViewTest.moc"
