#pragma once

#include <nlohmann/json.hpp>
#include <optional>

namespace fusescope::jsonutil {

// Reads `key` as T, or `fallback` when it is absent or null: readers ignore what they don't know
// and tolerate what older writers left out.
template <typename T> T valueOr(const nlohmann::json& j, const char* key, T fallback) {
    auto it = j.find(key);
    if (it == j.end() || it->is_null())
        return fallback;
    return it->template get<T>();
}

template <typename T> std::optional<T> optional(const nlohmann::json& j, const char* key) {
    auto it = j.find(key);
    if (it == j.end() || it->is_null())
        return std::nullopt;
    return it->template get<T>();
}

template <typename T> nlohmann::json orNull(const std::optional<T>& value) {
    return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

} // namespace fusescope::jsonutil
