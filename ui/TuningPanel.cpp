#include "TuningPanel.h"

#include "TuningChart.h"
#include "analysis/Format.h"
#include "engine/ReportModel.h"

#include <QApplication>
#include <QClipboard>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QShortcut>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace fusescope {

namespace {

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

} // namespace

TuningPanel::TuningPanel(QWidget* parent)
    : QWidget(parent)
    , m_verdict(new QLabel)
    , m_chart(new TuningChart)
    , m_table(new QTreeWidget)
    , m_snippet(new QPlainTextEdit)
    , m_copy(new QPushButton(tr("&Copy")))
    , m_details(new QLabel) {
    for (QLabel* label : {m_verdict, m_details}) {
        label->setTextFormat(Qt::PlainText); // entries and reasons come from the report
        label->setWordWrap(true);
        label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    }
    m_table->setColumnCount(ColumnCount);
    m_table->setHeaderLabels({tr("Entry"), tr("Speedup (95 % CI)"), tr("Compile s"), tr("Peak"), tr("Rounds"),
                              tr("Status"), tr("Origin")});
    m_table->setRootIsDecorated(false);
    m_table->setAlternatingRowColors(true);
    m_table->header()->setStretchLastSection(true);
    m_table->setTextElideMode(Qt::ElideMiddle);
    m_snippet->setReadOnly(true);
    m_snippet->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_snippet->setMaximumHeight(90);
    m_copy->setToolTip(tr("Copy the torch.compile call (Ctrl+Shift+C)"));
    auto* copyShortcut = new QShortcut(QKeySequence(tr("Ctrl+Shift+C")), this);
    copyShortcut->setContext(Qt::WidgetWithChildrenShortcut);
    connect(copyShortcut, &QShortcut::activated, this, &TuningPanel::copySnippet);
    connect(m_copy, &QPushButton::clicked, this, &TuningPanel::copySnippet);

    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(m_chart);
    split->addWidget(m_table);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    auto* snippetRow = new QHBoxLayout;
    snippetRow->addWidget(m_snippet, 1);
    snippetRow->addWidget(m_copy, 0, Qt::AlignTop);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_verdict);
    layout->addWidget(split, 1);
    layout->addLayout(snippetRow);
    layout->addWidget(m_details);

    connect(m_chart, &TuningChart::candidateClicked, this, [this](const QString& entry) {
        const QSignalBlocker block(m_table);
        selectCandidate(entry);
    });
    connect(m_table, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
        if (item)
            m_chart->selectCandidate(item->text(Entry));
    });
    connect(m_table, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) {
        if (item && m_report && m_report->findBackend(item->text(Entry).toStdString()))
            emit graphsRequested(item->text(Entry));
    });
    refresh();
}

void TuningPanel::subscribe(const ReportModel* model) {
    auto reset = [this, model] {
        setReport(&model->report());
        refresh();
    };
    reset();
    connect(model, &ReportModel::reportReset, this, reset);
    connect(model, &ReportModel::backendFinished, this, &TuningPanel::refresh);
}

void TuningPanel::setReport(const Report* report) {
    m_report = report;
}

void TuningPanel::refresh() {
    const TuneOutcome* t = m_report && m_report->tuning ? &*m_report->tuning : nullptr;
    m_chart->setTuning(t);
    m_table->clear();
    m_snippet->clear();
    m_copy->setEnabled(t && t->best);
    if (!t) {
        m_verdict->setText(
            tr("This report has no tuning. `fusescope-cli tune MODEL --budget 5m -o R.fscope` races "
               "backends, modes and options within the budget (docs/tuning.md)."));
        m_details->clear();
        return;
    }
    m_verdict->setText(q(t->verdict));
    for (const auto& c : t->candidates) {
        auto* item = new QTreeWidgetItem(m_table);
        item->setText(Entry, q(c.entry));
        item->setText(Origin, q(c.origin) + (c.advice.empty() ? QString() : " (" + q(c.advice) + ")"));
        QString speedup = q(format::ratio(c.speedup));
        if (c.speedupCi95)
            speedup += " (" + q(format::ratio(c.speedupCi95->first)) + "-" +
                       q(format::ratio(c.speedupCi95->second)) + ")";
        item->setText(Speedup, speedup);
        item->setText(Compile, q(format::seconds(c.compileSeconds)));
        item->setText(Peak, q(format::bytes(c.peakMemoryBytes)));
        item->setText(Rounds, QString::number(c.rounds));
        QString status = c.dropped ? tr("dropped: %1").arg(q(*c.dropped)) : q(c.status);
        if (t->best && c.entry == t->best->entry)
            status = tr("best");
        item->setText(Status, status);
        item->setToolTip(Status, status);
        for (int col : {Speedup, Compile, Peak, Rounds})
            item->setTextAlignment(col, Qt::AlignRight | Qt::AlignVCenter);
        if (c.dropped)
            for (int col = 0; col < ColumnCount; ++col)
                item->setForeground(col, palette().color(QPalette::Disabled, QPalette::Text));
        if (t->best && c.entry == t->best->entry) {
            QFont bold = item->font(Entry);
            bold.setBold(true);
            for (int col = 0; col < ColumnCount; ++col)
                item->setFont(col, bold);
        }
    }
    for (int col : {Entry, Speedup, Compile, Peak, Rounds})
        m_table->resizeColumnToContents(col);
    m_table->setColumnWidth(Status, 260); // the reason in full is the cell's tooltip
    if (t->best)
        m_snippet->setPlainText(q(t->best->snippet));
    QStringList lines;
    if (!t->pareto.empty()) {
        QStringList pareto;
        for (const auto& e : t->pareto)
            pareto << q(e);
        lines << tr("Pareto front (speedup x compile time x peak memory): %1").arg(pareto.join(", "));
    }
    for (const auto& a : t->adviceOutcomes)
        lines << tr("Advice %1 -> %2: %3")
                     .arg(q(a.rule), q(a.entry),
                          a.outcome.empty() ? q(a.reason) : q(a.outcome) + " (" + q(a.reason) + ")");
    for (const auto& n : t->notes)
        lines << tr("Note: %1").arg(q(n));
    m_details->setText(lines.join("\n"));
}

bool TuningPanel::selectCandidate(const QString& entry) {
    for (int i = 0; i < m_table->topLevelItemCount(); ++i)
        if (m_table->topLevelItem(i)->text(Entry) == entry) {
            m_table->setCurrentItem(m_table->topLevelItem(i));
            m_chart->selectCandidate(entry);
            return true;
        }
    return false;
}

QString TuningPanel::snippet() const {
    return m_snippet->toPlainText();
}

QString TuningPanel::verdict() const {
    return m_verdict->text();
}

void TuningPanel::copySnippet() {
    if (snippet().isEmpty())
        return;
    QApplication::clipboard()->setText(snippet());
    emit message(tr("Copied the torch.compile call to the clipboard"));
}

} // namespace fusescope
