// Chart export, apart from the plotting: PNG and PDF through QCustomPlot, SVG by replaying the
// plot onto a QSvgGenerator (QCustomPlot has no SVG writer of its own).
#include "BackendCharts.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QSvgGenerator>
#include <qcustomplot.h>

namespace fusescope {

bool BackendCharts::exportChart(Chart chart, const QString& path, int width, int height,
                                QString* error) const {
    QCustomPlot* plot = m_plots[static_cast<int>(chart)];
    const QString suffix = QFileInfo(path).suffix().toLower();
    bool ok = false;
    if (suffix == QLatin1String("png")) {
        ok = plot->savePng(path, width, height);
    } else if (suffix == QLatin1String("pdf")) {
        ok = plot->savePdf(path, width, height);
    } else if (suffix == QLatin1String("svg")) {
        QSvgGenerator svg;
        svg.setFileName(path);
        svg.setSize(QSize(width, height));
        svg.setViewBox(QRect(0, 0, width, height));
        svg.setTitle(title(chart));
        QCPPainter painter;
        ok = painter.begin(&svg);
        if (ok) {
            plot->toPainter(&painter, width, height);
            ok = painter.end();
        }
    } else {
        if (error)
            *error = tr("Unknown chart format \"%1\": use .png, .svg or .pdf.").arg(suffix);
        return false;
    }
    if (!ok && error)
        *error = tr("Could not write the chart to %1.").arg(path);
    return ok;
}

void BackendCharts::exportWithDialog(Chart chart) {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export chart"),
        title(chart).section(QLatin1Char(' '), 0, 0).toLower() + QStringLiteral(".png"),
        tr("PNG image (*.png);;SVG image (*.svg);;PDF document (*.pdf)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!exportChart(chart, path, 1000, 600, &error))
        QMessageBox::warning(this, tr("Export chart"), error);
}

} // namespace fusescope
