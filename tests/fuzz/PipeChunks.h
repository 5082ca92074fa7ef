#pragma once
// The input layout of the stream targets (fuzz_worker_stream, fuzz_export_stream): byte 0 picks
// the largest chunk (2^(byte0 & 15) bytes: 0 feeds byte by byte), byte 1 seeds the chunk lengths,
// the rest is the stream, handed to `feed` in chunks the way a pipe delivers them. Seeds carry
// this header (scripts/fuzz_seeds.py), so mutations of it move the split points. False (nothing
// fed) for inputs under 2 bytes.
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace fusescope::fuzz {

template <class Feed> bool feedInPipeChunks(const uint8_t* data, size_t size, Feed&& feed) {
    if (size < 2)
        return false;
    const size_t maxChunk = size_t(1) << (data[0] & 15);
    uint32_t state = 0x9e3779b9u ^ data[1];
    const std::string_view bytes(reinterpret_cast<const char*>(data) + 2, size - 2);
    for (size_t pos = 0; pos < bytes.size();) {
        state = state * 1664525u + 1013904223u;
        const size_t length = 1 + (state >> 8) % maxChunk;
        feed(bytes.substr(pos, length));
        pos += length;
    }
    return true;
}

} // namespace fusescope::fuzz
