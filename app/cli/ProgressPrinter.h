#pragma once

#include "stream/WorkerStream.h"

#include <QElapsedTimer>
#include <string>

namespace fusescope::cli {

// Shows what each backend is doing on stderr: a live status line on a terminal, one line per
// phase change otherwise (logs, CI), or with `--progress-json` one JSON object per line for tools
// (the Python package; the contract is docs/cli.md, "Progress as JSON lines").
class ProgressPrinter {
public:
    enum class Style { Text, Json };
    ProgressPrinter(int backendCount, bool enabled, Style style = Style::Text);

    void started(int index, const std::string& backend);
    // The assignment search appended a run.
    void added() { ++m_count; }
    void event(const StreamEvent& event);
    void finished(int index, const std::string& backend, const std::string& status,
                  const std::string& detail);

private:
    void print(const std::string& line, bool transient);
    void printJson(const char* event, const std::string& backend, int index, const std::string& phase,
                   double fraction, const std::string& message, const std::string& status);

    int m_count;
    bool m_enabled;
    bool m_tty;
    Style m_style;
    int m_index = 0;
    std::string m_backend;
    std::string m_phase;
    QElapsedTimer m_clock;
    bool m_transientShown = false;
};

} // namespace fusescope::cli
