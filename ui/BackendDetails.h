#pragma once

#include "model/Report.h"

#include <QString>

namespace fusescope {

// The details pane under the comparison table: one backend's status, error, notes, warnings,
// speedup and confidence, placement, accuracy, compile time, memory, stages, graph breaks,
// traceback and the tail of its worker log, as plain text.
QString backendDetailsText(const Report& report, const BackendRun& run);

} // namespace fusescope
