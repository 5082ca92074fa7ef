#include "DiffWindow.h"

#include "GraphItems.h"
#include "GraphScene.h"
#include "GraphView.h"
#include "analysis/Format.h"
#include "report/ReportFile.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QGraphicsRectItem>
#include <QGraphicsSimpleTextItem>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPointer>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

namespace fusescope {

namespace {

QColor markColor(const QString& mark) {
    if (mark == "added")
        return QColor("#2e7d32");
    if (mark == "removed")
        return QColor("#c62828");
    if (mark == "changed")
        return QColor("#ef8f00");
    return QColor("#9e9e9e");
}

QString groupId(const DiffKernel& k) {
    return "kernel:" + QString::fromStdString(k.id);
}

QString names(const std::vector<DiffKernel>& ks) {
    QStringList out;
    for (const auto& k : ks)
        out << QString::fromStdString(k.name);
    return out.join(" + ");
}

QString ms(std::optional<double> v) {
    return QString::fromStdString(format::milliseconds(v));
}

// The summed time of kernels, when every one of them has one.
std::optional<double> total(const std::vector<DiffKernel>& ks) {
    double sum = 0;
    for (const auto& k : ks) {
        if (!k.timeMs)
            return std::nullopt;
        sum += *k.timeMs;
    }
    return ks.empty() ? std::nullopt : std::optional<double>(sum);
}

std::optional<double> delta(std::optional<double> a, std::optional<double> b) {
    return a && b ? std::optional<double>(*b - *a) : std::nullopt;
}

QWidget* titled(QLabel* title, GraphView* view) {
    auto* panel = new QWidget;
    auto* layout = new QVBoxLayout(panel);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(title);
    layout->addWidget(view, 1);
    return panel;
}

} // namespace

DiffWindow::DiffWindow(QWidget* parent)
    : QWidget(parent)
    , m_backends(new QComboBox)
    , m_stages(new QComboBox)
    , m_summary(new QLabel)
    , m_titleA(new QLabel)
    , m_titleB(new QLabel)
    , m_viewA(new GraphView)
    , m_viewB(new GraphView)
    , m_table(new QTableWidget(0, 7)) {
    setWindowTitle(tr("FuseScope — Diff"));
    // Report strings (backend names, diff sentences, file names) are shown as text, never markup.
    for (QLabel* label : {m_summary, m_titleA, m_titleB})
        label->setTextFormat(Qt::PlainText);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_table->setHorizontalHeaderLabels({tr("Change"), tr("Kernel in A"), tr("Kernel in B"), tr("Nodes"),
                                        tr("A ms"), tr("B ms"), tr("Δ ms")});
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);

    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Backend")));
    bar->addWidget(m_backends, 1);
    bar->addWidget(new QLabel(tr("Graph")));
    bar->addWidget(m_stages);
    bar->addStretch();
    auto* graphs = new QSplitter(Qt::Horizontal);
    graphs->addWidget(titled(m_titleA, m_viewA));
    graphs->addWidget(titled(m_titleB, m_viewB));
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(graphs);
    split->addWidget(m_table);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(m_summary);
    layout->addWidget(split, 1);

    connect(m_backends, &QComboBox::currentIndexChanged, this, &DiffWindow::showBackend);
    connect(m_stages, &QComboBox::currentIndexChanged, this, &DiffWindow::showStage);
    connect(m_viewA, &GraphView::groupSelected, this, &DiffWindow::selectKernelA);
    connect(m_viewB, &GraphView::groupSelected, this, &DiffWindow::selectKernelB);
    connect(m_viewA->graphScene(), &GraphScene::layoutFinished, this, [this] { paintMarks(false); });
    connect(m_viewB->graphScene(), &GraphScene::layoutFinished, this, [this] { paintMarks(true); });
    connect(m_table, &QTableWidget::cellClicked, this, [this](int row, int) { selectRow(row); });
}

bool DiffWindow::setReports(std::shared_ptr<const Report> a, std::shared_ptr<const Report> b,
                            const QString& labelA, const QString& labelB, const QString& backend,
                            const QString& backendB) {
    m_loadTicket = 0; // supersedes a load in flight
    disconnect(m_loadConnection);
    setLoading(false);
    auto diff = diffReports(*a, *b, backend.toStdString(), backendB.toStdString(), labelA.toStdString(),
                            labelB.toStdString());
    return applyDiff(std::move(a), std::move(b), labelA, labelB, std::move(diff));
}

void DiffWindow::setLoading(bool loading) {
    m_loading = loading;
    m_backends->setEnabled(!loading);
    m_stages->setEnabled(!loading);
    m_table->setEnabled(!loading);
    if (loading)
        setCursor(Qt::BusyCursor);
    else
        unsetCursor();
}

void DiffWindow::loadReports(Engine& engine, const QString& pathA, const QString& pathB,
                             const QString& backend, const QString& backendB) {
    const QString labelA = QFileInfo(pathA).fileName(), labelB = QFileInfo(pathB).fileName();
    setLoading(true);
    m_titleA->setText(tr("A: %1 (loading...)").arg(labelA));
    m_titleB->setText(tr("B: %1 (loading...)").arg(labelB));
    m_summary->setText(tr("Loading %1 and %2...").arg(labelA, labelB));
    // Answers come back on this window's thread; one for an older load (or another window) is
    // dropped by its ticket, and closing the window disconnects it.
    disconnect(m_loadConnection);
    m_loadConnection = connect(&engine, &Engine::diffLoaded, this,
                               [this, labelA, labelB](quint64 ticket, const DiffLoadSnapshot& load) {
                                   if (ticket != m_loadTicket)
                                       return;
                                   disconnect(m_loadConnection);
                                   setLoading(false);
                                   if (!load->diff) {
                                       QStringList errors;
                                       for (const auto& e : load->errors)
                                           errors << QString::fromStdString(e);
                                       const QString error = errors.join("\n");
                                       m_titleA->setText(tr("A: %1").arg(labelA));
                                       m_titleB->setText(tr("B: %1").arg(labelB));
                                       m_summary->setText(error);
                                       emit loaded(false, error);
                                       return;
                                   }
                                   const bool ok = applyDiff(load->a, load->b, labelA, labelB, *load->diff);
                                   emit loaded(ok, ok ? QString() : summaryText());
                               });
    DiffRequest request;
    request.pathA = QFile::encodeName(pathA).toStdString();
    request.pathB = QFile::encodeName(pathB).toStdString();
    request.backendA = backend.toStdString();
    request.backendB = backendB.toStdString();
    request.labelA = labelA.toStdString();
    request.labelB = labelB.toStdString();
    m_loadTicket = engine.loadDiff(std::move(request));
}

bool DiffWindow::applyDiff(std::shared_ptr<const Report> a, std::shared_ptr<const Report> b,
                           const QString& labelA, const QString& labelB, Result<ReportDiff> diff) {
    m_a = std::move(a);
    m_b = std::move(b);
    m_titleA->setText(tr("A: %1").arg(labelA));
    m_titleB->setText(tr("B: %1").arg(labelB));
    const QSignalBlocker block(m_backends);
    m_backends->clear();
    if (!diff) {
        m_diff = {};
        m_summary->setText(QString::fromStdString(diff.error().message));
        return false;
    }
    m_diff = std::move(diff).value();
    for (const auto& d : m_diff.backends)
        m_backends->addItem(QString::fromStdString(d.nameA == d.nameB ? d.nameA : d.nameA + " → " + d.nameB));
    m_backends->setCurrentIndex(0);
    showBackend(0);
    return true;
}

void DiffWindow::showBackend(int index) {
    if (index < 0 || index >= int(m_diff.backends.size()))
        return;
    const BackendDiff& d = m_diff.backends[size_t(index)];
    const auto& k = d.kernels;
    QString text = QString::fromStdString(d.sentence);
    text += "\n" +
            tr("Compile B/A %1 · peak memory B/A %2 · kernels: %3 matched, %4 changed, %5 removed, %6 added "
               "· graph breaks: %7 added, %8 removed")
                .arg(QString::fromStdString(format::ratio(d.compileRatio)),
                     QString::fromStdString(format::ratio(d.memoryRatio)))
                .arg(k.matched.size())
                .arg(k.changed.size())
                .arg(k.removed.size())
                .arg(k.added.size())
                .arg(d.breaks.added.size())
                .arg(d.breaks.removed.size());
    for (const auto& note : d.notes)
        text += "\n" + tr("Note: %1").arg(QString::fromStdString(note));
    m_summary->setText(text);

    m_stageKeys.clear();
    auto addKey = [this](const std::string& key) {
        const QString q = QString::fromStdString(key);
        if (!m_stageKeys.contains(q))
            m_stageKeys << q;
    };
    for (const auto& m : k.matched)
        addKey(m.a.stage);
    for (const auto& c : k.changed)
        for (const auto& x : c.a)
            addKey(x.stage);
    for (const auto& x : k.removed)
        addKey(x.stage);
    for (const auto& x : k.added)
        addKey(x.stage);
    for (const auto& c : k.changed)
        for (const auto& x : c.b)
            addKey(x.stage);
    const QSignalBlocker block(m_stages);
    m_stages->clear();
    m_stages->addItems(m_stageKeys);
    m_stages->setEnabled(m_stageKeys.size() > 1);
    showStage(m_stageKeys.isEmpty() ? -1 : 0);
}

void DiffWindow::showStage(int index) {
    m_stage = index >= 0 && index < m_stageKeys.size() ? m_stageKeys[index] : QString();
    const int b = m_backends->currentIndex();
    if (b < 0 || b >= int(m_diff.backends.size()))
        return;
    const BackendDiff& d = m_diff.backends[size_t(b)];
    auto stageOf = [this](const std::shared_ptr<const Report>& report, const std::string& backend,
                          const char* side) -> std::shared_ptr<const StageGraph> {
        const BackendRun* run = report->findBackend(backend);
        const StageGraph* s = run && !m_stage.isEmpty() ? run->findStage(m_stage.toStdString()) : nullptr;
        if (s)
            return std::shared_ptr<const StageGraph>(report, s); // aliasing: the report stays alive
        auto empty = std::make_shared<StageGraph>();
        empty->status = StageStatus::Unsupported;
        empty->reason = std::string(side) + " (" + backend + ") has no " +
                        (m_stage.isEmpty() ? std::string("kernel stage") : m_stage.toStdString()) + ".";
        return empty;
    };
    m_marksA.clear();
    m_marksB.clear();
    m_partnerOfA.clear();
    m_partnerOfB.clear();
    m_rowOfA.clear();
    m_rowOfB.clear();
    m_rows.clear();
    fillTable();
    m_viewA->setStage(stageOf(m_a, d.nameA, "A"));
    m_viewB->setStage(stageOf(m_b, d.nameB, "B"));
}

void DiffWindow::fillTable() {
    const BackendDiff& d = m_diff.backends[size_t(m_backends->currentIndex())];
    const std::string stage = m_stage.toStdString();
    m_table->setRowCount(0);
    auto addRow = [this](const QString& change, const QString& a, const QString& b, const QString& nodes,
                         std::optional<double> msA, std::optional<double> msB, std::optional<double> delta,
                         const QStringList& idsA, const QStringList& idsB) {
        const int row = m_table->rowCount();
        m_table->insertRow(row);
        const QStringList cells = {
            change, a, b, nodes, ms(msA), ms(msB), delta ? QString::asprintf("%+.4f", *delta) : "-"};
        for (int c = 0; c < cells.size(); ++c) {
            auto* item = new QTableWidgetItem(cells[c]);
            if (c == 0)
                item->setForeground(markColor(change.section(' ', 0, 0)));
            m_table->setItem(row, c, item);
        }
        for (const auto& id : idsA) {
            m_partnerOfA.insert(id, idsB);
            m_rowOfA.insert(id, row);
            m_marksA.insert(id, change.section(' ', 0, 0));
        }
        for (const auto& id : idsB) {
            m_partnerOfB.insert(id, idsA);
            m_rowOfB.insert(id, row);
            m_marksB.insert(id, change.section(' ', 0, 0));
        }
        m_rows.append({idsA, idsB});
    };
    // Changes first: they are what the user opened the diff for.
    for (const auto& c : d.kernels.changed) {
        if (c.a.empty() || c.a.front().stage != stage)
            continue;
        QStringList idsA, idsB;
        for (const auto& k : c.a)
            idsA << groupId(k);
        for (const auto& k : c.b)
            idsB << groupId(k);
        addRow("changed (" + QString::fromStdString(c.how) + ")", names(c.a), names(c.b),
               tr("%1 shared, %2 only A, %3 only B")
                   .arg(c.shared.size())
                   .arg(c.onlyA.size())
                   .arg(c.onlyB.size()),
               total(c.a), total(c.b), delta(total(c.a), total(c.b)), idsA, idsB);
    }
    for (const auto& k : d.kernels.removed)
        if (k.stage == stage)
            addRow("removed", QString::fromStdString(k.name), "-", QString::number(k.nodes.size()), k.timeMs,
                   std::nullopt, std::nullopt, {groupId(k)}, {});
    for (const auto& k : d.kernels.added)
        if (k.stage == stage)
            addRow("added", "-", QString::fromStdString(k.name), QString::number(k.nodes.size()),
                   std::nullopt, k.timeMs, std::nullopt, {}, {groupId(k)});
    for (const auto& m : d.kernels.matched)
        if (m.a.stage == stage)
            addRow("matched", QString::fromStdString(m.a.name), QString::fromStdString(m.b.name),
                   QString::number(m.a.nodes.size()), m.a.timeMs, m.b.timeMs, m.timeDeltaMs, {groupId(m.a)},
                   {groupId(m.b)});
    m_table->resizeColumnsToContents();
}

void DiffWindow::paintMarks(bool sideB) {
    GraphScene* scene = (sideB ? m_viewB : m_viewA)->graphScene();
    const auto& marks = sideB ? m_marksB : m_marksA;
    // The scene drops every item on each layout, these marks included: they are drawn afresh.
    for (auto it = marks.begin(); it != marks.end(); ++it) {
        GroupItem* item = scene->groupItem(it.key());
        if (!item)
            continue; // inside a closed module group
        const QColor color = markColor(it.value());
        const QRectF box = item->sceneBoundingRect().adjusted(-4, -4, 4, 4);
        auto* frame = scene->addRect(box, QPen(color, it.value() == "matched" ? 1.5 : 3.5));
        frame->setZValue(item->zValue() + 0.5);
        frame->setAcceptedMouseButtons(Qt::NoButton);
        if (it.value() != "matched") {
            auto* label = scene->addSimpleText(it.value());
            label->setBrush(color);
            label->setPos(box.right() - label->boundingRect().width(),
                          box.top() - label->boundingRect().height());
            label->setZValue(frame->zValue());
            label->setAcceptedMouseButtons(Qt::NoButton);
        }
    }
}

void DiffWindow::selectKernelA(const QString& groupId) {
    if (!m_partnerOfA.contains(groupId))
        return;
    m_viewA->highlightNodes(m_viewA->graphScene()->nodesOfGroup(groupId));
    QStringList nodes;
    for (const auto& id : m_partnerOfA.value(groupId))
        nodes << m_viewB->graphScene()->nodesOfGroup(id);
    m_viewB->highlightNodes(nodes);
    m_table->selectRow(m_rowOfA.value(groupId));
}

void DiffWindow::selectKernelB(const QString& groupId) {
    if (!m_partnerOfB.contains(groupId))
        return;
    m_viewB->highlightNodes(m_viewB->graphScene()->nodesOfGroup(groupId));
    QStringList nodes;
    for (const auto& id : m_partnerOfB.value(groupId))
        nodes << m_viewA->graphScene()->nodesOfGroup(id);
    m_viewA->highlightNodes(nodes);
    m_table->selectRow(m_rowOfB.value(groupId));
}

void DiffWindow::selectRow(int row) {
    if (row < 0 || row >= m_rows.size())
        return;
    const auto& [idsA, idsB] = m_rows[row];
    QStringList nodesA, nodesB;
    for (const auto& id : idsA)
        nodesA << m_viewA->graphScene()->nodesOfGroup(id);
    for (const auto& id : idsB)
        nodesB << m_viewB->graphScene()->nodesOfGroup(id);
    m_viewA->highlightNodes(nodesA);
    m_viewB->highlightNodes(nodesB);
    if (!idsA.isEmpty())
        m_viewA->selectGroup(idsA.front());
    if (!idsB.isEmpty())
        m_viewB->selectGroup(idsB.front());
}

QString DiffWindow::summaryText() const {
    return m_summary->text();
}

void openDiffDialog(QWidget* parent, Engine& engine, const QString& current) {
    const QString filter = QObject::tr("FuseScope reports (*.fscope)");
    const QString a = QFileDialog::getOpenFileName(parent, QObject::tr("Compare: report A (the baseline)"),
                                                   current, filter);
    if (a.isEmpty())
        return;
    const QString b = QFileDialog::getOpenFileName(
        parent, QObject::tr("Compare: report B (compared with %1)").arg(QFileInfo(a).fileName()),
        QFileInfo(a).absolutePath(), filter);
    if (b.isEmpty())
        return;
    auto* window = new DiffWindow(parent);
    window->setWindowFlag(Qt::Window);
    window->setAttribute(Qt::WA_DeleteOnClose);
    window->resize(1400, 900);
    QObject::connect(window, &DiffWindow::loaded, window, [window](bool ok, const QString& error) {
        if (!ok)
            QMessageBox::warning(window, QObject::tr("Compare reports"), error);
    });
    window->show();
    window->loadReports(engine, a, b);
}

} // namespace fusescope
