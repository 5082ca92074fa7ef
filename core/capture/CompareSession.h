#pragma once

#include "BackendFamily.h"
#include "analysis/AssignmentSearch.h"
#include "analysis/Tuner.h"
#include "model/BackendEntry.h"
#include "model/Report.h"

#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QTimer>
#include <memory>
#include <vector>

namespace fusescope {

// Runs a comparison: one backend after another (never two at once, so they don't disturb each
// other's timings), each in its own job. Results land in report() the moment a backend finishes;
// a backend that fails, hangs or crashes is recorded and the next one starts.
class CompareSession : public QObject {
    Q_OBJECT
public:
    CompareSession(std::vector<BackendFamily*> families, QObject* parent = nullptr);
    ~CompareSession() override;

    // `backends` in the order to run; `base` carries model, device and settings for every run.
    void start(const std::vector<std::string>& backends, const RunRequest& base);
    // After the listed backends, search per-submodule assignments over the model's top-level
    // submodules with the torch.compile backends of the list (AssignmentSearch). Set before start().
    void setSearchAssignments(bool enabled) { m_searchWanted = enabled; }
    // After the listed backends, let `tuner` say what to run (fusescope-cli tune, docs/tuning.md):
    // new rows, and more rounds of finished rows, each round merged into its row (appendRound).
    // The session ends within `budgetSeconds` of start() less `spentSeconds` already spent (the
    // run in progress when it ends is stopped and kept as such); report().tuning holds the
    // outcome after every row. Set before start().
    void setTuner(std::unique_ptr<Tuner> tuner, double budgetSeconds, double spentSeconds = 0);
    void cancel();
    bool running() const { return m_running; }

    const Report& report() const { return m_report; }
    // Seconds since start(), plus what setTuner said was spent before.
    double elapsedSeconds() const;
    // The round of the run in progress: 1 for a row's first run, 2.. for the tuner's revisits.
    int currentRound() const { return m_currentRound; }
    Report& report() { return m_report; }
    // Index of the backend now running, or -1.
    int currentIndex() const { return m_current; }
    // The run in progress, with its samples and stages so far (for live views), or null.
    const BackendRun* liveRun() const;

signals:
    // A row appended while running (a search candidate); its index is report().backends.size() - 1.
    void backendAdded(int index);
    void backendStarted(int index);
    void backendEvent(int index, const fusescope::StreamEvent& event);
    void backendFinished(int index);
    void finished();

private:
    void startNext();
    void onJobFinished();
    void skipRemainingAfterModelError(int failedIndex);
    BackendFamily* familyFor(const std::string& backend) const;
    // Appends the search's next candidates; false when there is nothing (more) to search.
    bool extendWithSearch();
    void appendRow(const std::string& label);
    // The tuner's next step: a new row (true, *index its row) or a revisit (*rerun set too).
    bool stepTuner(int* index, bool* rerun);
    void onBudgetEnded();
    void recordTuning();

    std::vector<BackendFamily*> m_families;
    std::vector<std::string> m_backends;
    RunRequest m_base;
    Report m_report;
    std::unique_ptr<BackendJob> m_job;
    int m_current = -1;
    bool m_running = false;
    bool m_cancelled = false;
    bool m_searchWanted = false;
    std::unique_ptr<AssignmentSearch> m_search;
    int m_nextRow = 0;      // the first row not run yet
    int m_currentRound = 0; // of the run in progress
    std::unique_ptr<Tuner> m_tuner;
    double m_budgetSeconds = 0;
    double m_spentSeconds = 0;
    bool m_budgetEnded = false;
    bool m_modelBroken = false; // a model error: every further run would fail the same way
    QElapsedTimer m_clock;
    QTimer m_budgetTimer;
};

// The request for one entry of a backend list: `NAME[@MODE][{OPTION,...}]` (CompileOptions.h) or a
// mixed label, so one comparison can hold several modes and option sets of the same backend. An
// entry that does not parse is an error naming it.
Result<RunRequest> requestFor(const std::string& label, const RunRequest& base);

// Why an entry's @MODE or {options} cannot apply: only torch.compile backends take them (the run-wide
// options are defaults, which other families ignore). nullopt when they apply or there are none.
std::optional<std::string> entryOptionsRefused(const std::string& label, const BackendFamily& family);

// Errors of the model itself (not of a backend): docs/protocol.md's model_* codes.
bool isModelError(const std::string& code);

} // namespace fusescope
