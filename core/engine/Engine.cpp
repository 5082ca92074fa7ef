#include "Engine.h"

#include "capture/CompareSession.h"
#include "html/HtmlReport.h"
#include "report/ReportFile.h"

#include <QCoreApplication>
#include <QPointer>
#include <mutex>

namespace fusescope {

// The engine's backend families: created on first use by the factory, on whichever thread asks
// first (creating one starts nothing), and dropped by reloadFamilies. The engine thread runs
// sessions on them; familyOf() asks them from any thread, under the mutex.
struct EngineFamilies {
    std::mutex mutex;
    Engine::FamilyFactory make;
    std::vector<std::unique_ptr<BackendFamily>> list;

    // With `mutex` held.
    std::vector<BackendFamily*> pointers() {
        if (list.empty())
            list = make();
        std::vector<BackendFamily*> out;
        for (const auto& family : list)
            out.push_back(family.get());
        return out;
    }
};

namespace {

// The report without its backends: what a finished row also changes (model, environment, search).
ReportSnapshot headerOf(const Report& report) {
    auto header = std::make_shared<Report>();
    header->header() = report.header();
    return header;
}

std::vector<double> tailFrom(const std::vector<double>& values, size_t& sent) {
    if (values.size() <= sent)
        return {};
    std::vector<double> out(values.begin() + static_cast<std::ptrdiff_t>(sent), values.end());
    sent = values.size();
    return out;
}

} // namespace

// Everything that runs on the engine thread. It emits the Engine's signals directly: they are
// thread-safe to emit, and reach receivers on other threads queued, in the order emitted.
class EngineWorker : public QObject {
public:
    EngineWorker(Engine* engine, std::shared_ptr<EngineFamilies> families)
        : m_engine(engine)
        , m_families(std::move(families)) {}

    void startTune(const RunRequest& base, const TuneSettings& settings) {
        endSession();
        QElapsedTimer clock;
        clock.start();
        // Probing starts a worker (seconds), with families of its own as Engine::probe's: the
        // session's are shared with familyOf() on other threads.
        const auto probing = m_families->make();
        std::vector<BackendFamily*> pointers;
        for (const auto& family : probing)
            pointers.push_back(family.get());
        auto setup = makeTuner(pointers, settings, base);
        if (!setup) {
            emit m_engine->tuneFailed(setup.error().message);
            return;
        }
        startRun({}, base, false, std::move(setup.value().tuner), settings.budgetSeconds,
                 clock.elapsed() / 1000.0);
    }

    void startRun(const std::vector<std::string>& backends, const RunRequest& base, bool search,
                  std::unique_ptr<Tuner> tuner = nullptr, double budgetSeconds = 0, double spentSeconds = 0) {
        endSession();
        const quint64 generation = ++m_generation;
        m_session = std::make_unique<CompareSession>(familyPointers());
        m_session->setSearchAssignments(search);
        if (tuner)
            m_session->setTuner(std::move(tuner), budgetSeconds, spentSeconds);
        CompareSession* session = m_session.get();
        connect(session, &CompareSession::backendAdded, this, [this, session, generation](int row) {
            m_sent.resize(session->report().backends.size(), false);
            emit m_engine->backendAdded(generation, row, session->report().backends[row].name);
        });
        connect(session, &CompareSession::backendStarted, this, [this, generation](int row) {
            m_eagerSent = m_compiledSent = 0;
            emit m_engine->backendStarted(generation, row);
        });
        connect(session, &CompareSession::backendEvent, this,
                [this, session, generation](int row, const StreamEvent& ev) {
                    if (ev.kind == StreamEvent::Kind::Progress) {
                        emit m_engine->backendProgress(generation, row, ev.phase, ev.fraction, ev.message);
                    } else if (ev.kind == StreamEvent::Kind::Samples) {
                        const BackendRun* live = session->liveRun();
                        if (!live)
                            return;
                        auto eager = tailFrom(live->eagerSamplesMs, m_eagerSent);
                        auto compiled = tailFrom(live->compiledSamplesMs, m_compiledSent);
                        if (!eager.empty() || !compiled.empty())
                            emit m_engine->samplesArrived(generation, row, eager, compiled);
                    }
                });
        connect(session, &CompareSession::backendFinished, this,
                [this, session, generation](int row) { sendRow(*session, generation, row); });
        connect(session, &CompareSession::finished, this, [this, session, generation] {
            // Rows cancelled before they started were never announced one by one.
            bool sent = false;
            for (size_t i = 0; i < session->report().backends.size(); ++i)
                if (i >= m_sent.size() || !m_sent[i]) {
                    sendRow(*session, generation, static_cast<int>(i));
                    sent = true;
                }
            // The tuning's final outcome (why it stopped) is written as the session ends: one
            // more row message carries it in its header.
            if (!sent && session->report().tuning && !session->report().backends.empty())
                sendRow(*session, generation, static_cast<int>(session->report().backends.size()) - 1);
            emit m_engine->runFinished(generation);
        });
        session->start(backends, base);
        m_sent.assign(session->report().backends.size(), false);
        emit m_engine->runStarted(generation, std::make_shared<const Report>(session->report()));
    }

    // Only this thread drops them, and only after endSession(): the session may keep the
    // pointers once the lock is released.
    std::vector<BackendFamily*> familyPointers() {
        const std::lock_guard lock(m_families->mutex);
        return m_families->pointers();
    }

    void cancel() {
        if (m_session)
            m_session->cancel();
    }

    void openReport(const std::string& path, quint64 ticket) {
        ReadLeftovers leftovers; // freed after the report is on its way (ReportFile.h)
        DeferredStages deferred; // a large report's stages, read after the rest is shown
        // FUSESCOPE_OPEN_WHOLE=1 reads every report in one step, as before the two-step read: the
        // same binary measures both (docs/performance.md, "First paint").
        static const bool readWhole = qEnvironmentVariableIsSet("FUSESCOPE_OPEN_WHOLE");
        // A .fscope, or a log an importer takes (docs/import.md).
        auto loaded = openReportOrImport(path, &leftovers, readWhole ? nullptr : &deferred);
        if (!loaded) {
            emit m_engine->openFailed(ticket, path, loaded.error().message);
            return;
        }
        endSession();
        const quint64 generation = ++m_generation;
        auto report = std::make_shared<const Report>(std::move(loaded).value());
        RunViews views = analyzeReport(report);
        emit m_engine->reportOpened(generation, ticket, report, std::move(views), path, !deferred.empty());
        leftovers.held.reset(); // here, while the UI thread shows the report
        if (deferred.empty())
            return;
        auto whole = std::make_shared<const Report>(withDeferredStages(*report, deferred));
        report.reset();
        deferred = {};
        RunViews wholeViews = analyzeReport(whole);
        emit m_engine->stagesLoaded(generation, std::move(whole), std::move(wholeViews));
    }

    void saveReport(const ReportSnapshot& report, const std::string& path) {
        const auto error = writeReport(*report, path);
        emit m_engine->saved(path, error ? error->message : std::string());
    }

    void reloadFamilies() {
        endSession();
        const std::lock_guard lock(m_families->mutex);
        m_families->list.clear();
    }

    // Ends the session and its jobs on the engine thread, before the thread stops.
    void shutdown() { reloadFamilies(); }

private:
    void sendRow(const CompareSession& session, quint64 generation, int row) {
        const auto& report = session.report();
        if (row < 0 || row >= static_cast<int>(report.backends.size()))
            return;
        if (m_sent.size() < report.backends.size())
            m_sent.resize(report.backends.size(), false);
        m_sent[row] = true;
        const BackendRun& run = report.backends[row];
        emit m_engine->backendFinished(generation, row, analyzeRun(std::make_shared<const BackendRun>(run)),
                                       headerOf(report), std::make_shared<BackendRun>(run));
    }

    // The old session is disconnected before it is cancelled: nothing it does from here on is
    // emitted (its job's processes are killed when it is destroyed).
    void endSession() {
        if (!m_session)
            return;
        m_session->disconnect(this);
        m_session->cancel();
        m_session.reset();
        m_sent.clear();
    }

    Engine* m_engine;
    std::shared_ptr<EngineFamilies> m_families;
    std::unique_ptr<CompareSession> m_session;
    quint64 m_generation = 0;
    std::vector<bool> m_sent; // rows whose final state was emitted
    size_t m_eagerSent = 0, m_compiledSent = 0;
};

// Reads and writes that touch no session (the Diff window's reports, a sweep folder, the HTML
// page) on a thread of their own: a large diff or page never delays a run's stream, its cancel
// or its timeout on the engine thread.
class EngineLoader : public QObject {
public:
    explicit EngineLoader(Engine* engine)
        : m_engine(engine) {}

    void loadDiff(const DiffRequest& request, quint64 ticket) {
        auto out = std::make_shared<DiffLoad>();
        auto read = [&out](const std::string& path, const char* side) -> ReportSnapshot {
            auto report = readReport(path);
            if (!report) {
                out->errors.push_back(std::string(side) + ": " + report.error().message);
                return nullptr;
            }
            return std::make_shared<const Report>(std::move(report).value());
        };
        out->a = read(request.pathA, "A");
        out->b = read(request.pathB, "B");
        if (out->a && out->b)
            out->diff = diffReports(*out->a, *out->b, request.backendA, request.backendB, request.labelA,
                                    request.labelB);
        emit m_engine->diffLoaded(ticket, std::move(out));
    }

    void loadSuite(const std::string& dir, quint64 ticket) {
        emit m_engine->suiteLoaded(ticket, std::make_shared<const Result<Suite>>(fusescope::loadSuite(dir)));
    }

    void exportHtml(const ReportSnapshot& report, const std::string& path) {
        const auto error = writeFileAtomically(path, html::htmlReport(*report));
        emit m_engine->htmlExported(path, error ? error->message : std::string());
    }

private:
    Engine* m_engine;
};

Engine::Engine(FamilyFactory makeFamilies, QObject* parent)
    : QObject(parent) {
    qRegisterMetaType<fusescope::RunSnapshot>();
    qRegisterMetaType<fusescope::ReportSnapshot>();
    qRegisterMetaType<fusescope::RunViewSnapshot>();
    qRegisterMetaType<fusescope::RunViews>();
    qRegisterMetaType<fusescope::RunHandover>();
    qRegisterMetaType<fusescope::DiffLoadSnapshot>();
    qRegisterMetaType<fusescope::SuiteSnapshot>();
    qRegisterMetaType<std::vector<fusescope::BackendInfo>>();
    qRegisterMetaType<std::string>();
    qRegisterMetaType<std::vector<double>>();
    m_families = std::make_shared<EngineFamilies>();
    m_families->make = makeFamilies;
    m_worker = new EngineWorker(this, m_families);
    m_loader = new EngineLoader(this);
    m_loadThread.setObjectName("fusescope-loads");
    m_loader->moveToThread(&m_loadThread);
    m_loadThread.start();
    m_thread.setObjectName("fusescope-engine");
    m_worker->moveToThread(&m_thread);
    m_thread.start();
    m_makeFamilies = std::move(makeFamilies);
}

Engine::~Engine() {
    QMetaObject::invokeMethod(
        m_worker, [w = m_worker] { w->shutdown(); }, Qt::BlockingQueuedConnection);
    m_thread.quit();
    m_thread.wait();
    m_loadThread.quit();
    m_loadThread.wait(); // a load in progress finishes first; its answer goes nowhere
    delete m_loader;
    delete m_worker;
}

void Engine::probe() {
    // Listing backends starts Python workers (seconds). It runs on a thread of its own, with its
    // own families, so that closing the window never waits for it; its answer is dropped when
    // the engine is gone by then.
    QPointer<Engine> self(this);
    QThread* thread = QThread::create([self, make = m_makeFamilies] {
        const auto families = make();
        std::vector<BackendInfo> all;
        for (const auto& family : families) {
            auto found = family->probe();
            all.insert(all.end(), found.begin(), found.end());
        }
        QMetaObject::invokeMethod(QCoreApplication::instance(), [self, all] {
            if (self)
                emit self->probed(all);
        });
    });
    connect(thread, &QThread::finished, thread, &QObject::deleteLater);
    thread->start();
}

void Engine::startRun(std::vector<std::string> backends, RunRequest base, bool searchAssignments) {
    QMetaObject::invokeMethod(m_worker,
                              [w = m_worker, backends = std::move(backends), base = std::move(base),
                               searchAssignments] { w->startRun(backends, base, searchAssignments); });
}

void Engine::startTune(RunRequest base, TuneSettings settings) {
    QMetaObject::invokeMethod(m_worker, [w = m_worker, base = std::move(base),
                                         settings = std::move(settings)] { w->startTune(base, settings); });
}

void Engine::cancelRun() {
    QMetaObject::invokeMethod(m_worker, [w = m_worker] { w->cancel(); });
}

void Engine::openReport(const std::string& path, quint64 ticket) {
    QMetaObject::invokeMethod(m_worker, [w = m_worker, path, ticket] { w->openReport(path, ticket); });
}

void Engine::saveReport(ReportSnapshot report, const std::string& path) {
    QMetaObject::invokeMethod(
        m_worker, [w = m_worker, report = std::move(report), path] { w->saveReport(report, path); });
}

void Engine::exportHtml(ReportSnapshot report, const std::string& path) {
    QMetaObject::invokeMethod(
        m_loader, [l = m_loader, report = std::move(report), path] { l->exportHtml(report, path); });
}

void Engine::reloadFamilies() {
    QMetaObject::invokeMethod(m_worker, [w = m_worker] { w->reloadFamilies(); });
}

quint64 Engine::loadDiff(DiffRequest request) {
    const quint64 ticket = ++m_nextLoadTicket;
    QMetaObject::invokeMethod(
        m_loader, [l = m_loader, request = std::move(request), ticket] { l->loadDiff(request, ticket); });
    return ticket;
}

quint64 Engine::loadSuite(std::string dir) {
    const quint64 ticket = ++m_nextLoadTicket;
    QMetaObject::invokeMethod(m_loader,
                              [l = m_loader, dir = std::move(dir), ticket] { l->loadSuite(dir, ticket); });
    return ticket;
}

std::string Engine::familyOf(const std::string& backend) const {
    const std::lock_guard lock(m_families->mutex);
    for (BackendFamily* family : m_families->pointers())
        if (family->handles(backend))
            return family->id();
    return {};
}

} // namespace fusescope
