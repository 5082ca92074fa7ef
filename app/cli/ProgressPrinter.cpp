#include "ProgressPrinter.h"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <unistd.h>

namespace fusescope::cli {

ProgressPrinter::ProgressPrinter(int backendCount, bool enabled, Style style)
    : m_count(backendCount)
    , m_enabled(enabled)
    , m_tty(style == Style::Text && isatty(STDERR_FILENO) != 0)
    , m_style(style) {
}

void ProgressPrinter::printJson(const char* event, const std::string& backend, int index,
                                const std::string& phase, double fraction, const std::string& message,
                                const std::string& status) {
    if (!m_enabled)
        return;
    nlohmann::json line = {{"event", event},
                           {"index", index},
                           {"count", m_count},
                           {"backend", backend},
                           {"elapsed_s", m_clock.isValid() ? m_clock.elapsed() / 1000.0 : 0.0}};
    if (std::string(event) == "progress") {
        line["phase"] = phase;
        line["fraction"] = fraction >= 0 ? nlohmann::json(fraction) : nlohmann::json(nullptr);
    }
    if (!status.empty())
        line["status"] = status;
    line["message"] = message;
    // A backend's message may hold anything a model printed: invalid UTF-8 becomes U+FFFD.
    std::fprintf(stderr, "%s\n", line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    std::fflush(stderr);
}

void ProgressPrinter::print(const std::string& line, bool transient) {
    if (!m_enabled)
        return;
    if (m_tty) {
        std::fprintf(stderr, "\r\033[K%s%s", line.c_str(), transient ? "" : "\n");
        m_transientShown = transient;
    } else if (!transient) {
        std::fprintf(stderr, "%s\n", line.c_str());
    }
    std::fflush(stderr);
}

void ProgressPrinter::started(int index, const std::string& backend) {
    m_index = index;
    m_backend = backend;
    m_phase.clear();
    m_clock.start();
    if (m_style == Style::Json)
        return printJson("started", backend, index, {}, -1, {}, {});
    print("[" + std::to_string(index + 1) + "/" + std::to_string(m_count) + "] " + backend + ": starting",
          false);
}

void ProgressPrinter::event(const StreamEvent& ev) {
    if (ev.kind == StreamEvent::Kind::Malformed) {
        if (m_style == Style::Json)
            return printJson("protocol_problem", m_backend, m_index, {}, -1, ev.message, {});
        print("[" + std::to_string(m_index + 1) + "/" + std::to_string(m_count) + "] " + m_backend +
                  ": protocol problem, " + ev.message,
              false);
        return;
    }
    if (ev.kind != StreamEvent::Kind::Progress)
        return;
    if (m_style == Style::Json) {
        // Every update, as on a terminal: a tool draws its own bar.
        m_phase = ev.phase;
        return printJson("progress", m_backend, m_index, ev.phase, ev.fraction, ev.message, {});
    }
    char pct[16] = "";
    if (ev.fraction >= 0)
        std::snprintf(pct, sizeof pct, "%3d%%", static_cast<int>(ev.fraction * 100 + 0.5));
    char elapsed[32];
    std::snprintf(elapsed, sizeof elapsed, "%.1f s", m_clock.elapsed() / 1000.0);
    const std::string line = "[" + std::to_string(m_index + 1) + "/" + std::to_string(m_count) + "] " +
                             m_backend + ": " + pct + " " + ev.phase + " " + elapsed +
                             (ev.message.empty() ? "" : " - " + ev.message);
    // On a terminal every update redraws one line; in a log only phase changes are worth a line.
    const bool newPhase = ev.phase != m_phase;
    m_phase = ev.phase;
    print(line, !(newPhase && !m_tty));
}

void ProgressPrinter::finished(int index, const std::string& backend, const std::string& status,
                               const std::string& detail) {
    if (m_style == Style::Json)
        return printJson("finished", backend, index, {}, -1, detail, status);
    char elapsed[32];
    std::snprintf(elapsed, sizeof elapsed, "%.1f s", m_clock.isValid() ? m_clock.elapsed() / 1000.0 : 0.0);
    print("[" + std::to_string(index + 1) + "/" + std::to_string(m_count) + "] " + backend + ": " + status +
              " after " + elapsed + (detail.empty() ? "" : " - " + detail),
          false);
}

} // namespace fusescope::cli
