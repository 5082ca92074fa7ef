#include "StageCompareWidget.h"

#include "CodeHighlighter.h"
#include "GraphScene.h"
#include "GraphView.h"
#include "analysis/FusionLinks.h"

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QTextBlock>
#include <QTextBrowser>
#include <QToolButton>
#include <QVBoxLayout>
#include <unordered_set>

namespace fusescope {

namespace {

QWidget* sidePanel(QLabel* title, GraphView* view) {
    auto* panel = new QWidget;
    auto* layout = new QVBoxLayout(panel);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* bar = new QHBoxLayout;
    bar->addWidget(title, 1);
    auto* search = new QLineEdit;
    search->setPlaceholderText(QObject::tr("Find node or op"));
    search->setClearButtonEnabled(true);
    search->setMaximumWidth(200);
    auto* previous = new QToolButton;
    previous->setText("▲");
    auto* next = new QToolButton;
    next->setText("▼");
    auto* fit = new QToolButton;
    fit->setText(QObject::tr("Fit"));
    bar->addWidget(search);
    bar->addWidget(previous);
    bar->addWidget(next);
    bar->addWidget(fit);
    layout->addLayout(bar);
    layout->addWidget(view, 1);
    QObject::connect(search, &QLineEdit::returnPressed, view, [view, search] {
        if (view->searchMatches().isEmpty() || search->isModified()) {
            view->search(search->text());
            search->setModified(false);
        } else {
            view->findNext();
        }
    });
    QObject::connect(previous, &QToolButton::clicked, view, &GraphView::findPrevious);
    QObject::connect(next, &QToolButton::clicked, view, &GraphView::findNext);
    QObject::connect(fit, &QToolButton::clicked, view, &GraphView::fitToWindow);
    return panel;
}

QString join(const std::vector<std::string>& items, const QString& sep = ", ") {
    QStringList out;
    for (const auto& s : items)
        out << QString::fromStdString(s).toHtmlEscaped();
    return out.join(sep);
}

} // namespace

StageCompareWidget::StageCompareWidget(QWidget* parent)
    : QWidget(parent)
    , m_before(new GraphView)
    , m_after(new GraphView)
    , m_code(new QPlainTextEdit)
    , m_inspector(new QTextBrowser)
    , m_stats(new QLabel)
    , m_beforeTitle(new QLabel(tr("Before fusion")))
    , m_afterTitle(new QLabel(tr("After fusion"))) {
    m_code->setReadOnly(true);
    m_code->setPlaceholderText(tr("Click a kernel after fusion to see its generated source."));
    m_inspector->setPlaceholderText(
        tr("Click a node or kernel: op, shapes, module, source line and the kernel it ended in."));
    m_code->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_code->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    new CodeHighlighter(m_code->document());

    auto* graphs = new QSplitter(Qt::Horizontal);
    graphs->addWidget(sidePanel(m_beforeTitle, m_before));
    graphs->addWidget(sidePanel(m_afterTitle, m_after));
    auto* details = new QSplitter(Qt::Horizontal);
    details->addWidget(m_code);
    details->addWidget(m_inspector);
    details->setStretchFactor(0, 3);
    details->setStretchFactor(1, 2);
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(graphs);
    split->addWidget(details);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_stats);
    layout->addWidget(split, 1);

    connect(m_after, &GraphView::groupSelected, this, &StageCompareWidget::selectKernel);
    connect(m_after, &GraphView::nodeSelected, this, &StageCompareWidget::selectAfterNode);
    connect(m_before, &GraphView::nodeSelected, this, &StageCompareWidget::selectBeforeNode);
}

bool StageCompareWidget::setRun(std::shared_ptr<const BackendRun> run, int graph) {
    const QString suffix = graph == 0 ? QString() : QString("#%1").arg(graph);
    return setStages(std::move(run), "pre_fusion" + suffix, "post_fusion" + suffix);
}

bool StageCompareWidget::setStages(std::shared_ptr<const BackendRun> run, const QString& beforeKey,
                                   const QString& afterKey) {
    m_run = std::move(run);
    m_kernelToBefore.clear();
    m_beforeToKernel.clear();
    m_code->clear();
    m_codeArtifact.clear();
    m_inspector->clear();
    const StageGraph* before = m_run ? m_run->findStage(beforeKey.toStdString()) : nullptr;
    const StageGraph* after = m_run ? m_run->findStage(afterKey.toStdString()) : nullptr;
    // Views share the run's stages without copying: the aliasing constructor keeps the run alive.
    m_beforeStage = before ? std::shared_ptr<const StageGraph>(m_run, before) : nullptr;
    m_afterStage = after ? std::shared_ptr<const StageGraph>(m_run, after) : nullptr;
    auto placeholder = [](const QString& key) {
        auto s = std::make_shared<StageGraph>();
        s->name = key.toStdString();
        s->status = StageStatus::Unsupported;
        s->reason = "This backend produced no " + s->name + " stage.";
        return s;
    };
    m_before->setStage(m_beforeStage ? m_beforeStage : placeholder(beforeKey));
    m_after->setStage(m_afterStage ? m_afterStage : placeholder(afterKey));
    if (after && m_run->quantization) // int8 rows: which kernels compute in int8 (docs/quantization.md)
        m_after->setKernelBadges(int8Badges(*m_run, *after));
    m_beforeTitle->setText(before
                               ? QString::fromStdString(before->label.empty() ? before->name : before->label)
                               : tr("Before fusion (missing)"));
    m_afterTitle->setText(after ? QString::fromStdString(after->label.empty() ? after->name : after->label)
                                : tr("After fusion (missing)"));
    if (!before || !after) {
        m_stats->setText(tr("%1 has no %2 stage to compare.")
                             .arg(QString::fromStdString(m_run ? m_run->name : "This run"),
                                  !before ? beforeKey : afterKey));
        return false;
    }
    linkStages();
    const int beforeCompute = before->computeNodeCount();
    const int kernels = after->kernelCount();
    QString stats = tr("Before: %1 nodes (%2 compute) · After: %3 kernels · %4 ops fused away")
                        .arg(before->nodes.size())
                        .arg(beforeCompute)
                        .arg(kernels)
                        .arg(std::max(0, beforeCompute - kernels));
    // What fusion saved (docs/roofline.md): the kernels' bytes per call against the eager ops'.
    if (after->cost && after->cost->bytes && after->cost->eagerBytes && *after->cost->eagerBytes > 0)
        stats += tr(" · kernels move %1 % of the bytes eager moves per call")
                     .arg(100.0 * static_cast<double>(*after->cost->bytes) /
                              static_cast<double>(*after->cost->eagerBytes),
                          0, 'f', 0);
    // A graph the compile cache served from an identical one says so (docs/graph-schema.json).
    for (const StageGraph* s : {before, after})
        if (s->status == StageStatus::Ok && !s->reason.empty()) {
            stats += " · " + QString::fromStdString(s->reason);
            break;
        }
    m_stats->setText(stats);
    return true;
}

void StageCompareWidget::linkStages() {
    const auto origins = kernelOrigins(*m_afterStage, *m_beforeStage);
    for (int k = 0; k < int(origins.size()); ++k) {
        if (!m_afterStage->groups[size_t(k)].isKernel())
            continue;
        QStringList matched;
        for (const int i : origins[size_t(k)]) {
            const QString id = QString::fromStdString(m_beforeStage->nodes[size_t(i)].id);
            matched << id;
            m_beforeToKernel.insert(id, k);
        }
        m_kernelToBefore.insert(k, matched);
    }
}

const FusionGroup* StageCompareWidget::kernelByGroupId(const QString& groupId) const {
    if (!m_afterStage)
        return nullptr;
    const std::string id =
        groupId.startsWith("kernel:") ? groupId.mid(7).toStdString() : groupId.toStdString();
    for (const FusionGroup& g : m_afterStage->groups)
        if (g.id == id)
            return &g;
    return nullptr;
}

QStringList StageCompareWidget::beforeNodesOfKernel(const QString& kernelGroupId) const {
    const FusionGroup* g = kernelByGroupId(kernelGroupId);
    return g ? m_kernelToBefore.value(int(g - m_afterStage->groups.data())) : QStringList();
}

void StageCompareWidget::selectKernel(const QString& groupId) {
    const FusionGroup* g = kernelByGroupId(groupId);
    if (!g)
        return; // a module or part box: nothing to cross-link
    m_before->highlightNodes(beforeNodesOfKernel(groupId));
    m_after->highlightNodes(m_after->graphScene()->nodesOfGroup("kernel:" + QString::fromStdString(g->id)));
    showKernelCode(*g);
    m_inspector->setHtml(
        QString("<b>%1</b> <i>%2</i><br>%3 nodes: %4<br>from: %5")
            .arg(QString::fromStdString(g->name).toHtmlEscaped(), QString::fromStdString(g->kind))
            .arg(g->nodes.size())
            .arg(join(g->nodes), join(g->provenance)));
}

void StageCompareWidget::selectBeforeNode(const QString& nodeId) {
    const GraphNode* node = m_beforeStage ? m_beforeStage->findNode(nodeId.toStdString()) : nullptr;
    if (!node)
        return;
    const int k = m_beforeToKernel.value(nodeId, -1);
    const FusionGroup* kernel = k >= 0 ? &m_afterStage->groups[size_t(k)] : nullptr;
    m_before->highlightNodes({nodeId});
    if (kernel) {
        const QString groupId = "kernel:" + QString::fromStdString(kernel->id);
        m_after->highlightNodes(m_after->graphScene()->nodesOfGroup(groupId));
        showKernelCode(*kernel);
    } else {
        m_after->highlightNodes({});
    }
    inspectNode(*m_beforeStage, *node, kernel);
}

void StageCompareWidget::selectAfterNode(const QString& nodeId) {
    const GraphNode* node = m_afterStage ? m_afterStage->findNode(nodeId.toStdString()) : nullptr;
    if (!node)
        return;
    const QString kernelId = m_after->graphScene()->kernelOfNode(nodeId);
    if (!kernelId.isEmpty())
        selectKernel(kernelId);
    inspectNode(*m_afterStage, *node, kernelByGroupId(kernelId));
}

void StageCompareWidget::inspectNode(const StageGraph& stage, const GraphNode& n, const FusionGroup* kernel) {
    QStringList shapes;
    for (const auto& s : n.shapes) {
        QStringList dims;
        for (const auto& d : s)
            dims << QString::fromStdString(d);
        shapes << "[" + dims.join(", ") + "]";
    }
    auto row = [](const QString& key, const QString& value) {
        return QString("<tr><td><b>%1</b></td><td>%2</td></tr>").arg(key, value);
    };
    QString html = "<table>";
    html += row(tr("Stage"), QString::fromStdString(stage.key()));
    html += row(tr("Node"), QString::fromStdString(n.name).toHtmlEscaped());
    html += row(tr("Op"), QString::fromStdString(n.op).toHtmlEscaped());
    html += row(tr("Kind"), QString::fromStdString(n.kind));
    html += row(tr("Shapes"), shapes.join(" "));
    html += row(tr("Dtypes"), join(n.dtypes));
    html += row(tr("Module"),
                QString::fromStdString(n.module + (n.moduleType.empty() ? "" : " (" + n.moduleType + ")"))
                    .toHtmlEscaped());
    if (n.source)
        html += row(tr("Source"), QString("%1:%2<br><code>%3</code>")
                                      .arg(QString::fromStdString(n.source->file).toHtmlEscaped())
                                      .arg(n.source->line)
                                      .arg(QString::fromStdString(n.source->code).toHtmlEscaped()));
    if (!n.origins.empty())
        html += row(tr("Origins"), join(n.origins));
    html += row(tr("Kernel"), kernel ? QString::fromStdString(kernel->name).toHtmlEscaped() : tr("none"));
    m_inspector->setHtml(html + "</table>");
}

void StageCompareWidget::showKernelCode(const FusionGroup& kernel) {
    if (!m_run)
        return;
    const QString name = QString::fromStdString(kernel.name);
    // Definitions first ("def name(", "name = async_compile", "void name("), any mention last.
    const QStringList patterns = {"def " + name + "(", name + " = ", "void " + name + "(", name};
    for (const QString& pattern : patterns) {
        for (const CodeArtifact& artifact : m_run->code) {
            if (!kernel.code.empty() && artifact.name != kernel.code && pattern == name)
                continue;
            const QString text = QString::fromStdString(artifact.text);
            const qsizetype at = text.indexOf(pattern);
            if (at < 0)
                continue;
            const QString artifactName = QString::fromStdString(artifact.name);
            if (m_codeArtifact != artifactName) {
                m_code->setPlainText(text);
                m_codeArtifact = artifactName;
            }
            QTextCursor cursor(m_code->document()->findBlock(int(at)));
            m_code->setTextCursor(cursor);
            m_code->centerCursor();
            return;
        }
    }
    m_code->setPlainText(tr("No generated source mentions %1 in this run's code artifacts.").arg(name));
    m_codeArtifact.clear();
}

QString StageCompareWidget::inspectorText() const {
    return m_inspector->toPlainText();
}

QString StageCompareWidget::statsText() const {
    return m_stats->text();
}

} // namespace fusescope
