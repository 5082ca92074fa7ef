#include "ModuleAssignPanel.h"

#include "engine/ReportModel.h"
#include "model/WorkloadText.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QStyledItemDelegate>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <map>

namespace fusescope {

namespace {

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

// Containers are never called, so torch.compile on them compiles nothing (the worker refuses them).
bool isContainer(const QString& className) {
    return className == "ModuleList" || className == "ModuleDict";
}

// The Backend column edits through a combo box of the panel's backend choices.
class BackendDelegate : public QStyledItemDelegate {
public:
    BackendDelegate(ModuleAssignPanel* panel)
        : QStyledItemDelegate(panel)
        , m_panel(panel) {}

    QWidget* createEditor(QWidget* parent, const QStyleOptionViewItem&,
                          const QModelIndex& index) const override {
        if (index.column() != ModuleAssignPanel::BackendColumn)
            return nullptr;
        auto* box = new QComboBox(parent);
        box->addItem(modelDefaultLabel(), QString());
        for (const auto& b : m_panel->backendChoices())
            box->addItem(b, b);
        return box;
    }

    void setEditorData(QWidget* editor, const QModelIndex& index) const override {
        auto* box = static_cast<QComboBox*>(editor);
        const int i = box->findData(index.data(ModuleAssignPanel::BackendRole).toString());
        box->setCurrentIndex(std::max(0, i));
    }

    void setModelData(QWidget* editor, QAbstractItemModel*, const QModelIndex& index) const override {
        auto* box = static_cast<QComboBox*>(editor);
        m_panel->assign(index.data(ModuleAssignPanel::ModuleRole).toString(), box->currentData().toString());
    }

private:
    ModuleAssignPanel* m_panel;
};

} // namespace

QString modelDefaultLabel() {
    return QObject::tr("(model default)");
}

ModuleAssignPanel::ModuleAssignPanel(QWidget* parent)
    : QWidget(parent)
    , m_tree(new QTreeWidget)
    , m_picker(new QComboBox)
    , m_pickerLabel(new QLabel)
    , m_clear(new QPushButton(tr("&Clear Picks")))
    , m_add(new QPushButton(tr("&Add Mixed Run")))
    , m_summary(new QLabel)
    , m_message(new QLabel) {
    m_tree->setHeaderLabels({tr("Module"), tr("Class"), tr("Parameters"), tr("Backend")});
    m_tree->headerItem()->setToolTip(BackendColumn,
                                     tr("The backend that compiles this submodule in a mixed run; "
                                        "(model default): not compiled on its own, it runs eager with "
                                        "the rest of the model"));
    m_tree->setAlternatingRowColors(true);
    m_tree->setUniformRowHeights(true);
    m_tree->setItemDelegate(new BackendDelegate(this));
    m_tree->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::SelectedClicked |
                            QAbstractItemView::EditKeyPressed);
    m_tree->header()->setStretchLastSection(true);
    m_picker->setToolTip(tr("Backend for the selected submodule"));
    m_pickerLabel->setBuddy(m_picker);
    m_add->setToolTip(tr("Append a mixed[...] entry with these picks to the backend list; the next run "
                         "(Ctrl+R) includes it"));
    m_add->setEnabled(false);
    m_clear->setEnabled(false);
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);

    auto* pick = new QHBoxLayout;
    pick->addWidget(m_pickerLabel);
    pick->addWidget(m_picker);
    pick->addStretch(1);
    pick->addWidget(m_clear);
    pick->addWidget(m_add);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_tree, 1);
    layout->addLayout(pick);
    layout->addWidget(m_summary);
    layout->addWidget(m_message);

    connect(m_tree, &QTreeWidget::currentItemChanged, this, &ModuleAssignPanel::syncPicker);
    connect(m_picker, &QComboBox::activated, this, [this] {
        if (auto* item = m_tree->currentItem())
            assign(item->data(NameColumn, ModuleRole).toString(), m_picker->currentData().toString());
    });
    connect(m_clear, &QPushButton::clicked, this, [this] {
        for (QTreeWidgetItemIterator it(m_tree); *it; ++it)
            setItemBackend(*it, {});
        updateSummary();
        syncPicker();
    });
    connect(m_add, &QPushButton::clicked, this, &ModuleAssignPanel::addMixedRun);
    setModules({});
}

void ModuleAssignPanel::setModules(const std::vector<ModuleInfo>& modules, const QString& modelName) {
    // Refreshed after every backend of a run: the same model keeps its tree, selection and picks.
    const auto same = [](const ModuleInfo& a, const ModuleInfo& b) {
        return a.name == b.name && a.className == b.className;
    };
    if (!modules.empty() &&
        std::equal(modules.begin(), modules.end(), m_modules.begin(), m_modules.end(), same))
        return;
    std::map<QString, QString> kept;
    for (QTreeWidgetItemIterator it(m_tree); *it; ++it)
        if (!(*it)->data(BackendColumn, BackendRole).toString().isEmpty())
            kept[(*it)->data(NameColumn, ModuleRole).toString()] =
                (*it)->data(BackendColumn, BackendRole).toString();
    m_modules = modules;
    m_tree->clear();
    std::map<QString, QTreeWidgetItem*> byName;
    const QLocale locale;
    for (const auto& m : modules) {
        const QString name = q(m.name);
        // The parent is the longest dotted prefix that is itself a module.
        QTreeWidgetItem* parent = nullptr;
        for (int dot = name.lastIndexOf('.'); dot > 0 && !parent; dot = name.lastIndexOf('.', dot - 1)) {
            const auto found = byName.find(name.left(dot));
            if (found != byName.end())
                parent = found->second;
        }
        const QString shown = parent ? name.mid(name.lastIndexOf('.') + 1) : name;
        auto* item = parent ? new QTreeWidgetItem(parent) : new QTreeWidgetItem(m_tree);
        item->setText(NameColumn, shown);
        item->setToolTip(NameColumn, name);
        item->setData(NameColumn, ModuleRole, name);
        item->setData(BackendColumn, ModuleRole, name);
        item->setText(ClassColumn, q(m.className));
        item->setText(ParametersColumn, locale.toString(static_cast<qlonglong>(m.parameters)));
        item->setTextAlignment(ParametersColumn, Qt::AlignRight | Qt::AlignVCenter);
        item->setFlags(item->flags() | Qt::ItemIsEditable);
        const auto pick = kept.find(name);
        setItemBackend(item, pick != kept.end() ? pick->second : QString());
        byName[name] = item;
    }
    // Top level open, deeper levels closed: a transformer has hundreds of submodules.
    for (int i = 0; i < m_tree->topLevelItemCount(); ++i)
        m_tree->topLevelItem(i)->setExpanded(false);
    m_tree->resizeColumnToContents(NameColumn);
    m_tree->resizeColumnToContents(ClassColumn);
    m_tree->resizeColumnToContents(ParametersColumn);
    m_message->clear();
    if (modules.empty())
        m_summary->setText(tr("No submodules known yet: run a comparison (the model's submodules arrive with "
                              "the first backend) or open a report."));
    else if (m_tree->topLevelItemCount() > 0)
        m_tree->setCurrentItem(m_tree->topLevelItem(0));
    if (!modelName.isEmpty() && !modules.empty())
        m_tree->headerItem()->setToolTip(NameColumn, tr("Submodules of %1").arg(modelName));
    updateSummary();
    syncPicker();
}

void ModuleAssignPanel::setBackendChoices(const QStringList& backends) {
    m_choices = backends;
    syncPicker();
}

QTreeWidgetItem* ModuleAssignPanel::findModule(const QString& name) const {
    for (QTreeWidgetItemIterator it(m_tree); *it; ++it)
        if ((*it)->data(NameColumn, ModuleRole).toString() == name)
            return *it;
    return nullptr;
}

void ModuleAssignPanel::setItemBackend(QTreeWidgetItem* item, const QString& backend) {
    item->setData(BackendColumn, BackendRole, backend);
    item->setText(BackendColumn, backend.isEmpty() ? modelDefaultLabel() : backend);
    item->setForeground(BackendColumn, backend.isEmpty() ? m_tree->palette().brush(QPalette::PlaceholderText)
                                                         : m_tree->palette().brush(QPalette::Text));
    QFont font = item->font(BackendColumn);
    font.setBold(!backend.isEmpty());
    item->setFont(BackendColumn, font);
}

bool ModuleAssignPanel::assign(const QString& module, const QString& backend) {
    QTreeWidgetItem* item = findModule(module);
    if (!item)
        return false;
    setItemBackend(item, backend);
    // A pick inside a closed branch must stay visible.
    for (auto* p = item->parent(); p; p = p->parent())
        p->setExpanded(true);
    m_message->clear();
    updateSummary();
    syncPicker();
    return true;
}

Result<std::vector<std::pair<std::string, std::string>>> ModuleAssignPanel::assignment() const {
    std::vector<std::pair<std::string, std::string>> picks;
    // Definition order, as the model lists its modules.
    for (const auto& m : m_modules)
        if (auto* item = findModule(q(m.name))) {
            const QString backend = item->data(BackendColumn, BackendRole).toString();
            if (backend.isEmpty())
                continue;
            if (isContainer(q(m.className)))
                return Error{"usage", m.name + " is a " + m.className +
                                          ", which is never called itself: pick backends for its elements (" +
                                          m.name + ".0, ...) instead"};
            picks.emplace_back(m.name, backend.toStdString());
        }
    if (picks.empty())
        return Error{"usage", "no submodule has a backend: pick one in the Backend column first"};
    for (const auto& [outer, ob] : picks)
        for (const auto& [inner, ib] : picks)
            if (inner.size() > outer.size() && inner.compare(0, outer.size() + 1, outer + ".") == 0)
                return Error{"usage", outer + " (" + ob + ") contains " + inner + " (" + ib +
                                          "): a module and one of its submodules cannot both be assigned; "
                                          "set one of them back to " +
                                          modelDefaultLabel().toStdString()};
    return picks;
}

QString ModuleAssignPanel::addMixedRun() {
    const auto picks = assignment();
    if (!picks) {
        m_message->setStyleSheet("color: #c62828;");
        m_message->setText(q(picks.error().message));
        return {};
    }
    const QString label = q(mixedLabel(picks.value()));
    m_message->setStyleSheet({});
    m_message->setText(tr("Added %1 to the backend list: the next run (Ctrl+R) includes it.").arg(label));
    emit mixedRunRequested(label);
    return label;
}

QString ModuleAssignPanel::messageText() const {
    return m_message->text();
}

void ModuleAssignPanel::syncPicker() {
    auto* item = m_tree->currentItem();
    const QString current = item ? item->data(BackendColumn, BackendRole).toString() : QString();
    QSignalBlocker block(m_picker);
    m_picker->clear();
    m_picker->addItem(modelDefaultLabel(), QString());
    for (const auto& b : m_choices)
        m_picker->addItem(b, b);
    if (!current.isEmpty() && m_picker->findData(current) < 0)
        m_picker->addItem(current, current);
    m_picker->setCurrentIndex(std::max(0, m_picker->findData(current)));
    m_picker->setEnabled(item != nullptr);
    m_pickerLabel->setText(item ? tr("&Backend for %1:").arg(item->data(NameColumn, ModuleRole).toString())
                                : tr("&Backend:"));
}

void ModuleAssignPanel::updateSummary() {
    if (m_modules.empty()) {
        m_add->setEnabled(false);
        m_clear->setEnabled(false);
        return;
    }
    QStringList picks;
    for (const auto& m : m_modules)
        if (auto* item = findModule(q(m.name));
            item && !item->data(BackendColumn, BackendRole).toString().isEmpty())
            picks << q(m.name) + "=" + item->data(BackendColumn, BackendRole).toString();
    m_add->setEnabled(!picks.isEmpty());
    m_clear->setEnabled(!picks.isEmpty());
    const QString count =
        m_modules.size() == 1 ? tr("1 submodule") : tr("%1 submodules").arg(m_modules.size());
    m_summary->setText(picks.isEmpty()
                           ? tr("%1. Pick a backend for some of them: select a row, then the Backend box "
                                "(or F2 in the Backend column).")
                                 .arg(count)
                           : tr("Picks: %1. Everything else runs eager.").arg(picks.join(", ")));
}

void ModuleAssignPanel::subscribe(const ReportModel* model) {
    // The model's submodules arrive with the first backend that loaded it.
    auto show = [this, model] {
        const Report& report = model->report();
        const std::vector<ModuleInfo>* modules = &report.model.modules;
        for (const auto& run : report.backends)
            if (modules->empty() && run.model && !run.model->modules.empty())
                modules = &run.model->modules;
        const std::string& name = report.model.name.empty() ? report.modelSpec : report.model.name;
        setModules(*modules, QString::fromStdString(name));
    };
    show();
    connect(model, &ReportModel::reportReset, this, show);
    connect(model, &ReportModel::backendFinished, this, show);
}

} // namespace fusescope
