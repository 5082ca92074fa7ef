#pragma once

#include "model/BackendRun.h"
#include "model/Result.h"

#include <QStringList>
#include <QWidget>
#include <string>
#include <utility>
#include <vector>

class QComboBox;
class QLabel;
class QPushButton;
class QTreeWidget;
class QTreeWidgetItem;

namespace fusescope {

class ReportModel;

// The "Modules" tab: the model's submodules as a tree (name, class, parameters) where a backend
// can be picked per submodule; "Add mixed run" turns the picks into a `mixed[a=x,b=y]` entry of
// the run list, so the next run compiles each submodule with its own backend.
class ModuleAssignPanel : public QWidget {
    Q_OBJECT
public:
    explicit ModuleAssignPanel(QWidget* parent = nullptr);

    // Follows `model` from now on (ReportModel.h): re-reads the report on reportReset and the
    // backend each signal names.
    void subscribe(const ReportModel* model);
    // Rebuilds the tree; picks for modules that still exist are kept.
    void setModules(const std::vector<ModuleInfo>& modules, const QString& modelName = {});
    // torch.compile backends a submodule may get (labels such as inductor@max-autotune allowed).
    void setBackendChoices(const QStringList& backends);
    QStringList backendChoices() const { return m_choices; }

    // Picks `backend` for `module` (empty: back to the model default). False for an unknown module.
    bool assign(const QString& module, const QString& backend);
    // The picks in definition order, or why they cannot run (nested picks, a container module).
    Result<std::vector<std::pair<std::string, std::string>>> assignment() const;
    // Validates and emits mixedRunRequested with the label; returns the label, or empty after
    // showing the problem.
    QString addMixedRun();
    QString messageText() const;
    QTreeWidget* tree() const { return m_tree; }

    enum Column { NameColumn, ClassColumn, ParametersColumn, BackendColumn, ColumnCount };
    static constexpr int BackendRole = Qt::UserRole + 1;
    static constexpr int ModuleRole = Qt::UserRole + 2;

signals:
    void mixedRunRequested(const QString& label);

private:
    void setItemBackend(QTreeWidgetItem* item, const QString& backend);
    void syncPicker();
    void updateSummary();
    QTreeWidgetItem* findModule(const QString& name) const;

    QTreeWidget* m_tree;
    QComboBox* m_picker;
    QLabel* m_pickerLabel;
    QPushButton* m_clear;
    QPushButton* m_add;
    QLabel* m_summary;
    QLabel* m_message;
    QStringList m_choices;
    std::vector<ModuleInfo> m_modules;
};

// The label shown for "no backend of its own": the module runs as the rest of the model does.
QString modelDefaultLabel();

} // namespace fusescope
