#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace fusescope {

// The last bytes a worker wrote to stderr. Kept as bytes (a model may write anything there), cut
// only on a UTF-8 character boundary, and made valid UTF-8, with U+FFFD for whatever is not, when
// it is shown: as a run's log or in an error message.
class StderrTail {
public:
    static constexpr size_t kDefaultBytes = 64 * 1024;

    explicit StderrTail(size_t maxBytes = kDefaultBytes)
        : m_max(maxBytes) {}

    void append(std::string_view bytes);
    bool empty() const { return m_bytes.empty(); }
    const std::string& bytes() const { return m_bytes; }

    // The whole tail as valid UTF-8.
    std::string text() const;
    // The last `count` lines as valid UTF-8, trailing newlines dropped, at most about `maxBytes`
    // long (the start cut off with "...") so that an error message stays readable.
    std::string lastLines(int count, size_t maxBytes = 2000) const;

private:
    std::string m_bytes;
    size_t m_max;
};

// lastLines of bytes that were never a StderrTail (a finished process's whole stderr).
std::string lastLinesOf(std::string_view bytes, int count, size_t maxBytes = 2000);

} // namespace fusescope
