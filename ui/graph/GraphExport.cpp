#include "GraphExport.h"

#include "GraphScene.h"
#include "trace/TimeAttribution.h"

#include <QFileInfo>
#include <QGraphicsScene>
#include <QGuiApplication>
#include <QImage>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>
#include <algorithm>

namespace fusescope {

namespace {

bool fail(QString* error, const QString& message) {
    if (error)
        *error = message;
    return false;
}

} // namespace

bool exportScene(QGraphicsScene* scene, const QString& path, double scale, QString* error) {
    if (!qobject_cast<QGuiApplication*>(QCoreApplication::instance()))
        return fail(error, "exporting a graph needs a QGuiApplication (fonts); none is running");
    if (!scene)
        return fail(error, "no graph to export");
    const QRectF source = scene->sceneRect().isEmpty() ? scene->itemsBoundingRect() : scene->sceneRect();
    if (source.isEmpty())
        return fail(error, "the graph is empty");
    const QString suffix = QFileInfo(path).suffix().toLower();
    scale = scale > 0 ? scale : 1.0;

    if (suffix == "png" || suffix == "jpg" || suffix == "jpeg") {
        // Big graphs at big scales would ask for gigabytes; shrink to the largest side we allow.
        const double cap = 16384.0;
        scale = std::min({scale, cap / source.width(), cap / source.height()});
        const QSize size(std::max(1, int(source.width() * scale)), std::max(1, int(source.height() * scale)));
        QImage image(size, QImage::Format_ARGB32_Premultiplied);
        if (image.isNull())
            return fail(error, QString("could not allocate a %1x%2 image for %3")
                                   .arg(size.width())
                                   .arg(size.height())
                                   .arg(path));
        image.fill(Qt::white);
        {
            QPainter painter(&image);
            painter.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
            scene->render(&painter, QRectF(QPointF(0, 0), QSizeF(size)), source);
        }
        if (!image.save(path))
            return fail(error, "could not write " + path);
        return true;
    }
    if (suffix == "svg") {
        QSvgGenerator svg;
        svg.setFileName(path);
        svg.setSize(source.size().toSize());
        svg.setViewBox(QRectF(QPointF(0, 0), source.size()));
        svg.setTitle(QFileInfo(path).completeBaseName());
        svg.setDescription("FuseScope stage graph");
        QPainter painter;
        if (!painter.begin(&svg))
            return fail(error, "could not write " + path);
        painter.fillRect(QRectF(QPointF(0, 0), source.size()), Qt::white);
        scene->render(&painter, QRectF(QPointF(0, 0), source.size()), source);
        painter.end();
        return true;
    }
    if (suffix == "pdf") {
        QPdfWriter pdf(path);
        pdf.setPageSize(QPageSize(source.size(), QPageSize::Point));
        pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
        pdf.setResolution(72); // one scene point is one PDF point
        QPainter painter;
        if (!painter.begin(&pdf))
            return fail(error, "could not write " + path);
        scene->render(&painter, QRectF(QPointF(0, 0), source.size()), source);
        painter.end();
        return true;
    }
    return fail(error, "unknown image format '" + suffix + "' for " + path + ": use .png, .svg or .pdf");
}

bool exportStageImage(const BackendRun& run, const std::string& stageKey, const QString& path, double scale,
                      QString* error, bool measuredTime) {
    if (measuredTime && !run.trace)
        return fail(error,
                    QString("backend %1 has no kernel trace to colour the graph by (compare with --trace)")
                        .arg(QString::fromStdString(run.name)));
    const StageGraph* stage = run.findStage(stageKey);
    if (!stage) {
        QStringList keys;
        for (const StageGraph& s : run.stages)
            keys << QString::fromStdString(s.key());
        return fail(error, QString("backend %1 has no stage %2; it has: %3")
                               .arg(QString::fromStdString(run.name), QString::fromStdString(stageKey),
                                    keys.isEmpty() ? QString("none") : keys.join(", ")));
    }
    if (stage->nodes.empty())
        return fail(error, QString("stage %1 of backend %2 has nothing to draw: %3")
                               .arg(QString::fromStdString(stageKey), QString::fromStdString(run.name),
                                    QString::fromStdString(stage->reason.empty() ? toString(stage->status)
                                                                                 : stage->reason)));
    GraphScene scene;
    scene.setStage(std::make_shared<const StageGraph>(*stage));
    if (measuredTime) {
        const TimeAttribution time = attributeKernelTime(run);
        scene.setHeat(heatOfStage(time, *stage));
    }
    scene.layoutNow();
    if (scene.nodeItemCount() + scene.closedGroupCount() == 0)
        return fail(error, "layout failed for stage " + QString::fromStdString(stageKey) + ": " +
                               scene.emptyReason());
    return exportScene(&scene, path, scale, error);
}

} // namespace fusescope
