#include "Utf8.h"

namespace fusescope::utf8 {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

bool isContinuation(unsigned char c) {
    return (c & 0xC0) == 0x80;
}

// Length of the well-formed sequence at `pos`, or 0 when the bytes there are ill-formed
// (Unicode Table 3-7: well-formed UTF-8 byte sequences).
size_t sequenceLength(std::string_view s, size_t pos) {
    const auto b = [&](size_t i) { return static_cast<unsigned char>(s[pos + i]); };
    const size_t left = s.size() - pos;
    const unsigned char c = b(0);
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        return left >= 2 && isContinuation(b(1)) ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
        if (left < 3 || !isContinuation(b(1)) || !isContinuation(b(2)))
            return 0;
        if (c == 0xE0 && b(1) < 0xA0)
            return 0; // overlong
        if (c == 0xED && b(1) > 0x9F)
            return 0; // UTF-16 surrogate
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if (left < 4 || !isContinuation(b(1)) || !isContinuation(b(2)) || !isContinuation(b(3)))
            return 0;
        if (c == 0xF0 && b(1) < 0x90)
            return 0; // overlong
        if (c == 0xF4 && b(1) > 0x8F)
            return 0; // past U+10FFFF
        return 4;
    }
    return 0;
}

// How many bytes from `pos` form the longest prefix of some well-formed sequence (at least 1).
size_t maximalSubpart(std::string_view s, size_t pos) {
    const auto c = static_cast<unsigned char>(s[pos]);
    size_t need = 0;
    unsigned char lo = 0x80, hi = 0xBF; // range of the second byte
    if (c >= 0xC2 && c <= 0xDF)
        need = 1;
    else if (c >= 0xE0 && c <= 0xEF) {
        need = 2;
        lo = c == 0xE0 ? 0xA0 : 0x80;
        hi = c == 0xED ? 0x9F : 0xBF;
    } else if (c >= 0xF0 && c <= 0xF4) {
        need = 3;
        lo = c == 0xF0 ? 0x90 : 0x80;
        hi = c == 0xF4 ? 0x8F : 0xBF;
    }
    size_t n = 1;
    for (size_t i = 0; i < need && pos + n < s.size(); ++i) {
        const auto b = static_cast<unsigned char>(s[pos + n]);
        if (i == 0 ? (b < lo || b > hi) : !isContinuation(b))
            break;
        ++n;
    }
    return n;
}

} // namespace

bool isValid(std::string_view bytes) {
    for (size_t pos = 0; pos < bytes.size();) {
        const size_t n = sequenceLength(bytes, pos);
        if (n == 0)
            return false;
        pos += n;
    }
    return true;
}

std::string sanitize(std::string_view bytes, size_t* replaced) {
    size_t count = 0;
    std::string out;
    out.reserve(bytes.size());
    for (size_t pos = 0; pos < bytes.size();) {
        const size_t n = sequenceLength(bytes, pos);
        if (n > 0) {
            out.append(bytes.substr(pos, n));
            pos += n;
            continue;
        }
        // One replacement per maximal subpart (Unicode 3.9, "U+FFFD Substitution of Maximal
        // Subparts"): a possible lead byte together with the continuation bytes that could still
        // have completed it; any other byte alone.
        ++count;
        out.append(kReplacement);
        pos += maximalSubpart(bytes, pos);
    }
    if (replaced)
        *replaced = count;
    return out;
}

size_t boundaryAtOrBefore(std::string_view bytes, size_t pos) {
    if (pos >= bytes.size())
        return bytes.size();
    // At most three continuation bytes precede a character's last byte.
    for (size_t back = 0; back < 4 && pos >= back; ++back)
        if (!isContinuation(static_cast<unsigned char>(bytes[pos - back])))
            return pos - back;
    return pos; // not UTF-8 here anyway: cutting anywhere is as good
}

size_t boundaryAtOrAfter(std::string_view bytes, size_t pos) {
    for (size_t ahead = 0; ahead < 4; ++ahead) {
        if (pos + ahead >= bytes.size())
            return bytes.size();
        if (!isContinuation(static_cast<unsigned char>(bytes[pos + ahead])))
            return pos + ahead;
    }
    return pos;
}

std::string_view tail(std::string_view bytes, size_t maxBytes) {
    if (bytes.size() <= maxBytes)
        return bytes;
    return bytes.substr(boundaryAtOrAfter(bytes, bytes.size() - maxBytes));
}

} // namespace fusescope::utf8
