#include "BreaksPanel.h"

#include "CodeHighlighter.h"
#include "analysis/Format.h"
#include "engine/ReportModel.h"

#include <QDesktopServices>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTextBlock>
#include <QTreeWidget>
#include <QUrl>
#include <QVBoxLayout>

namespace fusescope {

namespace {

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

QString locationOf(const GraphBreak& item) {
    if (item.file.empty())
        return QStringLiteral("-");
    return item.line > 0 ? QString("%1:%2").arg(q(item.file)).arg(item.line) : q(item.file);
}

} // namespace

int graphShowingBreak(const GraphBreak& item) {
    if (item.graph < 0)
        return -1;
    return item.graph == 0 ? 0 : item.graph - 1;
}

QString breakPlacement(const GraphBreak& item) {
    return item.graph < 0 ? QStringLiteral("-") : QString::fromStdString(format::breakPlacement(item.graph));
}

BreaksPanel::BreaksPanel(QWidget* parent)
    : QWidget(parent)
    , m_list(new QTreeWidget)
    , m_location(new QLabel)
    , m_detail(new QLabel)
    , m_source(new QPlainTextEdit)
    , m_openEditor(new QPushButton(tr("Open in &Editor")))
    , m_showGraph(new QPushButton(tr("Show &Graph"))) {
    m_list->setHeaderLabels({tr("Backend"), tr("Graph"), tr("Reason"), tr("Location")});
    m_list->setRootIsDecorated(false);
    m_list->setAlternatingRowColors(true);
    m_list->setUniformRowHeights(true);
    m_list->setSortingEnabled(true);
    m_list->sortByColumn(-1, Qt::AscendingOrder);
    m_list->header()->setSectionResizeMode(ReasonColumn, QHeaderView::Stretch);
    m_list->header()->setStretchLastSection(false);
    m_list->setToolTip(tr("Where Dynamo split the model into several graphs; select one to see its source"));

    m_location->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    m_location->setWordWrap(true);
    m_detail->setWordWrap(true);
    m_detail->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    m_detail->setVisible(false);
    m_source->setReadOnly(true);
    m_source->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_source->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_source->setPlaceholderText(tr("Select a graph break to see its source line."));
    // Read-only, but the caret still moves so the source can be read with the keyboard.
    m_source->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    new CodeHighlighter(m_source->document());
    m_openEditor->setToolTip(tr("Open the source file in the desktop's editor for .py files"));
    m_openEditor->setEnabled(false);
    m_showGraph->setToolTip(tr("Show the Dynamo graph this break ended in the Graphs tab"));
    m_showGraph->setEnabled(false);

    auto* header = new QHBoxLayout;
    header->addWidget(m_location, 1);
    header->addWidget(m_showGraph);
    header->addWidget(m_openEditor);
    auto* sourcePane = new QWidget;
    auto* sourceLayout = new QVBoxLayout(sourcePane);
    sourceLayout->setContentsMargins(0, 0, 0, 0);
    sourceLayout->addLayout(header);
    sourceLayout->addWidget(m_detail);
    sourceLayout->addWidget(m_source, 1);

    auto* splitter = new QSplitter(Qt::Vertical);
    splitter->addWidget(m_list);
    splitter->addWidget(sourcePane);
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 3);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(splitter);

    connect(m_list, &QTreeWidget::currentItemChanged, this, &BreaksPanel::onCurrentChanged);
    connect(m_openEditor, &QPushButton::clicked, this, [this] {
        if (!m_shownFile.isEmpty())
            QDesktopServices::openUrl(QUrl::fromLocalFile(m_shownFile));
    });
    connect(m_showGraph, &QPushButton::clicked, this, [this] {
        if (auto* item = m_list->currentItem())
            emit showGraphRequested(item->text(BackendColumn), item->data(GraphColumn, GraphRole).toInt());
    });
}

void BreaksPanel::setReport(const Report* report) {
    m_report = report;
    refresh();
}

void BreaksPanel::refresh() {
    // Keep the selection across a refresh (a backend finishing elsewhere must not move it).
    QString backend;
    int index = -1;
    if (auto* current = m_list->currentItem()) {
        backend = current->text(BackendColumn);
        index = current->data(BackendColumn, BreakIndexRole).toInt();
    }
    {
        QSignalBlocker block(m_list);
        m_list->clear();
        if (m_report)
            for (const auto& run : m_report->backends)
                for (size_t i = 0; i < run.breakReasons.size(); ++i) {
                    const auto& b = run.breakReasons[i];
                    auto* item = new QTreeWidgetItem(
                        m_list, {q(run.name), breakPlacement(b), q(b.reason), locationOf(b)});
                    item->setData(BackendColumn, BreakIndexRole, static_cast<int>(i));
                    item->setData(GraphColumn, GraphRole, graphShowingBreak(b));
                    item->setToolTip(ReasonColumn, q(b.detail.empty() ? b.reason : b.detail));
                    item->setToolTip(GraphColumn,
                                     tr("Graphs Dynamo had produced when it broke: %1")
                                         .arg(b.graph < 0 ? QString("?") : QString::number(b.graph)));
                }
        for (int c = 0; c < ColumnCount; ++c)
            if (c != ReasonColumn)
                m_list->resizeColumnToContents(c);
    }
    if (m_list->topLevelItemCount() == 0) {
        const bool any = m_report && !m_report->backends.empty();
        m_location->setText(any ? tr("No graph breaks: every backend captured the model whole.")
                                : tr("No report: run a comparison or open a report."));
        m_source->clear();
        m_detail->setVisible(false);
        m_shownFile.clear();
        m_shownLine = 0;
        m_openEditor->setEnabled(false);
        m_showGraph->setEnabled(false);
        return;
    }
    if (!backend.isEmpty() && showBreak(backend, index))
        return;
    m_list->setCurrentItem(m_list->topLevelItem(0));
}

bool BreaksPanel::showBreak(const QString& backend, int breakIndex) {
    for (int i = 0; i < m_list->topLevelItemCount(); ++i) {
        auto* item = m_list->topLevelItem(i);
        if (item->text(BackendColumn) == backend &&
            item->data(BackendColumn, BreakIndexRole).toInt() == breakIndex) {
            if (m_list->currentItem() == item)
                onCurrentChanged();
            else
                m_list->setCurrentItem(item);
            m_list->scrollToItem(item);
            return true;
        }
    }
    return false;
}

QString BreaksPanel::locationText() const {
    return m_location->text();
}

void BreaksPanel::onCurrentChanged() {
    auto* item = m_list->currentItem();
    const BackendRun* run =
        item && m_report ? m_report->findBackend(item->text(BackendColumn).toStdString()) : nullptr;
    const int index = item ? item->data(BackendColumn, BreakIndexRole).toInt() : -1;
    if (!run || index < 0 || index >= static_cast<int>(run->breakReasons.size()))
        return;
    const GraphBreak& b = run->breakReasons[static_cast<size_t>(index)];
    m_detail->setText(q(b.detail));
    m_detail->setVisible(!b.detail.empty() && b.detail != b.reason);
    m_showGraph->setEnabled(graphShowingBreak(b) >= 0);
    showSource(q(b.file), b.line);
}

QString BreaksPanel::resolve(const QString& file) const {
    QFileInfo info(file);
    if (info.isAbsolute() || !m_report)
        return info.absoluteFilePath();
    // A relative path is most likely relative to the model file the report ran.
    const QFileInfo model(q(m_report->modelSpec));
    if (model.exists() && QFileInfo::exists(model.dir().filePath(file)))
        return model.dir().absoluteFilePath(file);
    return info.absoluteFilePath();
}

void BreaksPanel::showSource(const QString& file, int line) {
    m_source->setExtraSelections({});
    m_shownLine = 0;
    m_shownFile.clear();
    m_openEditor->setEnabled(false);
    if (file.isEmpty()) {
        m_location->setText(tr("Dynamo gave no source location for this break."));
        m_source->clear();
        return;
    }
    const QString path = resolve(file);
    QFile in(path);
    if (!in.open(QIODevice::ReadOnly | QIODevice::Text)) {
        m_location->setText(
            tr("<b>%1</b> cannot be read here (%2): the report may come from another machine.")
                .arg(path.toHtmlEscaped(), in.errorString().toHtmlEscaped()));
        m_source->clear();
        return;
    }
    m_source->setPlainText(QString::fromUtf8(in.readAll()));
    m_shownFile = path;
    m_openEditor->setEnabled(true);
    const int blocks = m_source->document()->blockCount();
    if (line < 1 || line > blocks) {
        m_location->setText(line > blocks ? tr("<b>%1</b>: line %2 is past the end of the file (%3 lines): "
                                               "it changed since the run.")
                                                .arg(path.toHtmlEscaped())
                                                .arg(line)
                                                .arg(blocks)
                                          : tr("<b>%1</b> (no line given)").arg(path.toHtmlEscaped()));
        return;
    }
    m_shownLine = line;
    m_location->setText(tr("<b>%1:%2</b>").arg(path.toHtmlEscaped()).arg(line));
    QTextCursor cursor(m_source->document()->findBlockByNumber(line - 1));
    QTextEdit::ExtraSelection mark;
    mark.cursor = cursor;
    mark.format.setBackground(QColor(0xff, 0xe0, 0x82));
    mark.format.setProperty(QTextFormat::FullWidthSelection, true);
    m_source->setExtraSelections({mark});
    m_source->setTextCursor(cursor);
    m_source->centerCursor();
}

void BreaksPanel::subscribe(const ReportModel* model) {
    auto reset = [this, model] {
        setReport(&model->report());
        refresh();
    };
    reset();
    connect(model, &ReportModel::reportReset, this, reset);
    connect(model, &ReportModel::backendFinished, this, &BreaksPanel::refresh);
}

} // namespace fusescope
