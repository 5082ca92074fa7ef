#pragma once

#include "stream/WorkerStream.h"

#include <QElapsedTimer>
#include <string>

namespace fusescope::cli {

// Shows what each backend is doing on stderr: a live status line on a terminal, one line per
// phase change otherwise (logs, CI).
class ProgressPrinter {
public:
    ProgressPrinter(int backendCount, bool enabled);

    void started(int index, const std::string& backend);
    // The assignment search appended a run.
    void added() { ++m_count; }
    void event(const StreamEvent& event);
    void finished(int index, const std::string& backend, const std::string& status,
                  const std::string& detail);

private:
    void print(const std::string& line, bool transient);

    int m_count;
    bool m_enabled;
    bool m_tty;
    int m_index = 0;
    std::string m_backend;
    std::string m_phase;
    QElapsedTimer m_clock;
    bool m_transientShown = false;
};

} // namespace fusescope::cli
