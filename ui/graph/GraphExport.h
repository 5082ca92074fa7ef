#pragma once

#include "model/BackendRun.h"

#include <QString>
#include <string>

class QGraphicsScene;

namespace fusescope {

// Writes the whole scene to `path`; the extension picks the format: .png (raster, `scale`
// pixels per scene point, capped at 16384 pixels a side), .svg or .pdf (vector, scene points).
// Needs a QGuiApplication (fonts); the offscreen platform is enough.
bool exportScene(QGraphicsScene* scene, const QString& path, double scale = 1.0, QString* error = nullptr);

// Headless export of one stage of a run, as `fusescope-cli export` needs it: builds a
// GraphScene, lays it out on the calling thread (opened to the same ~60 items as the GUI)
// and writes it. Fails with a message for a missing stage or one with nothing to draw.
// `measuredTime`: nodes coloured by the run's traced kernel time, with the legend (a run without a
// trace is then an error).
bool exportStageImage(const BackendRun& run, const std::string& stageKey, const QString& path,
                      double scale = 1.0, QString* error = nullptr, bool measuredTime = false);

} // namespace fusescope
