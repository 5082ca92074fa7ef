#include "LineSplitter.h"

namespace fusescope {

std::vector<std::string> LineSplitter::feed(std::string_view bytes) {
    std::vector<std::string> lines;
    size_t start = 0;
    while (start < bytes.size()) {
        const size_t nl = bytes.find('\n', start);
        if (nl == std::string_view::npos) {
            m_pending.append(bytes.substr(start));
            break;
        }
        m_pending.append(bytes.substr(start, nl - start));
        if (!m_pending.empty() && m_pending.back() == '\r')
            m_pending.pop_back();
        lines.push_back(std::move(m_pending));
        m_pending.clear();
        start = nl + 1;
    }
    if (m_pending.size() > kMaxLineBytes) {
        m_overflowed = true;
        m_pending.clear();
    }
    return lines;
}

} // namespace fusescope
