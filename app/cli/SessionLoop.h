#pragma once

#include "capture/CompareSession.h"

#include <string>
#include <vector>

namespace fusescope::cli {

struct SessionLoopOptions {
    std::string out; // the report, saved after every row and at the end; empty: none
    bool quiet = false;
    bool progressJson = false;
};

// Runs `session` over `backends` to its end in the event loop, with progress on stderr; Ctrl+C and
// SIGTERM cancel the run in progress and the report of what finished is kept. The report is saved
// after every row, so a crash keeps it too. False when it could not be saved at the end (the
// error is printed). `compare` and `tune` share it.
bool runSessionLoop(CompareSession& session, const std::vector<std::string>& backends, const RunRequest& base,
                    const SessionLoopOptions& options);

} // namespace fusescope::cli
