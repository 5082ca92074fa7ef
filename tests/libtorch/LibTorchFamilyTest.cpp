#include "LibTorchFamily.h"

#include "AotInductorRunner.h"
#include "TorchScriptRunner.h"
#include "analysis/Summary.h"

#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <algorithm>
#include <chrono>
#include <memory>
#include <regex>
#include <torch/headeronly/version.h>

using namespace fusescope;

// Runs torchscript / torchscript_nnc / aot_inductor on the demo models through the same BackendJob
// signals the GUI and the CLI use: WorkerJobs running fusescope-libtorch-runner, which has the
// Python worker export the model. Measurement is cut to a few calls to keep the suite fast.
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
        QSignalSpy streamed(job.get(), &BackendJob::streamEvent);
        job->start();
        if (cancelEarly)
            job->cancel();
        if (!finished.wait(280'000))
            qWarning("job did not finish");
        if (events)
            *events = static_cast<int>(streamed.count());
        return job->takeRun();
    }

    static void checkCommon(const BackendRun& run) {
        QVERIFY2(run.status == RunStatus::Ok, run.error ? run.error->message.c_str() : "not ok");
        QCOMPARE(run.family, std::string("libtorch"));
        QVERIFY(run.model.has_value());
        QVERIFY(!run.eagerSamplesMs.empty());
        QVERIFY(run.compiledSamplesMs.size() >= 3);
        // Interleaved pairs (docs/libtorch.md, "Interleaved timing"): one eager sample per compiled
        // one, and the stopping rule's record of a worker run.
        QCOMPARE(run.eagerSamplesMs.size(), run.compiledSamplesMs.size());
        QVERIFY(run.measure.has_value());
        QCOMPARE(run.measure->settle, std::optional<int>(1));
        QVERIFY(!run.measure->stoppedBy.empty());
        QVERIFY(run.compileSeconds.has_value());
        QVERIFY(run.accuracy.has_value());
        QVERIFY2(run.accuracy->pass, ("max_abs " + std::to_string(run.accuracy->maxAbs)).c_str());
        QVERIFY(run.accuracy->cosine > 0.999);
        checkPeakMemory(run);
    }

    // docs/libtorch.md "Peak memory": one call under LibTorch's memory profiler, the worker's
    // method. demo:mlp (Linear 64-128-...; input 32x64 fp32) holds a few 32x128 fp32
    // activations at once: the worker measures 98 560 B for eager and 98 304 B for the same
    // module scripted (torch.jit.script under torch.profiler). In-process: 98 304 B for
    // torchscript and torchscript_nnc, 65 792 B for aot_inductor. Plausible: within 4x of
    // eager's; a peak the size of the weights or the process is not.
    static void checkPeakMemory(const BackendRun& run) {
        QVERIFY2(run.peakMemoryBytes.has_value(), run.log.c_str());
        QCOMPARE(run.memoryMethod, std::string("profiler-allocator-peak"));
        QVERIFY(*run.peakMemoryBytes > 0);
        QVERIFY(run.options.at("libtorch").at("peak_memory_events").get<int64_t>() > 0);
        // The worker measures eager's peak during the export, the same way.
        QVERIFY(run.eagerPeakMemoryBytes.has_value());
        QVERIFY(*run.eagerPeakMemoryBytes > 0);
        if (run.model && run.model->name == "demo:mlp") {
            const int64_t eagerPeak = *run.eagerPeakMemoryBytes;
            QVERIFY2(*run.peakMemoryBytes >= eagerPeak / 4 && *run.peakMemoryBytes <= eagerPeak * 4,
                     std::to_string(*run.peakMemoryBytes).c_str());
        }
        qInfo("%s %s: peak memory %lld B (%lld allocator events)", run.name.c_str(),
              run.model ? run.model->name.c_str() : "?", static_cast<long long>(*run.peakMemoryBytes),
              static_cast<long long>(run.options.at("libtorch").at("peak_memory_events").get<int64_t>()));
    }

    static void checkOk(const BackendRun& run) {
        checkCommon(run);
        if (QTest::currentTestFailed())
            return;
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
        QVERIFY(family.handles("aot_inductor"));
        const auto backends = family.probe();
        QCOMPARE(backends.size(), size_t(3));
        QCOMPARE(backends[2].name, std::string("aot_inductor"));
        QCOMPARE(backends[2].available, AotInductorRunner::unavailableReason().empty());
        // The release the runner was built against: the family puts the chosen interpreter's
        // torch/lib on the runner's LD_LIBRARY_PATH only for this one.
        QCOMPARE(LibTorchFamily::runnerTorchVersion(), std::string(TORCH_VERSION));
    }

    void plainInterpreter_data() {
        QTest::addColumn<QString>("model");
        QTest::newRow("mlp") << "demo:mlp";
        QTest::newRow("transformer") << "demo:transformer";
    }
    void plainInterpreter() {
        QFETCH(QString, model);
        int events = 0;
        auto r = request(model.toStdString(), "torchscript");
        if (model == "demo:mlp")
            r.placement.threads = 1; // --threads reaches the runner (and the export's eager)
        const auto run = runToEnd(r, &events);
        checkOk(run);
        QVERIFY(events > 3);
        QVERIFY(run.placement.has_value());
        QCOMPARE(run.accuracy->status, std::string("pass"));
        if (model == "demo:mlp") {
            QCOMPARE(run.placement->threads, 1);
            QCOMPARE(run.placement->threadsRequested, std::optional<int>(1));
            QCOMPARE(run.options.at("libtorch").at("intra_op_threads").get<int>(), 1);
        } else {
            QVERIFY(!run.placement->threadsRequested.has_value());
            QVERIFY(run.placement->threads >= 1);
        }
        QVERIFY(!run.placement->affinity.empty());
        const auto* after = run.findStage("torchscript_optimized");
        QCOMPARE(after->fusion, std::string("none"));
        QCOMPARE(after->kernelCount(), 0);
    }

    // The runner's timing window gets the worker's machine check (core/capture/PairedTiming.h, timePairs):
    // with a spinning process per CPU beside it, the row carries machine_busy naming the runner.
    void busyMachineWarns() {
        std::vector<std::unique_ptr<QProcess>> spinners;
        for (int i = 0; i < std::max(1, QThread::idealThreadCount()); ++i) {
            auto p = std::make_unique<QProcess>();
            p->start("sh", {"-c", "end=$(($(date +%s) + 120)); while [ $(date +%s) -lt $end ]; do :; done"});
            QVERIFY(p->waitForStarted());
            spinners.push_back(std::move(p));
        }
        auto r = request("demo:mlp", "torchscript");
        r.placement.threads = 1;
        r.measure.minTimeSeconds = 1.0; // a window long enough to judge (/proc ticks are 10 ms)
        r.measure.maxRuns = 100000;
        r.measure.maxTimeSeconds = 2.0;
        const auto run = runToEnd(r);
        for (auto& p : spinners) {
            p->kill();
            p->waitForFinished();
        }
        checkOk(run);
        const auto busy = std::find_if(run.warnings.begin(), run.warnings.end(),
                                       [](const RunWarning& w) { return w.code == "machine_busy"; });
        QVERIFY2(busy != run.warnings.end(), "no machine_busy warning on the LibTorch row");
        QVERIFY2(busy->message.find("while the LibTorch runner took samples") != std::string::npos,
                 busy->message.c_str());
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
        // Without LLVM the fused kernels ran on NNC's IR interpreter: the row says so (issue 33).
        const bool interpreted = std::any_of(run.warnings.begin(), run.warnings.end(),
                                             [](const RunWarning& w) { return w.code == "nnc_interpreter"; });
        QCOMPARE(interpreted, TorchScriptRunner::nncCpuCodegen() != "llvm");
        // Both demos fuse: mlp relu+add, transformer div+softmax per block (reductions on).
        QVERIFY2(!after->groups.empty(), after->reason.c_str());
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

    // AOTInductor for real: the worker compiles and packages the model (tens of seconds on 2
    // cores), LibTorch loads the .pt2 and times it here.
    void aotInductor_data() { plainInterpreter_data(); }
    void aotInductor() {
        if (!AotInductorRunner::unavailableReason().empty())
            QSKIP(AotInductorRunner::unavailableReason().c_str());
        QFETCH(QString, model);
        const auto started = std::chrono::steady_clock::now();
        const auto run = runToEnd(request(model.toStdString(), "aot_inductor"));
        checkCommon(run);
        for (const char* name : {"export", "aot_forward", "post_grad", "pre_fusion", "post_fusion"}) {
            const auto* stage = run.findStage(name);
            QVERIFY2(stage && stage->status == StageStatus::Ok, name);
            QCOMPARE(stage->fusion, std::string(std::string(name) == "post_fusion" ? "after" : "before"));
        }
        const auto* before = run.findStage("pre_fusion");
        const auto* after = run.findStage("post_fusion");
        // Fewer kernels after fusion than nodes before it, as the summary counts them.
        QVERIFY(kernelsAfterFusion(run).has_value() && nodesBeforeFusion(run).has_value());
        QVERIFY2(*kernelsAfterFusion(run) < *nodesBeforeFusion(run),
                 (std::to_string(*kernelsAfterFusion(run)) + " kernels, " +
                  std::to_string(*nodesBeforeFusion(run)) + " nodes before")
                     .c_str());
        QVERIFY(*kernelsAfterFusion(run) < run.findStage("post_grad")->computeNodeCount());
        // Each generated kernel is in the package's C++ (sent as code) and covers nodes of the
        // stage whose origins are post-grad nodes.
        int generated = 0;
        for (const auto& g : after->groups) {
            QVERIFY(!g.nodes.empty());
            if (g.kind != "kernel")
                continue;
            ++generated;
            QVERIFY(g.name.rfind("cpp_fused_", 0) == 0);
            const auto code = std::find_if(run.code.begin(), run.code.end(),
                                           [&](const CodeArtifact& c) { return c.name == g.code; });
            QVERIFY2(code != run.code.end(), g.name.c_str());
            QCOMPARE(code->language, std::string("cpp"));
            QVERIFY(std::regex_search(code->text, std::regex("void\\s+" + g.name + "\\s*\\(")));
            for (const auto& id : g.nodes) {
                const auto* n = after->findNode(id);
                QVERIFY(n && n->group == g.id);
            }
        }
        QVERIFY(generated > 0);
        QVERIFY(before->computeNodeCount() > 0);
        const auto& info = run.options.at("libtorch");
        QVERIFY(info.at("aoti_compile_s").get<double>() > 0);
        QVERIFY(info.at("package_load_s").get<double>() > 0);
        QVERIFY(run.captureOverheadSeconds.has_value());
        QVERIFY(run.firstCallSeconds.has_value());
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        qInfo("%s: compile %.1f s (aoti %.1f s, package load %.3f s), %d kernels after fusion, %d nodes "
              "before, wall %.1f s",
              qPrintable(model), *run.compileSeconds, info.at("aoti_compile_s").get<double>(),
              info.at("package_load_s").get<double>(), *kernelsAfterFusion(run), *nodesBeforeFusion(run),
              wall);
    }

    // Accuracy statuses as the worker names them (accuracy.py): a forward drawing random numbers
    // is never a pass, all-NaN outputs are nonfinite with where, each with a reason.
    void accuracyStatuses_data() {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<QString>("status");
        QTest::addColumn<QString>("reason");
        QTest::newRow("random") << "random_forward.py"
                                << "eager_two_runs_differ"
                                << "eager run twice on the same inputs gives different outputs: output";
        QTest::newRow("nan")
            << "nan_output.py"
            << "nonfinite"
            << "non-finite values: output[0] has 8 NaN in eager and 8 NaN in compiled (of 8 values)";
    }
    void accuracyStatuses() {
        QFETCH(QString, fixture);
        QFETCH(QString, status);
        QFETCH(QString, reason);
        const auto run = runToEnd(
            request(std::string(FUSESCOPE_MODEL_FIXTURES) + "/" + fixture.toStdString(), "torchscript"));
        QVERIFY2(run.status == RunStatus::Ok, run.error ? run.error->message.c_str() : "not ok");
        QVERIFY(run.accuracy.has_value());
        QCOMPARE(run.accuracy->status, status.toStdString());
        QVERIFY(!run.accuracy->pass);
        QVERIFY2(run.accuracy->reason.find(reason.toStdString()) != std::string::npos,
                 run.accuracy->reason.c_str());
    }

    void modelErrorKeepsItsCode() {
        const auto run = runToEnd(request("demo:does_not_exist", "torchscript"));
        QCOMPARE(run.status, RunStatus::Failed);
        QVERIFY(run.error.has_value());
        QCOMPARE(run.error->code, std::string("model_not_found"));
    }

    // The probe asks the runner (list_backends); without one, every backend is unavailable and
    // says where it looked.
    void missingRunnerIsUnavailableWithTheReason() {
        WorkerConfig config = WorkerConfig::fromEnvironment();
        config.environment.insert("FUSESCOPE_LIBTORCH_RUNNER", "/nonexistent/fusescope-libtorch-runner");
        LibTorchFamily family(config);
        const auto backends = family.probe();
        QCOMPARE(backends.size(), size_t(3));
        for (const auto& b : backends) {
            QVERIFY(!b.available);
            QVERIFY2(b.reason.find("/nonexistent/fusescope-libtorch-runner is not an executable file") !=
                         std::string::npos,
                     b.reason.c_str());
        }
        auto job = family.createJob(request("demo:mlp", "torchscript"), nullptr);
        QSignalSpy finished(job.get(), &BackendJob::finished);
        job->start();
        QVERIFY(finished.count() > 0 || finished.wait(10'000));
        const auto run = job->takeRun();
        QCOMPARE(run.status, RunStatus::Failed);
        QCOMPARE(run.error->code, std::string("worker_start_failed"));
        QVERIFY2(run.error->message.find("LibTorch runner") != std::string::npos, run.error->message.c_str());
    }

    // A runner that fails without a word (exits non-zero, or is killed) still gives the probe a
    // reason to show: the path tried, how it ended and its stderr tail.
    void silentRunnerFailureHasTheExactReason() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const auto probeWith = [&](const QString& name, const QByteArray& script) {
            const QString path = dir.filePath(name);
            QFile file(path);
            if (!file.open(QIODevice::WriteOnly))
                return std::vector<BackendInfo>{};
            file.write("#!/bin/sh\n" + script + "\n");
            file.close();
            file.setPermissions(file.permissions() | QFileDevice::ExeOwner);
            WorkerConfig config = WorkerConfig::fromEnvironment();
            config.environment.insert("FUSESCOPE_LIBTORCH_RUNNER", path);
            return LibTorchFamily(config).probe();
        };
        const auto silent = probeWith("silent-runner", "exit 3");
        QCOMPARE(silent.size(), size_t(3));
        for (const auto& b : silent) {
            QVERIFY(!b.available);
            QVERIFY2(b.reason.find(dir.filePath("silent-runner").toStdString()) != std::string::npos,
                     b.reason.c_str());
            QVERIFY2(
                b.reason.find("exited with status 3 without writing anything on stdout; nothing on stderr") !=
                    std::string::npos,
                b.reason.c_str());
        }
        const auto loud =
            probeWith("loud-runner", "echo 'libc10.so: cannot open shared object file' >&2; exit 127");
        QVERIFY2(loud.front().reason.find("status 127") != std::string::npos, loud.front().reason.c_str());
        QVERIFY2(loud.front().reason.find("stderr: libc10.so: cannot open shared object file") !=
                     std::string::npos,
                 loud.front().reason.c_str());
        const auto killed = probeWith("killed-runner", "kill -9 $$");
        QVERIFY2(killed.front().reason.find("was killed by signal 9") != std::string::npos,
                 killed.front().reason.c_str());
    }

    void cancelReportsCancelled() {
        const auto run = runToEnd(request("demo:mlp", "torchscript_nnc"), nullptr, /*cancelEarly=*/true);
        QCOMPARE(run.status, RunStatus::Cancelled);
        QCOMPARE(run.error->code, std::string("cancelled"));
    }
};

QTEST_GUILESS_MAIN(LibTorchFamilyTest)
#include "LibTorchFamilyTest.moc"
