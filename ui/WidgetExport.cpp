#include "WidgetExport.h"

#include <QFileDialog>
#include <QImage>
#include <QInputDialog>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>
#include <QWidget>

namespace fusescope {

bool askExportTarget(QWidget* parent, const QString& title, ExportTarget& target) {
    QString path = QFileDialog::getSaveFileName(
        parent, title, QString(),
        QObject::tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)"));
    if (path.isEmpty())
        return false;
    if (!path.contains('.'))
        path += ".png";
    target.path = path;
    target.scale = 1.0;
    if (path.endsWith(".png", Qt::CaseInsensitive)) {
        bool ok = false;
        target.scale =
            QInputDialog::getDouble(parent, title, QObject::tr("Pixels per point:"), 2.0, 0.25, 8.0, 2, &ok);
        return ok;
    }
    return true;
}

bool exportWidget(QWidget* widget, const QString& path, double scale, QString* error) {
    auto fail = [&](const QString& why) {
        if (error)
            *error = why;
        return false;
    };
    const QSize size = widget->size();
    const QString lower = path.toLower();
    if (lower.endsWith(".png")) {
        QImage image(size * scale, QImage::Format_ARGB32_Premultiplied);
        image.setDevicePixelRatio(scale);
        image.fill(Qt::white);
        QPainter painter(&image);
        widget->render(&painter);
        painter.end();
        return image.save(path) ? true : fail(QString("cannot write %1").arg(path));
    }
    if (lower.endsWith(".svg")) {
        QSvgGenerator svg;
        svg.setFileName(path);
        svg.setSize(size);
        svg.setViewBox(QRect(QPoint(0, 0), size));
        svg.setTitle("FuseScope");
        QPainter painter;
        if (!painter.begin(&svg))
            return fail(QString("cannot write %1").arg(path));
        widget->render(&painter);
        return painter.end() ? true : fail(QString("cannot write %1").arg(path));
    }
    if (lower.endsWith(".pdf")) {
        QPdfWriter pdf(path);
        pdf.setResolution(96);
        pdf.setPageSize(QPageSize(QSizeF(size), QPageSize::Point));
        pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
        QPainter painter;
        if (!painter.begin(&pdf))
            return fail(QString("cannot write %1").arg(path));
        // Fit the widget's pixels onto the page.
        const double sx = pdf.width() / double(size.width());
        painter.scale(sx, sx);
        widget->render(&painter);
        return painter.end() ? true : fail(QString("cannot write %1").arg(path));
    }
    return fail(QString("%1: unknown format; use .png, .svg or .pdf").arg(path));
}

} // namespace fusescope
