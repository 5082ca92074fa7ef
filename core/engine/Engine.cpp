#include "Engine.h"

#include "capture/CompareSession.h"
#include "report/ReportFile.h"

#include <QCoreApplication>
#include <QPointer>

namespace fusescope {

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
    EngineWorker(Engine* engine, Engine::FamilyFactory makeFamilies)
        : m_engine(engine)
        , m_makeFamilies(std::move(makeFamilies)) {}

    void startRun(const std::vector<std::string>& backends, const RunRequest& base, bool search) {
        if (m_families.empty())
            m_families = m_makeFamilies();
        endSession();
        const quint64 generation = ++m_generation;
        std::vector<BackendFamily*> families;
        for (const auto& family : m_families)
            families.push_back(family.get());
        m_session = std::make_unique<CompareSession>(families);
        m_session->setSearchAssignments(search);
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
            for (size_t i = 0; i < session->report().backends.size(); ++i)
                if (i >= m_sent.size() || !m_sent[i])
                    sendRow(*session, generation, static_cast<int>(i));
            emit m_engine->runFinished(generation);
        });
        session->start(backends, base);
        m_sent.assign(session->report().backends.size(), false);
        emit m_engine->runStarted(generation, std::make_shared<const Report>(session->report()));
    }

    void cancel() {
        if (m_session)
            m_session->cancel();
    }

    void openReport(const std::string& path, quint64 ticket) {
        auto loaded = openReportOrImport(path); // a .fscope, or a log an importer takes (docs/import.md)
        if (!loaded) {
            emit m_engine->openFailed(ticket, path, loaded.error().message);
            return;
        }
        endSession();
        const quint64 generation = ++m_generation;
        emit m_engine->reportOpened(generation, ticket,
                                    std::make_shared<const Report>(std::move(loaded).value()), path);
    }

    void saveReport(const ReportSnapshot& report, const std::string& path) {
        const auto error = writeReport(*report, path);
        emit m_engine->saved(path, error ? error->message : std::string());
    }

    void reloadFamilies() {
        endSession();
        m_families.clear();
    }

    // Ends the session and its jobs on the engine thread, before the thread stops.
    void shutdown() {
        endSession();
        m_families.clear();
    }

private:
    void sendRow(const CompareSession& session, quint64 generation, int row) {
        const auto& report = session.report();
        if (row < 0 || row >= static_cast<int>(report.backends.size()))
            return;
        if (m_sent.size() < report.backends.size())
            m_sent.resize(report.backends.size(), false);
        m_sent[row] = true;
        emit m_engine->backendFinished(
            generation, row, std::make_shared<const BackendRun>(report.backends[row]), headerOf(report));
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
    Engine::FamilyFactory m_makeFamilies;
    std::vector<std::unique_ptr<BackendFamily>> m_families;
    std::unique_ptr<CompareSession> m_session;
    quint64 m_generation = 0;
    std::vector<bool> m_sent; // rows whose final state was emitted
    size_t m_eagerSent = 0, m_compiledSent = 0;
};

Engine::Engine(FamilyFactory makeFamilies, QObject* parent)
    : QObject(parent) {
    qRegisterMetaType<fusescope::RunSnapshot>();
    qRegisterMetaType<fusescope::ReportSnapshot>();
    qRegisterMetaType<std::vector<fusescope::BackendInfo>>();
    qRegisterMetaType<std::string>();
    qRegisterMetaType<std::vector<double>>();
    m_worker = new EngineWorker(this, makeFamilies);
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

void Engine::reloadFamilies() {
    QMetaObject::invokeMethod(m_worker, [w = m_worker] { w->reloadFamilies(); });
}

} // namespace fusescope
