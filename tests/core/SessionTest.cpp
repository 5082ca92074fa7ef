// CompareSession and the engine thread with fake backend families: the state machine (run order,
// skip after a model error, cancel, timeout, assignment search order) and the generations that keep
// a cancelled run out of the report shown. Milliseconds, no torch.
#include "TestData.h"
#include "capture/CompareSession.h"
#include "capture/WorkerJob.h"
#include "codec/MessageCodec.h"
#include "codec/SettingsCodec.h"
#include "engine/Engine.h"
#include "engine/ReportModel.h"
#include "model/WorkloadText.h"
#include "report/ReportFile.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QMutex>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <map>

using namespace fusescope;

namespace {

// For tests that run no backend.
std::vector<std::unique_ptr<BackendFamily>> noFamilies() {
    return {};
}

// A report of `model` with one finished row named `backend`, written to `path`.
bool writeOneRowReport(const std::string& path, const std::string& model, const std::string& backend) {
    Report report;
    report.modelSpec = model;
    BackendRun row;
    row.name = backend;
    row.status = RunStatus::Ok;
    report.backends = {row};
    return !writeReport(report, path);
}

// Opens the fixture report in `model` and waits for it.
bool openFixture(ReportModel& model) {
    QSignalSpy opened(&model, &ReportModel::opened);
    model.open(FUSESCOPE_REPORT_FIXTURES "/good.fscope");
    return opened.wait(5000);
}

// What a fake backend does when it runs. Timed* give 20 pairs at a known speedup, accuracy passed
// (the tuner's scripted candidates): TimedFast 2.0x, TimedClose 1.98x, TimedSlow 1.2x.
enum class Outcome { Ok, ModelError, Hang, TimedFast, TimedClose, TimedSlow };

// Every job start, in order, across the families of a test (the engine thread writes it).
struct StartLog {
    QMutex mutex;
    std::vector<std::string> started;
    void add(const std::string& name) {
        QMutexLocker lock(&mutex);
        started.push_back(name);
    }
    std::vector<std::string> get() {
        QMutexLocker lock(&mutex);
        return started;
    }
};

class FakeJob : public BackendJob {
public:
    FakeJob(RunRequest request, Outcome outcome, std::string family)
        : m_outcome(outcome) {
        m_run.name = request.backend;
        m_run.family = std::move(family);
    }
    void start() override {
        m_run.status = RunStatus::Running;
        if (m_outcome == Outcome::Hang)
            return; // until cancelled
        QTimer::singleShot(1, this, [this] {
            if (m_done)
                return;
            m_run.eagerSamplesMs = {2.0, 2.0, 2.0};
            StreamEvent samples;
            samples.kind = StreamEvent::Kind::Samples;
            emit streamEvent(samples);
            if (m_outcome == Outcome::ModelError) {
                m_run.status = RunStatus::Failed;
                m_run.error = RunError{"model_invalid", "model.py has no model", "model.py", {}};
            } else if (m_outcome == Outcome::TimedFast || m_outcome == Outcome::TimedClose ||
                       m_outcome == Outcome::TimedSlow) {
                const double speedup = m_outcome == Outcome::TimedFast    ? 2.0
                                       : m_outcome == Outcome::TimedClose ? 1.98
                                                                          : 1.2;
                m_run.status = RunStatus::Ok;
                m_run.eagerSamplesMs.assign(20, 2.0);
                m_run.compiledSamplesMs.clear();
                for (int i = 0; i < 20; ++i)
                    m_run.compiledSamplesMs.push_back(2.0 / speedup * (1.0 + 0.005 * ((i % 5) - 2)));
                Accuracy accuracy;
                accuracy.pass = true;
                accuracy.status = "pass";
                m_run.accuracy = accuracy;
                m_run.wallSeconds = 0.001;
            } else {
                m_run.status = RunStatus::Ok;
                m_run.compiledSamplesMs = {1.0, 1.0, 1.0};
                ModelInfo model;
                model.name = "Net";
                model.modules = {{"enc", "Linear", 10, 1}, {"dec", "Linear", 10, 1}, {"enc.w", "P", 1, 2}};
                m_run.model = model;
            }
            finish();
        });
    }
    void cancel() override {
        if (m_done)
            return;
        m_run.status = RunStatus::Cancelled;
        m_run.error = RunError{"cancelled", "backend " + m_run.name + ": cancelled by the user", {}, {}};
        QTimer::singleShot(0, this, [this] { finish(); });
    }
    const BackendRun& run() const override { return m_run; }
    BackendRun takeRun() override { return std::move(m_run); }

private:
    void finish() {
        m_done = true;
        emit finished();
    }
    Outcome m_outcome;
    BackendRun m_run;
    bool m_done = false;
};

// A family that handles the names of its script (and "mixed" when asked); "slow" names run a
// real WorkerJob on an interpreter that never answers, to reach the timeout.
class FakeFamily : public BackendFamily {
public:
    FakeFamily(std::string id, std::map<std::string, Outcome> script, StartLog* log,
               QString hangingPython = {})
        : m_id(std::move(id))
        , m_script(std::move(script))
        , m_log(log)
        , m_hangingPython(std::move(hangingPython)) {}
    std::string id() const override { return m_id; }
    std::vector<BackendInfo> probe() override {
        std::vector<BackendInfo> out;
        for (const auto& [name, outcome] : m_script)
            out.push_back({name, m_id, true, {}, {}});
        return out;
    }
    bool handles(const std::string& backend) const override {
        return m_script.count(backend) > 0 || backend == "slow";
    }
    std::unique_ptr<BackendJob> createJob(const RunRequest& request, QObject* parent) override {
        m_log->add(request.backend == kMixedBackend ? "mixed" : request.backend);
        if (request.backend == "slow") {
            WorkerConfig config;
            config.python = m_hangingPython;
            RunRequest timed = request;
            timed.timeoutSeconds = 0.2;
            auto job = std::make_unique<WorkerJob>(config, timed, m_id, parent);
            return job;
        }
        const Outcome outcome = m_script.count(request.backend) ? m_script.at(request.backend) : Outcome::Ok;
        return std::make_unique<FakeJob>(request, outcome, m_id);
    }

private:
    std::string m_id;
    std::map<std::string, Outcome> m_script;
    StartLog* m_log;
    QString m_hangingPython;
};

std::vector<BackendFamily*> pointers(const std::vector<std::unique_ptr<BackendFamily>>& families) {
    std::vector<BackendFamily*> out;
    for (const auto& f : families)
        out.push_back(f.get());
    return out;
}

RunRequest baseRequest() {
    RunRequest base;
    base.model = "demo:mlp";
    base.measure.minRuns = 4; // not the defaults, so the report's settings show they came from here
    base.measure.confidencePct = 3.0;
    base.placement.threads = 1;
    return base;
}

std::string codeOf(const BackendRun& run) {
    return run.error ? run.error->code : std::string();
}

} // namespace

class SessionTest : public QObject {
    Q_OBJECT
private slots:
    // The tuner drives the session (docs/tuning.md): screening, the clearly slower dropped, the
    // close ones revisited in fresh jobs whose samples join their rows, the outcome in the report.
    void tunerRacesTheCloseOnesToMaxRounds() {
        StartLog log;
        std::vector<std::unique_ptr<BackendFamily>> families;
        families.push_back(
            std::make_unique<FakeFamily>("torch_compile",
                                         std::map<std::string, Outcome>{{"fast", Outcome::TimedFast},
                                                                        {"close", Outcome::TimedClose},
                                                                        {"lagging", Outcome::TimedSlow}},
                                         &log));
        CompareSession session(pointers(families));
        std::vector<TuneSpaceEntry> space = {
            {"fast", "space", ""}, {"lagging", "space", ""}, {"close", "space", ""}};
        session.setTuner(std::make_unique<Tuner>(space, Goal::Latency, 60, false, 3), 60);
        QSignalSpy finished(&session, &CompareSession::finished);
        session.start({}, baseRequest());
        QVERIFY(finished.wait(5000));
        QCOMPARE(log.get(),
                 (std::vector<std::string>{"fast", "lagging", "close", "fast", "close", "fast", "close"}));
        const auto& rows = session.report().backends;
        QCOMPARE(rows.size(), size_t(3)); // revisits join their rows
        QCOMPARE(rows[0].rounds.size(), size_t(3));
        QCOMPARE(rows[0].eagerSamplesMs.size(), size_t(60));
        QCOMPARE(rows[0].rounds[2].cache, std::string("warm"));
        QCOMPARE(rows[1].rounds.size(), size_t(0));
        const auto& tuning = session.report().tuning;
        QVERIFY(tuning.has_value());
        QCOMPARE(tuning->stoppedBy, std::string("max_rounds"));
        QCOMPARE(tuning->best->entry, std::string("fast"));
        QCOMPARE(tuning->runnersUp, std::vector<std::string>{"close"});
        QVERIFY(tuning->candidates[1].dropped.has_value());
        QCOMPARE(session.report().settings.cache, std::string("cold, then warm on each revisit"));
    }

    // The budget is a promise: a candidate still running when it ends is stopped, named so, and
    // everything measured before it is kept.
    void tunerBudgetStopsTheRunInProgress() {
        StartLog log;
        std::vector<std::unique_ptr<BackendFamily>> families;
        families.push_back(std::make_unique<FakeFamily>(
            "torch_compile",
            std::map<std::string, Outcome>{{"fast", Outcome::TimedFast}, {"hang", Outcome::Hang}}, &log));
        CompareSession session(pointers(families));
        std::vector<TuneSpaceEntry> space = {{"fast", "space", ""}, {"hang", "space", ""}};
        session.setTuner(std::make_unique<Tuner>(space, Goal::Latency, 1.5, false, 3), 1.5, 0.5);
        QSignalSpy finished(&session, &CompareSession::finished);
        QElapsedTimer clock;
        clock.start();
        session.start({}, baseRequest());
        QVERIFY(finished.wait(5000));
        QVERIFY(clock.elapsed() < 1500); // 1.5 s budget, 0.5 s of it spent before start()
        const auto& rows = session.report().backends;
        QCOMPARE(rows.size(), size_t(2));
        QCOMPARE(rows[0].status, RunStatus::Ok);
        QCOMPARE(rows[1].status, RunStatus::Cancelled);
        QVERIFY(rows[1].error->message.find("the tuning budget of 2 s ended") != std::string::npos);
        QCOMPARE(session.report().tuning->stoppedBy, std::string("budget"));
        QCOMPARE(session.report().tuning->best->entry, std::string("fast"));
    }

    // The backends run one after another in the order given, each in its own job.
    void runsBackendsInTheOrderGiven() {
        StartLog log;
        std::vector<std::unique_ptr<BackendFamily>> families;
        families.push_back(std::make_unique<FakeFamily>(
            "torch_compile",
            std::map<std::string, Outcome>{{"eager", Outcome::Ok}, {"inductor", Outcome::Ok}}, &log));
        families.push_back(std::make_unique<FakeFamily>(
            "other", std::map<std::string, Outcome>{{"tvm", Outcome::Ok}}, &log));
        CompareSession session(pointers(families));
        QSignalSpy finished(&session, &CompareSession::finished);
        session.start({"inductor", "tvm", "eager", "nosuch"}, baseRequest());
        QVERIFY(finished.wait(5000));
        QCOMPARE(log.get(), (std::vector<std::string>{"inductor", "tvm", "eager"}));
        const auto& rows = session.report().backends;
        QCOMPARE(rows.size(), size_t(4));
        QCOMPARE(rows[0].status, RunStatus::Ok);
        QCOMPARE(rows[1].family, std::string("other"));
        QCOMPARE(rows[3].status, RunStatus::Unavailable);
        QCOMPARE(codeOf(rows[3]), std::string("backend_unavailable"));
        QCOMPARE(session.report().model.name, std::string("Net"));
        QVERIFY(!session.running());
        // The report's settings hold the measure and placement objects the request line carries.
        const auto line = codec::encodeRunRequest(baseRequest(), "x");
        const nlohmann::json settings = session.report().settings;
        QVERIFY(settings["measure"] == line["measure"]);
        QVERIFY(settings["placement"] == line["placement"]);
    }

    // A model that fails to load fails every backend the same way: the rest are not started.
    void skipsTheRestAfterAModelError() {
        StartLog log;
        std::vector<std::unique_ptr<BackendFamily>> families;
        families.push_back(std::make_unique<FakeFamily>(
            "torch_compile",
            std::map<std::string, Outcome>{{"eager", Outcome::ModelError}, {"inductor", Outcome::Ok}}, &log));
        CompareSession session(pointers(families));
        QSignalSpy finished(&session, &CompareSession::finished);
        QSignalSpy rowFinished(&session, &CompareSession::backendFinished);
        session.start({"eager", "inductor", "aot_eager"}, baseRequest());
        QVERIFY(finished.wait(5000));
        QCOMPARE(log.get(), (std::vector<std::string>{"eager"}));
        const auto& rows = session.report().backends;
        QCOMPARE(rowFinished.count(), 3);
        for (const auto& row : rows) {
            QCOMPARE(row.status, RunStatus::Failed);
            QCOMPARE(codeOf(row), std::string("model_invalid"));
        }
        QVERIFY(rows[1].error->message.find("not run, the model failed in backend eager") !=
                std::string::npos);
    }

    // Cancel stops the running job and marks the backends not yet started.
    void cancelStopsTheRunAndTheRest() {
        StartLog log;
        std::vector<std::unique_ptr<BackendFamily>> families;
        families.push_back(std::make_unique<FakeFamily>(
            "torch_compile",
            std::map<std::string, Outcome>{{"eager", Outcome::Hang}, {"inductor", Outcome::Ok}}, &log));
        CompareSession session(pointers(families));
        QSignalSpy finished(&session, &CompareSession::finished);
        // The job is running (and would hang) when the cancel comes.
        connect(&session, &CompareSession::backendStarted, &session,
                [&session] { QTimer::singleShot(10, &session, [&session] { session.cancel(); }); });
        session.start({"eager", "inductor"}, baseRequest());
        QVERIFY(finished.wait(5000));
        QCOMPARE(log.get(), (std::vector<std::string>{"eager"}));
        const auto& rows = session.report().backends;
        QCOMPARE(rows[0].status, RunStatus::Cancelled);
        QVERIFY(rows[0].error->message.find("cancelled by the user") != std::string::npos);
        QCOMPARE(rows[1].status, RunStatus::Cancelled);
        QVERIFY(rows[1].error->message.find("cancelled before it started") != std::string::npos);
    }

    // A cancel that comes with backendStarted, before the job exists, starts no job at all.
    void cancelAtBackendStartedStartsNoJob() {
        StartLog log;
        std::vector<std::unique_ptr<BackendFamily>> families;
        families.push_back(std::make_unique<FakeFamily>(
            "torch_compile", std::map<std::string, Outcome>{{"eager", Outcome::Hang}}, &log));
        CompareSession session(pointers(families));
        QSignalSpy finished(&session, &CompareSession::finished);
        connect(&session, &CompareSession::backendStarted, &session, [&session] { session.cancel(); });
        session.start({"eager", "inductor"}, baseRequest());
        QVERIFY(finished.wait(5000));
        QVERIFY(log.get().empty());
        QCOMPARE(session.report().backends[0].status, RunStatus::Cancelled);
        QCOMPARE(session.report().backends[1].status, RunStatus::Cancelled);
    }

    // A worker that never answers is stopped at the request's timeout, and the next backend runs.
    void aHangingWorkerTimesOutAndTheNextRuns() {
        QTemporaryDir dir;
        const QString python = dir.filePath("python");
        {
            QFile script(python);
            QVERIFY(script.open(QIODevice::WriteOnly));
            script.write("#!/bin/sh\nexec sleep 30\n");
        }
        QFile::setPermissions(python, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        StartLog log;
        std::vector<std::unique_ptr<BackendFamily>> families;
        families.push_back(std::make_unique<FakeFamily>(
            "torch_compile", std::map<std::string, Outcome>{{"eager", Outcome::Ok}}, &log, python));
        CompareSession session(pointers(families));
        QSignalSpy finished(&session, &CompareSession::finished);
        session.start({"slow", "eager"}, baseRequest());
        QVERIFY(finished.wait(10000));
        QCOMPARE(log.get(), (std::vector<std::string>{"slow", "eager"}));
        const auto& rows = session.report().backends;
        QCOMPARE(rows[0].status, RunStatus::Failed);
        QCOMPARE(codeOf(rows[0]), std::string("worker_timeout"));
        QCOMPARE(rows[1].status, RunStatus::Ok);
    }

    // The assignment search runs after the listed backends, appending its candidates in the
    // exhaustive order over the top-level submodules (first module fastest).
    void searchCandidatesFollowTheListedBackends() {
        StartLog log;
        std::vector<std::unique_ptr<BackendFamily>> families;
        families.push_back(std::make_unique<FakeFamily>(
            "torch_compile",
            std::map<std::string, Outcome>{
                {"eager", Outcome::Ok}, {"aot_eager", Outcome::Ok}, {"mixed", Outcome::Ok}},
            &log));
        CompareSession session(pointers(families));
        session.setSearchAssignments(true);
        QSignalSpy finished(&session, &CompareSession::finished);
        QSignalSpy added(&session, &CompareSession::backendAdded);
        session.start({"eager", "aot_eager"}, baseRequest());
        QVERIFY(finished.wait(5000));
        std::vector<std::string> labels;
        for (const auto& row : session.report().backends)
            labels.push_back(row.name);
        QCOMPARE(labels,
                 (std::vector<std::string>{"eager", "aot_eager", "mixed[enc=eager,dec=eager]",
                                           "mixed[enc=aot_eager,dec=eager]", "mixed[enc=eager,dec=aot_eager]",
                                           "mixed[enc=aot_eager,dec=aot_eager]"}));
        QCOMPARE(added.count(), 4);
        QCOMPARE(log.get(),
                 (std::vector<std::string>{"eager", "aot_eager", "mixed", "mixed", "mixed", "mixed"}));
        QVERIFY(session.report().search.has_value());
        QVERIFY(session.report().search->ran());
    }

    // The engine thread runs the session; the model on this thread assembles the report from
    // its snapshots, one per finished row, with live samples in between.
    void theEngineRunsOffThisThread() {
        StartLog log;
        Engine engine([&log] {
            std::vector<std::unique_ptr<BackendFamily>> families;
            families.push_back(std::make_unique<FakeFamily>(
                "torch_compile",
                std::map<std::string, Outcome>{{"eager", Outcome::Ok}, {"inductor", Outcome::Ok}}, &log));
            return families;
        });
        ReportModel model(engine);
        QSignalSpy done(&model, &ReportModel::runFinished);
        QSignalSpy samples(&model, &ReportModel::samplesArrived);
        model.startRun({"eager", "inductor"}, baseRequest(), false);
        QVERIFY(model.running());
        QVERIFY(done.wait(5000));
        QVERIFY(!model.running());
        QCOMPARE(model.report().backends.size(), size_t(2));
        QCOMPARE(model.report().backends[1].status, RunStatus::Ok);
        QCOMPARE(model.report().model.name, std::string("Net"));
        QCOMPARE(samples.count(), 2);
        QCOMPARE(model.droppedSnapshots(), 0);
        // Each finished row comes with its view, made on the engine thread: a snapshot of its own
        // (the row in the report may be replaced; the view stays as it was).
        for (int row = 0; row < 2; ++row) {
            const RunViewSnapshot view = model.runView(row);
            QVERIFY(view && view->run);
            QCOMPARE(view->run->name, model.report().backends[size_t(row)].name);
            QCOMPARE(view->run->status, RunStatus::Ok);
            QVERIFY(!view->links && !view->time); // no kernel trace in these runs
        }
        QVERIFY(!model.runView(2));
        QCOMPARE(model.runViews().size(), size_t(2));
    }

    // Run > Tune... through the engine: the families probed there give the space, the tuner's
    // rows and revisits reach the model, and the final outcome (why it stopped) arrives with them.
    void theEngineRunsATuning() {
        StartLog log;
        Engine engine([&log] {
            std::vector<std::unique_ptr<BackendFamily>> families;
            families.push_back(std::make_unique<FakeFamily>(
                "torch_compile",
                std::map<std::string, Outcome>{{"fast", Outcome::TimedFast}, {"close", Outcome::TimedClose}},
                &log));
            return families;
        });
        ReportModel model(engine);
        QSignalSpy done(&model, &ReportModel::runFinished);
        TuneSettings settings;
        settings.budgetSeconds = 60;
        model.startTune(baseRequest(), settings);
        QVERIFY(model.running());
        QVERIFY(done.wait(10000));
        QVERIFY(!model.running());
        const Report& report = model.report();
        QCOMPARE(report.backends.size(), size_t(2));
        QVERIFY(report.tuning.has_value());
        QCOMPARE(report.tuning->stoppedBy, std::string("max_rounds"));
        QCOMPARE(report.backends[0].rounds.size(), size_t(5)); // the default max_rounds
        QCOMPARE(report.tuning->candidates[0].rounds, 5);
        QVERIFY(report.tuning->best.has_value());
    }

    // A space with nothing to race starts no run and says why.
    void aTuningWithNothingToRaceFails() {
        Engine engine(noFamilies);
        ReportModel model(engine);
        QSignalSpy failed(&model, &ReportModel::tuneFailed);
        model.startTune(baseRequest(), TuneSettings{});
        QVERIFY(failed.wait(5000));
        QVERIFY(!model.running());
        QVERIFY(failed.at(0).at(0).toString().contains("no candidates"));
    }

    // An opened report's views point into the report itself (nothing copied), with the derived
    // records computed once on the engine thread: the same as computing them here.
    void anOpenedReportsViewsShareItAndCarryTheDerivedRecords() {
        Engine engine(noFamilies);
        ReportModel model(engine);
        QVERIFY(openFixture(model));
        const Report& report = model.report();
        QCOMPARE(model.runViews().size(), report.backends.size());
        int traced = 0;
        for (size_t i = 0; i < report.backends.size(); ++i) {
            const RunViewSnapshot view = model.runView(int(i));
            QVERIFY(view);
            QCOMPARE(view->run.get(), &report.backends[i]);
            QCOMPARE(bool(view->time), report.backends[i].trace.has_value());
            if (!view->time)
                continue;
            ++traced;
            const TimeAttribution here = attributeKernelTime(report.backends[i]);
            QCOMPARE(view->time->tracedNs, here.tracedNs);
            QCOMPARE(view->time->unattributedNs, here.unattributedNs);
            QCOMPARE(view->time->nodes.size(), here.nodes.size());
            const KernelLinks links =
                linkKernelsToGroups(*report.backends[i].trace, afterFusionStages(report.backends[i]));
            QCOMPARE(view->links->eventGroup, links.eventGroup);
            QCOMPARE(view->links->groups.size(), links.groups.size());
            // The shared pointers handed to the views keep the view (and the report) alive.
            const auto time = timeOf(view);
            QCOMPARE(time.get(), &*view->time);
            QCOMPARE(traceOf(view).get(), &*report.backends[i].trace);
        }
        QVERIFY(traced > 0);
    }

    // A large report shows before its stages are read (docs/performance.md, "First paint"): opened
    // without them, then reset with them in the same generation; a save asked for meanwhile writes
    // the whole report, never the one without stages.
    void aLargeReportShowsFirstThenItsStages() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("big.fscope").toStdString();
        const Report original = testdata::largeStagesReport(kDeferStagesFromBytes);
        QVERIFY(!writeReport(original, path));
        Engine engine(noFamilies);
        ReportModel model(engine);
        bool pendingAtOpen = false;
        size_t stagesAtOpen = 99;
        const auto atOpen = connect(&model, &ReportModel::opened, &model, [&] {
            pendingAtOpen = model.stagesPending();
            stagesAtOpen = model.report().backends[0].stages.size();
            model.save(dir.filePath("saved.fscope")); // before the stages are in
        });
        QSignalSpy resets(&model, &ReportModel::reportReset);
        QSignalSpy loaded(&model, &ReportModel::stagesLoaded);
        QSignalSpy saved(&model, &ReportModel::saved);
        model.open(QString::fromStdString(path));
        QVERIFY(loaded.wait(20000));
        QVERIFY(pendingAtOpen);
        QCOMPARE(stagesAtOpen, size_t(0));
        QCOMPARE(resets.size(), 2); // at open, and with the stages
        QVERIFY(!model.stagesPending());
        QCOMPARE(model.report().backends[0].stages.size(), original.backends[0].stages.size());
        const quint64 generation = model.generation();
        QVERIFY(model.runView(0));
        QCOMPARE(model.runView(0)->run->stages.size(), original.backends[0].stages.size());
        QVERIFY(saved.wait(20000));
        auto back = readReport(dir.filePath("saved.fscope").toStdString());
        QVERIFY(back.ok());
        QCOMPARE(back.value().backends[0].stages.size(), original.backends[0].stages.size());
        QCOMPARE(model.generation(), generation);
        disconnect(atOpen);
        // A small report is read in one step: no second reset.
        QVERIFY(openFixture(model));
        QVERIFY(!model.stagesPending());
        QCOMPARE(loaded.size(), 1);
    }

    // File > Export HTML Report: the page is written on the engine thread; a path that cannot be
    // written is an error naming it.
    void theHtmlReportIsWrittenOnTheEngine() {
        Engine engine(noFamilies);
        ReportModel model(engine);
        QVERIFY(openFixture(model));
        QTemporaryDir dir;
        QSignalSpy exported(&model, &ReportModel::htmlExported);
        model.exportHtml(dir.filePath("r.html"));
        QVERIFY(exported.wait(5000));
        QCOMPARE(exported.front().at(1).toString(), QString());
        QFile page(dir.filePath("r.html"));
        QVERIFY(page.open(QIODevice::ReadOnly));
        QVERIFY(page.readAll().contains("<table class=\"comparison\">"));
        model.exportHtml(dir.filePath("missing/r.html"));
        QVERIFY(exported.wait(5000));
        QVERIFY(exported.at(1).at(1).toString().contains("missing/r.html"));
    }

    // The names a user types are classified by the engine's own families, from any thread.
    void familiesAnswerFromTheEngine() {
        StartLog log;
        int created = 0;
        Engine engine([&log, &created] {
            ++created;
            std::vector<std::unique_ptr<BackendFamily>> families;
            families.push_back(std::make_unique<FakeFamily>(
                "torch_compile", std::map<std::string, Outcome>{{"eager", Outcome::Ok}}, &log));
            return families;
        });
        QCOMPARE(engine.familyOf("eager"), std::string("torch_compile"));
        QCOMPARE(engine.familyOf("not_a_backend"), std::string());
        ReportModel model(engine);
        QSignalSpy done(&model, &ReportModel::runFinished);
        model.startRun({"eager"}, baseRequest(), false);
        QVERIFY(done.wait(5000));
        QCOMPARE(created, 1); // the run used the set familyOf created: one set, not two
        Engine empty(noFamilies);
        QCOMPARE(empty.familyOf("eager"), std::string());
    }

    // Diffs and suites are read on the engine thread; each answer carries its request's ticket
    // and names the file that could not be read. The report shown is not touched.
    void diffsAndSuitesLoadOnTheEngine() {
        QTemporaryDir dir;
        const std::string pathA = dir.filePath("a.fscope").toStdString();
        QVERIFY(writeOneRowReport(pathA, "demo:mlp", "eager"));

        Engine engine(noFamilies);
        QSignalSpy diffs(&engine, &Engine::diffLoaded);
        DiffRequest good;
        good.pathA = good.pathB = pathA;
        good.labelA = "a";
        good.labelB = "b";
        const quint64 first = engine.loadDiff(good);
        DiffRequest missing = good;
        missing.pathB = dir.filePath("missing.fscope").toStdString();
        const quint64 second = engine.loadDiff(missing);
        QVERIFY(second != first);
        QVERIFY(diffs.count() == 2 || (diffs.wait(5000) && (diffs.count() == 2 || diffs.wait(5000))));
        const auto okLoad = diffs.at(0).at(1).value<DiffLoadSnapshot>();
        QCOMPARE(diffs.at(0).at(0).toULongLong(), first);
        QVERIFY(okLoad->a && okLoad->b && okLoad->diff && okLoad->errors.empty());
        const auto badLoad = diffs.at(1).at(1).value<DiffLoadSnapshot>();
        QCOMPARE(diffs.at(1).at(0).toULongLong(), second);
        QVERIFY(!badLoad->diff && badLoad->a && !badLoad->b);
        QCOMPARE(badLoad->errors.size(), size_t(1));
        QVERIFY(badLoad->errors[0].rfind("B: ", 0) == 0);
        QVERIFY(badLoad->errors[0].find("missing.fscope") != std::string::npos);

        QSignalSpy suites(&engine, &Engine::suiteLoaded);
        const quint64 suiteTicket = engine.loadSuite(dir.path().toStdString());
        QVERIFY(suites.wait(5000));
        QCOMPARE(suites.at(0).at(0).toULongLong(), suiteTicket);
        const auto suite = suites.at(0).at(1).value<SuiteSnapshot>();
        QVERIFY(!*suite); // no sweep.json there
        QVERIFY(suite->error().message.find("sweep.json") != std::string::npos);
    }

    // Opening a report mid-run cancels and disconnects the old session: the opened report is
    // never touched by it, and no runFinished of the old run arrives.
    void openingAReportMidRunLeavesItUntouched() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("r.fscope").toStdString();
        QVERIFY(writeOneRowReport(path, "demo:cnn", "from_file"));

        StartLog log;
        Engine engine([&log] {
            std::vector<std::unique_ptr<BackendFamily>> families;
            families.push_back(std::make_unique<FakeFamily>(
                "torch_compile",
                std::map<std::string, Outcome>{{"eager", Outcome::Hang}, {"inductor", Outcome::Ok}}, &log));
            return families;
        });
        ReportModel model(engine);
        QSignalSpy started(&model, &ReportModel::backendStarted);
        QSignalSpy opened(&model, &ReportModel::opened);
        QSignalSpy finishedRows(&model, &ReportModel::backendFinished);
        QSignalSpy runDone(&model, &ReportModel::runFinished);
        model.startRun({"eager", "inductor"}, baseRequest(), false);
        QVERIFY(started.wait(5000));
        const quint64 runGeneration = model.generation();
        model.open(QString::fromStdString(path));
        QVERIFY(opened.wait(5000));
        QVERIFY(model.generation() > runGeneration);
        QVERIFY(!model.running());
        QTest::qWait(50); // the cancelled job ends on the engine thread meanwhile
        QCOMPARE(model.report().backends.size(), size_t(1));
        QCOMPARE(model.report().backends[0].name, std::string("from_file"));
        QCOMPARE(finishedRows.count(), 0);
        QCOMPARE(runDone.count(), 0);
        QCOMPARE(log.get(), (std::vector<std::string>{"eager"}));

        // A snapshot of the old generation that still arrives is dropped.
        auto stale = std::make_shared<BackendRun>();
        stale->name = "stale";
        emit engine.backendFinished(runGeneration, 0, analyzeRun(stale), std::make_shared<Report>(), stale);
        emit engine.runFinished(runGeneration);
        QCOMPARE(model.report().backends[0].name, std::string("from_file"));
        QCOMPARE(finishedRows.count(), 0);
        QCOMPARE(runDone.count(), 0);
        QCOMPARE(model.droppedSnapshots(), 2);
    }

    // A report that cannot be read changes nothing: the run goes on and finishes.
    void aFailedOpenLeavesTheRunGoing() {
        StartLog log;
        Engine engine([&log] {
            std::vector<std::unique_ptr<BackendFamily>> families;
            families.push_back(std::make_unique<FakeFamily>(
                "torch_compile", std::map<std::string, Outcome>{{"eager", Outcome::Ok}}, &log));
            return families;
        });
        ReportModel model(engine);
        QSignalSpy failed(&model, &ReportModel::openFailed);
        QSignalSpy done(&model, &ReportModel::runFinished);
        model.startRun({"eager"}, baseRequest(), false);
        const quint64 ticket = model.open("/nonexistent/r.fscope");
        QVERIFY(failed.wait(5000));
        QCOMPARE(failed.front().at(0).toULongLong(), ticket);
        QVERIFY(failed.front().at(2).toString().contains("r.fscope"));
        QVERIFY(done.count() == 1 || done.wait(5000));
        QCOMPARE(model.report().backends[0].status, RunStatus::Ok);
    }
};

QTEST_GUILESS_MAIN(SessionTest)
#include "SessionTest.moc"
