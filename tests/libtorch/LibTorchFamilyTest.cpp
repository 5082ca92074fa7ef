#include "LibTorchFamily.h"

#include "TorchScriptRunner.h"

#include <QSignalSpy>
#include <QTest>

using namespace fusescope;

// Runs torchscript / torchscript_nnc on the demo models through the same BackendJob signals the
// GUI and the CLI use. Measurement is cut to a few calls to keep the suite fast.
class LibTorchFamilyTest : public QObject {
    Q_OBJECT

    static RunRequest request(const std::string& model, const std::string& backend) {
        RunRequest r;
        r.model = model;
        r.backend = backend;
        r.measure.warmup = 1;
        r.measure.minRuns = 3;
        r.measure.minTimeSeconds = 0;
        r.measure.maxRuns = 5;
        r.timeoutSeconds = 300;
        return r;
    }

    static BackendRun runToEnd(const RunRequest& r, int* events = nullptr, bool cancelEarly = false) {
        LibTorchFamily family(WorkerConfig::fromEnvironment());
        auto job = family.createJob(r, nullptr);
        QSignalSpy finished(job.get(), &BackendJob::finished);
        QSignalSpy streamed(job.get(), &BackendJob::event);
        job->start();
        if (cancelEarly)
            job->cancel();
        if (!finished.wait(280'000))
            qWarning("job did not finish");
        if (events)
            *events = static_cast<int>(streamed.count());
        return job->takeRun();
    }

    static void checkOk(const BackendRun& run) {
        QVERIFY2(run.status == RunStatus::Ok, run.error ? run.error->message.c_str() : "not ok");
        QCOMPARE(run.family, std::string("libtorch"));
        QVERIFY(run.model.has_value());
        QVERIFY(!run.eagerSamplesMs.empty());
        QVERIFY(run.compiledSamplesMs.size() >= 3);
        QVERIFY(run.compileSeconds.has_value());
        QVERIFY(run.accuracy.has_value());
        QVERIFY2(run.accuracy->pass, ("max_abs " + std::to_string(run.accuracy->maxAbs)).c_str());
        QVERIFY(run.accuracy->cosine > 0.999);
        QVERIFY(!run.peakMemoryBytes.has_value());
        QVERIFY(run.findStage("torchscript_graph") != nullptr);
        QVERIFY(run.findStage("torchscript_optimized") != nullptr);
        QCOMPARE(run.findStage("torchscript_graph")->fusion, std::string("before"));
        QVERIFY(run.findStage("torchscript_graph")->computeNodeCount() > 0);
    }

private slots:
    void handlesOnlyItsNames() {
        LibTorchFamily family(WorkerConfig::fromEnvironment());
        QVERIFY(family.handles("torchscript"));
        QVERIFY(family.handles("torchscript_nnc"));
        QVERIFY(!family.handles("inductor"));
        QCOMPARE(family.probe().size(), size_t(2));
    }

    void plainInterpreter_data() {
        QTest::addColumn<QString>("model");
        QTest::newRow("mlp") << "demo:mlp";
        QTest::newRow("transformer") << "demo:transformer";
    }
    void plainInterpreter() {
        QFETCH(QString, model);
        int events = 0;
        const auto run = runToEnd(request(model.toStdString(), "torchscript"), &events);
        checkOk(run);
        QVERIFY(events > 3);
        const auto* after = run.findStage("torchscript_optimized");
        QCOMPARE(after->fusion, std::string("none"));
        QCOMPARE(after->kernelCount(), 0);
    }

    void nnc_data() { plainInterpreter_data(); }
    void nnc() {
        QFETCH(QString, model);
        const auto run = runToEnd(request(model.toStdString(), "torchscript_nnc"));
        checkOk(run);
        const auto* before = run.findStage("torchscript_graph");
        const auto* after = run.findStage("torchscript_optimized");
        QCOMPARE(after->fusion, std::string("after"));
        const auto& info = run.options.at("libtorch");
        QCOMPARE(info.at("nnc_cpu_codegen").get<std::string>(), TorchScriptRunner::nncCpuCodegen());
        if (after->groups.empty()) {
            // NNC found nothing to fuse: the stage must say so rather than look fused.
            QVERIFY(!after->reason.empty());
            return;
        }
        int unfused = 0;
        for (const auto& n : after->nodes)
            if (n.isCompute() && n.group.empty())
                ++unfused;
        QVERIFY(after->kernelCount() + unfused < before->computeNodeCount());
        // Every grouped node that has an origin names a real before-stage node.
        for (const auto& g : after->groups) {
            QCOMPARE(g.kind, std::string("kernel"));
            QVERIFY(g.nodes.size() >= 2);
            for (const auto& id : g.nodes) {
                const auto* n = after->findNode(id);
                QVERIFY(n);
                for (const auto& origin : n->origins)
                    QVERIFY(before->findNode(origin));
            }
        }
    }

    void modelErrorKeepsItsCode() {
        const auto run = runToEnd(request("demo:does_not_exist", "torchscript"));
        QCOMPARE(run.status, RunStatus::Failed);
        QVERIFY(run.error.has_value());
        QCOMPARE(run.error->code, std::string("model_not_found"));
    }

    void cancelReportsCancelled() {
        const auto run = runToEnd(request("demo:mlp", "torchscript_nnc"), nullptr, /*cancelEarly=*/true);
        QCOMPARE(run.status, RunStatus::Cancelled);
        QCOMPARE(run.error->code, std::string("cancelled"));
    }
};

QTEST_GUILESS_MAIN(LibTorchFamilyTest)
#include "LibTorchFamilyTest.moc"
