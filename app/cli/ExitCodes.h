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

} // namespace fusescope::cli
