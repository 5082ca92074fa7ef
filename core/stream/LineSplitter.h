#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fusescope {

// Cuts a byte stream into '\n'-terminated lines, however the bytes arrive in chunks.
class LineSplitter {
public:
    // Lines longer than this are a protocol error, not a reason to exhaust memory.
    static constexpr size_t kMaxLineBytes = size_t(512) << 20;

    // Appends bytes and returns the lines they completed, without their '\n' (or "\r\n").
    std::vector<std::string> feed(std::string_view bytes);

    // Bytes after the last '\n': non-empty at end of stream means a truncated line.
    const std::string& pending() const { return m_pending; }
    bool overflowed() const { return m_overflowed; }

private:
    std::string m_pending;
    bool m_overflowed = false;
};

} // namespace fusescope
