#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

namespace fusescope::cli {

// `sweep` and `suite` (docs/sweeps.md): kept apart from main.cpp, which only registers them.
struct SweepCommands {
    CLI::App* sweep = nullptr;
    CLI::App* suite = nullptr;
    std::string spec;
    std::string out;
    std::string executor = "local";
    std::string rayAddress;
    int jobs = 1;
    bool retryFailed = false;
    bool quiet = false;
    bool json = false; // sweep and suite: print suite.json instead of the table
    std::string dir;   // suite
    std::string csv;   // suite --csv FILE
};

void addSweepCommands(CLI::App& cli, SweepCommands& commands);
// The exit code when one of them was chosen, else nullopt. Needs a QCoreApplication.
std::optional<int> runSweepCommands(const SweepCommands& commands);

} // namespace fusescope::cli
