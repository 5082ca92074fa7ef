#pragma once

namespace fusescope::cli {

// fusescope-cli exit codes (docs/cli.md): scripts tell a complete comparison from a partial one.
enum ExitCode : int {
    kExitOk = 0,        // every requested backend ran
    kExitError = 1,     // nothing to report: bad report file, no worker, or the report could not be
                        // written at the end (the output path is checked first; see kExitUsage)
    kExitPartial = 2,   // some backends ran, others failed or were unavailable (results saved)
    kExitAllFailed = 3, // no backend ran (results, i.e. the errors, saved)
    kExitCancelled = 4, // interrupted (Ctrl+C); what finished is saved
    kExitUsage = 64,    // bad command line, before anything ran: an option out of range, a path that
                        // is not a file, not UTF-8, not writable, or the model itself as --out
};

// `fusescope-cli check` (docs/ci.md), a contract CI scripts rely on: 0 nothing regressed beyond
// the thresholds and the noise, 1 something did (each regression named), 2 unusable input (a file
// or folder that cannot be read, nothing in common to compare, an output that cannot be written).
// A bad command line is kExitUsage, as for every command.
enum CheckExitCode : int {
    kCheckPass = 0,
    kCheckRegressed = 1,
    kCheckUnusable = 2,
};

} // namespace fusescope::cli
