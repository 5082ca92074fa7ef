#include "BackendListPane.h"

#include "BackendEntryDialog.h"
#include "model/BackendEntry.h"
#include "model/ErrorCode.h"
#include "model/WorkloadText.h"

#include <QAction>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QVBoxLayout>
#include <algorithm>

namespace fusescope {

namespace {

const QStringList kDefaultBackends = {"eager", "aot_eager", "inductor"};
const QString kUnavailable = " (unavailable)";

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

QListWidgetItem* checkableItem(const QString& name) {
    auto* item = new QListWidgetItem(name);
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    return item;
}

} // namespace

BackendListPane::BackendListPane(const Engine& engine, QWidget* parent)
    : QWidget(parent)
    , m_engine(engine) {
    m_list = new QListWidget;
    m_list->setToolTip(tr("Backends to run, in order. Unavailable ones say why."));
    for (const auto& name : kDefaultBackends) {
        auto* item = checkableItem(name);
        item->setCheckState(Qt::Checked);
        m_list->addItem(item);
    }
    auto* add = new QLineEdit;
    add->setPlaceholderText(tr("Add a backend (e.g. inductor@max-autotune{fullgraph})"));
    add->setToolTip(tr("Any registered torch.compile backend, e.g. aot_eager_decomp_partition, as "
                       "NAME[@MODE][{OPTION,...}]; Enter adds it. Double-click or F2 on a row edits its "
                       "mode and options."));
    m_list->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_list, &QListWidget::itemDoubleClicked, this, &BackendListPane::editEntryOptions);
    auto* editOptions = new QAction(tr("Mode and Options..."), m_list);
    editOptions->setShortcut(Qt::Key_F2);
    editOptions->setShortcutContext(Qt::WidgetShortcut);
    connect(editOptions, &QAction::triggered, this, [this] { editEntryOptions(m_list->currentItem()); });
    m_list->addAction(editOptions);
    connect(m_list, &QWidget::customContextMenuRequested, this, [this, editOptions](const QPoint& at) {
        auto* item = m_list->itemAt(at);
        if (!item)
            return;
        m_list->setCurrentItem(item);
        QMenu menu;
        menu.addAction(editOptions);
        auto* remove = menu.addAction(tr("Remove Entry"));
        if (menu.exec(m_list->viewport()->mapToGlobal(at)) == remove)
            delete m_list->takeItem(m_list->row(item));
    });
    connect(add, &QLineEdit::returnPressed, this, [this, add] {
        const QString name = add->text().trimmed();
        if (name.isEmpty())
            return;
        if (auto entry = parseBackendEntry(name.toStdString()); !entry) {
            emit message(q(entry.error().message));
            return; // the text stays for the user to fix
        }
        QStringList names = checkedBackends();
        if (!names.contains(name))
            names << name;
        setBackends(names);
        add->clear();
    });
    for (auto signal : {&QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved})
        connect(m_list->model(), signal, this, &BackendListPane::entriesChanged);
    connect(m_list->model(), &QAbstractItemModel::dataChanged, this, &BackendListPane::entriesChanged);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_list);
    layout->addWidget(add);
}

BackendListPane::~BackendListPane() = default;

QStringList BackendListPane::checkedBackends() const {
    QStringList out;
    for (int i = 0; i < m_list->count(); ++i)
        if (m_list->item(i)->checkState() == Qt::Checked)
            out << m_list->item(i)->text();
    return out;
}

void BackendListPane::setBackends(const QStringList& names) {
    // Unavailable backends keep their greyed row; a name given twice is one row.
    int at = 0;
    for (const auto& name : names) {
        if (!m_list->findItems(name + kUnavailable, Qt::MatchExactly).isEmpty())
            continue;
        const auto found = m_list->findItems(name, Qt::MatchExactly);
        if (!found.isEmpty() && m_list->row(found.front()) < at)
            continue;
        QListWidgetItem* item =
            found.isEmpty() ? checkableItem(name) : m_list->takeItem(m_list->row(found.front()));
        m_list->insertItem(at++, item);
        item->setCheckState(Qt::Checked);
    }
    for (int i = at; i < m_list->count(); ++i)
        m_list->item(i)->setCheckState(Qt::Unchecked);
}

void BackendListPane::addEntry(const QString& label) {
    QStringList names = checkedBackends();
    if (!names.contains(label))
        names << label;
    setBackends(names);
    emit message(tr("%1 added to the backends: press Ctrl+R to run.").arg(label));
}

bool BackendListPane::isTorchCompileBackend(const std::string& backend) const {
    return m_engine.familyOf(backend) == "torch_compile";
}

Status BackendListPane::setEntryVariant(int row, const QString& label, bool addAsNew) {
    auto* item = m_list->item(row);
    if (!item || !(item->flags() & Qt::ItemIsUserCheckable))
        return Error{toString(ErrorCode::BadOption), "no backend entry to change there"};
    auto entry = parseBackendEntry(label.toStdString());
    if (!entry)
        return entry.error();
    const auto& e = entry.value();
    BackendEntry rest = e; // a precision is the workload's: every family takes one
    rest.options.erase("precision");
    if ((!rest.mode.empty() || rest.hasOptions()) && !isTorchCompileBackend(e.backend))
        return Error{toString(ErrorCode::BadOption),
                     e.backend +
                         " is not a torch.compile backend: it takes a precision only, no mode or options"};
    const QString canonical = q(formatBackendEntry(e));
    // Two rows of one label would be one row twice in the report.
    if (!m_list->findItems(canonical, Qt::MatchExactly).isEmpty() && (addAsNew || canonical != item->text()))
        return Error{toString(ErrorCode::BadOption), "the list already has " + canonical.toStdString()};
    if (addAsNew) {
        auto* added = new QListWidgetItem(canonical);
        added->setFlags(item->flags());
        added->setCheckState(Qt::Checked);
        m_list->insertItem(row + 1, added);
        m_list->setCurrentItem(added);
    } else {
        item->setText(canonical);
        item->setCheckState(Qt::Checked);
    }
    emit entriesChanged();
    emit message(tr("%1 is in the backends: press Ctrl+R to run.").arg(canonical));
    return std::nullopt;
}

void BackendListPane::editEntryOptions(QListWidgetItem* item) {
    if (!item)
        return;
    if (!(item->flags() & Qt::ItemIsUserCheckable)) {
        emit message(tr("%1: %2").arg(item->text(), item->toolTip()));
        return;
    }
    auto entry = parseBackendEntry(item->text().toStdString());
    if (!entry || isMixedLabel(item->text().toStdString())) {
        emit message(tr("%1 has no mode or options to edit").arg(item->text()));
        return;
    }
    // Other families take a precision only (aot_inductor{precision=int8_dynamic}: docs/quantization.md).
    BackendEntryDialog dialog(entry.value(), this, isTorchCompileBackend(entry.value().backend));
    if (dialog.exec() != QDialog::Accepted)
        return;
    if (auto problem = setEntryVariant(m_list->row(item), dialog.label(), dialog.addAsNew()))
        emit message(q(problem->message));
}

QStringList BackendListPane::assignableEntries() const {
    // Submodules can only get torch.compile NAME or NAME@MODE (docs/workloads.md, "Mixed backends").
    QStringList choices;
    for (int i = 0; i < m_list->count(); ++i) {
        const auto* item = m_list->item(i);
        const std::string name = item->text().toStdString();
        if (!(item->flags() & Qt::ItemIsUserCheckable) || isMixedLabel(name) || !isAssignableEntry(name))
            continue;
        if (isTorchCompileBackend(parseBackendEntry(name).value().backend))
            choices << item->text();
    }
    return choices;
}

void BackendListPane::showEntriesOf(const Report& report) {
    const auto& options = report.settings.options;
    const auto mode =
        options.is_object() ? options.value("mode", nlohmann::json(nullptr)) : nlohmann::json(nullptr);
    QStringList names;
    for (const auto& run : report.backends) {
        if (report.search && isMixedLabel(run.name))
            continue;
        auto entry = parseBackendEntry(run.name);
        if (mode.is_string() && !isMixedLabel(run.name) && entry && entry.value().mode.empty() &&
            isTorchCompileBackend(entry.value().backend)) {
            entry.value().mode = mode.get<std::string>();
            names << q(formatBackendEntry(entry.value()));
        } else {
            names << q(run.name);
        }
    }
    if (!names.isEmpty())
        setBackends(names);
}

void BackendListPane::applyProbe(const std::vector<BackendInfo>& backends) {
    for (const auto& info : backends) {
        const QString name = q(info.name);
        auto matches = m_list->findItems(name, Qt::MatchExactly);
        QListWidgetItem* item = matches.isEmpty() ? nullptr : matches.front();
        const bool hidden = std::any_of(info.tags.begin(), info.tags.end(), [](const std::string& t) {
            return t == "debug" || t == "experimental";
        });
        // Debug and experimental backends stay out of the list, as torch's own list_backends()
        // hides them; they can be added by name below it.
        if (!item && hidden)
            continue;
        if (!item) {
            item = checkableItem(name);
            item->setCheckState(Qt::Unchecked);
            m_list->addItem(item);
        }
        item->setToolTip(info.available ? q(info.family) : q("unavailable: " + info.reason));
        if (!info.available) {
            item->setForeground(Qt::gray);
            item->setCheckState(Qt::Unchecked);
            item->setFlags(item->flags() & ~Qt::ItemIsUserCheckable);
            item->setText(name + kUnavailable);
        }
    }
}

void BackendListPane::forgetAvailability() {
    for (int i = 0; i < m_list->count(); ++i) {
        QListWidgetItem* item = m_list->item(i);
        if (!item->text().endsWith(kUnavailable))
            continue;
        item->setText(item->text().chopped(kUnavailable.size()));
        item->setForeground(palette().text());
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    }
}

} // namespace fusescope
