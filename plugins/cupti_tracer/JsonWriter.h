#pragma once

#include <cstdint>
#include <string>

namespace fusescope::cupti {

// Appends a JSON string literal. The tracer library writes its chunks by hand so that it needs
// no JSON library on a bare GPU machine; names are the only strings, so this is all it takes.
inline void appendJsonString(std::string& out, const std::string& text) {
    static const char* hex = "0123456789abcdef";
    out += '"';
    for (unsigned char c : text) {
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        default:
            if (c < 0x20) {
                out += "\\u00";
                out += hex[c >> 4];
                out += hex[c & 0xf];
            } else {
                out += static_cast<char>(c); // UTF-8 bytes pass through unchanged
            }
        }
    }
    out += '"';
}

inline void appendJsonInt(std::string& out, int64_t value) {
    out += std::to_string(value);
}

} // namespace fusescope::cupti
