#include "StderrTail.h"

#include "codec/Utf8.h"

namespace fusescope {

void StderrTail::append(std::string_view bytes) {
    if (bytes.size() >= m_max) {
        m_bytes.assign(utf8::tail(bytes, m_max));
        return;
    }
    m_bytes.append(bytes);
    if (m_bytes.size() > m_max)
        m_bytes.erase(0, utf8::boundaryAtOrAfter(m_bytes, m_bytes.size() - m_max));
}

std::string StderrTail::text() const {
    return utf8::sanitize(m_bytes);
}

std::string StderrTail::lastLines(int count, size_t maxBytes) const {
    return lastLinesOf(m_bytes, count, maxBytes);
}

std::string lastLinesOf(std::string_view bytes, int count, size_t maxBytes) {
    size_t end = bytes.size();
    while (end > 0 && (bytes[end - 1] == '\n' || bytes[end - 1] == '\r'))
        --end;
    size_t start = end;
    for (int i = 0; i < count && start > 0; ++i) {
        const size_t newline = bytes.rfind('\n', start - 1);
        if (newline == std::string_view::npos) {
            start = 0;
            break;
        }
        start = newline;
    }
    if (start < end && bytes[start] == '\n')
        ++start;
    std::string_view lines = bytes.substr(start, end - start);
    if (lines.size() <= maxBytes)
        return utf8::sanitize(lines);
    return "..." + utf8::sanitize(utf8::tail(lines, maxBytes));
}

} // namespace fusescope
