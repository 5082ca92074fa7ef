#include "ReportModel.h"

#include <utility>

namespace fusescope {

namespace {

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

} // namespace

ReportModel::ReportModel(Engine& engine, QObject* parent)
    : QObject(parent)
    , m_engine(engine) {
    connect(&engine, &Engine::runStarted, this, [this](quint64 generation, const ReportSnapshot& report) {
        if (generation <= m_generation) {
            ++m_dropped;
            return;
        }
        m_generation = generation;
        m_running = true;
        m_path.clear();
        // The run's first report: one pending row per backend, no stages yet (a small copy).
        m_live = *report;
        replace(nullptr, &m_live, RunViews(m_live.backends.size()));
    });
    connect(&engine, &Engine::reportOpened, this,
            [this](quint64 generation, quint64 ticket, const ReportSnapshot& report, const RunViews& views,
                   const std::string& path, bool stagesFollow) {
                if (generation <= m_generation) {
                    ++m_dropped;
                    return;
                }
                m_generation = generation;
                m_running = false;
                m_path = q(path);
                replace(report, nullptr, views, stagesFollow);
                emit opened(ticket, q(path));
            });
    connect(&engine, &Engine::stagesLoaded, this,
            [this](quint64 generation, const ReportSnapshot& report, const RunViews& views) {
                if (!isCurrent(generation) || !m_stagesPending) // pending: an opened report
                    return;
                // Views keep pointers into the report they show: a whole report is a reset, as
                // at open (a view keeps its selection by name, as it does across reports).
                auto after = std::exchange(m_afterStages, {});
                replace(report, nullptr, views);
                emit stagesLoaded();
                for (auto& then : after)
                    then();
            });
    connect(&engine, &Engine::openFailed, this,
            [this](quint64 ticket, const std::string& path, const std::string& msg) {
                emit openFailed(ticket, q(path), q(msg));
            });
    connect(&engine, &Engine::backendAdded, this,
            [this](quint64 generation, int row, const std::string& label) {
                if (!isCurrent(generation) || row != static_cast<int>(m_live.backends.size()))
                    return;
                BackendRun run;
                run.name = label;
                m_live.backends.push_back(std::move(run));
                m_views.resize(m_live.backends.size());
                emit backendAdded(row);
            });
    connect(&engine, &Engine::backendStarted, this, [this](quint64 generation, int row) {
        if (!isCurrent(generation) || row < 0 || row >= static_cast<int>(m_live.backends.size()))
            return;
        m_live.backends[row].status = RunStatus::Running;
        BackendRun& live = m_liveRuns[row];
        live = BackendRun{};
        live.name = m_live.backends[row].name;
        live.status = RunStatus::Running;
        emit backendStarted(row);
    });
    connect(&engine, &Engine::backendProgress, this,
            [this](quint64 generation, int row, const std::string& phase, double fraction,
                   const std::string& message) {
                if (isCurrent(generation))
                    emit backendProgress(row, q(phase), fraction, q(message));
            });
    connect(&engine, &Engine::samplesArrived, this,
            [this](quint64 generation, int row, const std::vector<double>& eager,
                   const std::vector<double>& compiled) {
                if (!isCurrent(generation))
                    return;
                auto it = m_liveRuns.find(row);
                if (it == m_liveRuns.end())
                    return;
                it->second.eagerSamplesMs.insert(it->second.eagerSamplesMs.end(), eager.begin(), eager.end());
                it->second.compiledSamplesMs.insert(it->second.compiledSamplesMs.end(), compiled.begin(),
                                                    compiled.end());
                emit samplesArrived(row);
            });
    connect(&engine, &Engine::backendFinished, this,
            [this](quint64 generation, int row, const RunViewSnapshot& view, const ReportSnapshot& header,
                   const RunHandover& handover) {
                if (!isCurrent(generation) || row < 0 || row >= static_cast<int>(m_live.backends.size()))
                    return;
                // The engine made this copy for us: taken, not copied again, unless another
                // receiver shares it.
                if (handover && handover.use_count() == 1)
                    m_live.backends[row] = std::move(*handover);
                else
                    m_live.backends[row] = handover ? *handover : *view->run;
                m_views.resize(m_live.backends.size());
                m_views[static_cast<size_t>(row)] = view;
                m_live.header() = header->header();
                // Views drop their pointer to the live run on this signal, before it goes.
                emit backendFinished(row);
                m_liveRuns.erase(row);
            });
    connect(&engine, &Engine::tuneFailed, this, [this](const std::string& message) {
        m_running = false;
        emit tuneFailed(q(message));
    });
    connect(&engine, &Engine::runFinished, this, [this](quint64 generation) {
        if (!isCurrent(generation))
            return;
        m_running = false;
        emit runFinished();
    });
    connect(&engine, &Engine::htmlExported, this, [this](const std::string& path, const std::string& error) {
        emit htmlExported(q(path), q(error));
    });
    connect(&engine, &Engine::saved, this, [this](const std::string& path, const std::string& error) {
        if (!error.empty()) {
            emit saveFailed(q(path), q(error));
            return;
        }
        m_path = q(path);
        emit saved(q(path));
    });
}

ReportModel::~ReportModel() = default;

bool ReportModel::isCurrent(quint64 generation) {
    if (generation == m_generation)
        return true;
    ++m_dropped;
    return false;
}

RunViewSnapshot ReportModel::runView(int row) const {
    return row >= 0 && row < static_cast<int>(m_views.size()) ? m_views[static_cast<size_t>(row)] : nullptr;
}

const BackendRun* ReportModel::liveRun(int row) const {
    auto it = m_liveRuns.find(row);
    return it == m_liveRuns.end() ? nullptr : &it->second;
}

void ReportModel::replace(ReportSnapshot opened, const Report* live, RunViews views, bool stagesFollow) {
    // The report shown until now stays alive until every view has moved to the new one.
    ReportSnapshot previous = std::move(m_opened);
    m_stagesPending = stagesFollow;
    m_afterStages.clear(); // cannot hold anything: stagesLoaded comes before any other report
    m_opened = std::move(opened);
    m_report = live ? live : m_opened.get();
    if (live != &m_live)
        m_live = Report{};
    m_liveRuns.clear();
    m_views = std::move(views);
    m_views.resize(m_report->backends.size());
    emit reportReset();
}

void ReportModel::startRun(std::vector<std::string> backends, RunRequest base, bool searchAssignments) {
    m_running = true;
    m_engine.startRun(std::move(backends), std::move(base), searchAssignments);
}

void ReportModel::startTune(RunRequest base, TuneSettings settings) {
    m_running = true;
    m_engine.startTune(std::move(base), std::move(settings));
}

void ReportModel::cancelRun() {
    m_engine.cancelRun();
}

quint64 ReportModel::open(const QString& path) {
    const quint64 ticket = ++m_nextTicket;
    m_engine.openReport(path.toStdString(), ticket);
    return ticket;
}

ReportSnapshot ReportModel::snapshot() const {
    // An opened report is shared as it is; a run's report is copied once, here.
    return m_report == m_opened.get() && m_opened ? m_opened : std::make_shared<const Report>(*m_report);
}

void ReportModel::save(const QString& path) {
    if (m_stagesPending) { // the report shown has no stages yet: save the whole one
        m_afterStages.push_back([this, path] { save(path); });
        return;
    }
    m_engine.saveReport(snapshot(), path.toStdString());
}

void ReportModel::exportHtml(const QString& path) {
    if (m_stagesPending) {
        m_afterStages.push_back([this, path] { exportHtml(path); });
        return;
    }
    m_engine.exportHtml(snapshot(), path.toStdString());
}

} // namespace fusescope
