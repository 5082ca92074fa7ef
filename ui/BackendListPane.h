#pragma once

#include "capture/BackendFamily.h"
#include "engine/Engine.h"
#include "model/Report.h"
#include "model/Result.h"

#include <QStringList>
#include <QWidget>
#include <memory>
#include <vector>

class QListWidget;
class QListWidgetItem;

namespace fusescope {

// The backend list of the Backends dock: the entries to run, in order, checked or not; a line to
// add one (NAME[@MODE][{OPTION,...}]); F2 / double-click edits an entry's mode and options; the
// probe's answer greys out what cannot run here, with the reason as tooltip.
class BackendListPane : public QWidget {
    Q_OBJECT
public:
    // `engine` classifies the names (Engine::familyOf): the pane keeps no families of its own.
    explicit BackendListPane(const Engine& engine, QWidget* parent = nullptr);
    ~BackendListPane() override;

    QListWidget* list() const { return m_list; }
    QStringList checkedBackends() const;
    // The named entries go to the top, checked, in the given order; the rest stay, unchecked.
    void setBackends(const QStringList& names);
    // Adds `label` checked after the checked entries (a mixed run from the Modules tab).
    void addEntry(const QString& label);
    // A row with its mode/options changed to `label`, or with addAsNew the variant added checked
    // below it. The problem when the label does not parse or its backend takes no options.
    Status setEntryVariant(int row, const QString& label, bool addAsNew);
    // The rows a report ran (search candidates come back from the search box, not as rows); a
    // run-wide --compile-mode goes onto the torch.compile rows without a mode, as NAME@MODE.
    void showEntriesOf(const Report& report);
    // Merges the engine's probe: new backends appended unchecked, unavailable ones greyed.
    void applyProbe(const std::vector<BackendInfo>& backends);
    // Unavailable rows become plain rows again (another Python may run them): probe afresh.
    void forgetAvailability();
    // Which family handles `backend` decides whether it takes modes and options.
    bool isTorchCompileBackend(const std::string& backend) const;
    // The rows a submodule may get in a mixed run: torch.compile NAME or NAME@MODE entries.
    QStringList assignableEntries() const;

signals:
    // What the user should read in the status line (a problem, or what changed).
    void message(const QString& text);
    void entriesChanged();

private:
    void editEntryOptions(QListWidgetItem* item);

    const Engine& m_engine;
    QListWidget* m_list = nullptr;
};

} // namespace fusescope
