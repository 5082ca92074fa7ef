#include "Tuning.h"

#include <cstdio>

namespace fusescope {

std::string tuningLine(const Tuning& t) {
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.2f", t.seconds);
    const std::string method = t.method.substr(0, t.method.find(' '));
    std::string line = "tuning " + std::string(seconds) + " s (" + (method.empty() ? "tuning" : method) +
                       ", not in compile): ";
    if (t.cache == "hit") {
        line +=
            "schedules from the tuning cache, tuned earlier with tune=" + std::to_string(t.trialsRequested);
        if (t.trialsWhenTuned)
            line += " (" + std::to_string(*t.trialsWhenTuned) + " trials)";
    } else {
        line += std::to_string(t.trials) + " of " + std::to_string(t.trialsRequested) + " trials";
        if (!t.stoppedBy.empty())
            line += ", stopped by " + t.stoppedBy;
    }
    line += ", " + std::to_string(t.tunedTasks) + " of " + std::to_string(t.tasks) +
            " kernels tuned, cache " + (t.cache.empty() ? std::string("?") : t.cache);
    return line;
}

} // namespace fusescope
