#include "TimeTable.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

namespace fusescope {

namespace {

// Sorts by the number it holds, not by its text.
class NumberItem : public QTableWidgetItem {
public:
    NumberItem(const QString& text, double value)
        : QTableWidgetItem(text)
        , m_value(value) {
        setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    }
    bool operator<(const QTableWidgetItem& other) const override {
        if (auto* n = dynamic_cast<const NumberItem*>(&other))
            return m_value < n->m_value;
        return QTableWidgetItem::operator<(other);
    }

private:
    double m_value;
};

enum Column { Key, Time, Share, Kernels, Code, ColumnCount };

} // namespace

TimeTable::TimeTable(QWidget* parent)
    : QWidget(parent)
    , m_grouping(new QComboBox)
    , m_summary(new QLabel)
    , m_table(new QTableWidget(0, ColumnCount)) {
    m_grouping->addItem(tr("By module"), int(TimeGrouping::Module));
    m_grouping->addItem(tr("By source line"), int(TimeGrouping::Line));
    m_grouping->setToolTip(tr("Group the traced kernel time by nn.Module path or by source line"));
    m_table->setHorizontalHeaderLabels(
        {tr("Module"), tr("Time (ms)"), tr("Share"), tr("Kernels"), tr("Code")});
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setSortingEnabled(true);
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Time:")));
    bar->addWidget(m_grouping);
    bar->addWidget(m_summary, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_table, 1);
    connect(m_grouping, &QComboBox::currentIndexChanged, this, &TimeTable::fill);
    connect(m_table, &QTableWidget::itemSelectionChanged, this, &TimeTable::onSelection);
}

void TimeTable::setAttribution(std::shared_ptr<const TimeAttribution> time, const QString& backend) {
    m_time = std::move(time);
    if (!m_time || m_time->tracedNs <= 0)
        m_summary->setText(tr("%1 has no kernel trace: run it with Trace kernels (compare --trace) to see "
                              "where the time goes")
                               .arg(backend));
    else
        m_summary->setText(
            tr("%1: %2 ms of traced kernel time per iteration over %3 iterations; a kernel's time is "
               "split evenly over the nodes it fused")
                .arg(backend)
                .arg(m_time->tracedNs / 1e6, 0, 'f', 3)
                .arg(m_time->iterations));
    fill();
}

TimeGrouping TimeTable::grouping() const {
    return TimeGrouping(m_grouping->currentData().toInt());
}

void TimeTable::setGrouping(TimeGrouping grouping) {
    m_grouping->setCurrentIndex(m_grouping->findData(int(grouping)));
}

int TimeTable::rowCount() const {
    return m_table->rowCount();
}

QString TimeTable::text(int row, int column) const {
    const auto* item = m_table->item(row, column);
    return item ? item->text() : QString();
}

void TimeTable::selectRow(int row) {
    m_table->selectRow(row);
}

void TimeTable::fill() {
    const TimeGrouping by = grouping();
    m_table->horizontalHeaderItem(Key)->setText(by == TimeGrouping::Module ? tr("Module")
                                                                           : tr("Source line"));
    m_table->setColumnHidden(Code, by != TimeGrouping::Line);
    m_rows = m_time ? m_time->rows(by) : std::vector<TimeRow>{};
    m_table->setSortingEnabled(false);
    m_table->clearContents();
    m_table->setRowCount(int(m_rows.size()));
    for (int r = 0; r < int(m_rows.size()); ++r) {
        const TimeRow& row = m_rows[size_t(r)];
        auto* key = new QTableWidgetItem(QString::fromStdString(row.key));
        key->setData(Qt::UserRole, r);
        QStringList kernels;
        for (const auto& k : row.kernels)
            kernels << QString::fromStdString(k);
        key->setToolTip(kernels.join("\n"));
        m_table->setItem(r, Key, key);
        m_table->setItem(r, Time, new NumberItem(QString::number(row.ns / 1e6, 'f', 3), row.ns));
        m_table->setItem(r, Share,
                         new NumberItem(QString("%1 %").arg(100 * row.share, 0, 'f', 1), row.share));
        m_table->setItem(r, Kernels,
                         new NumberItem(QString::number(row.kernels.size()), double(row.kernels.size())));
        m_table->setItem(r, Code, new QTableWidgetItem(QString::fromStdString(row.code)));
    }
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(Time, Qt::DescendingOrder);
    m_table->resizeColumnsToContents();
}

void TimeTable::onSelection() {
    const auto items = m_table->selectedItems();
    if (items.isEmpty())
        return;
    const int r = m_table->item(items.front()->row(), Key)->data(Qt::UserRole).toInt();
    if (r < 0 || r >= int(m_rows.size()))
        return;
    QStringList stages, nodes;
    for (const auto& [stage, node] : m_rows[size_t(r)].nodes) {
        stages << QString::fromStdString(stage->key());
        nodes << QString::fromStdString(node);
    }
    emit nodesSelected(stages, nodes);
}

} // namespace fusescope
