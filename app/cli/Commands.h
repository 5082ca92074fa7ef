#pragma once

#include "capture/RunRequest.h"

#include <string>
#include <vector>

namespace fusescope::cli {

struct CompareOptions {
    std::string model;
    std::vector<std::string> backends;
    std::string out;
    bool json = false;
    bool quiet = false;
    RunRequest base;
};

int runCompare(const CompareOptions& options);
int runShow(const std::string& path, bool json);
int runBackends(bool json);

} // namespace fusescope::cli
