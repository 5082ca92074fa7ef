#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace fusescope::utf8 {

// Text that came from outside (a worker's stderr, a model's messages, a file) is bytes until it
// is shown. These turn bytes into valid UTF-8 without ever failing: every ill-formed sequence
// (a stray continuation byte, a truncated or overlong sequence, a surrogate, a code point past
// U+10FFFF) becomes one U+FFFD REPLACEMENT CHARACTER, as the Unicode standard recommends.

// True when `bytes` is well-formed UTF-8.
bool isValid(std::string_view bytes);

// `bytes` with every ill-formed sequence replaced by U+FFFD; `replaced` counts the replacements.
std::string sanitize(std::string_view bytes, size_t* replaced = nullptr);

// The largest position <= pos that does not fall inside a multi-byte character, so that
// bytes.substr(0, result) never ends with half a character.
size_t boundaryAtOrBefore(std::string_view bytes, size_t pos);
// The smallest position >= pos that does not fall inside a multi-byte character, so that
// bytes.substr(result) never starts with half a character.
size_t boundaryAtOrAfter(std::string_view bytes, size_t pos);

// The last `maxBytes` bytes of `bytes` or fewer, starting on a character boundary.
std::string_view tail(std::string_view bytes, size_t maxBytes);

} // namespace fusescope::utf8
