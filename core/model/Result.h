#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace fusescope {

// A failure that a user can act on: a stable code (see docs/protocol.md for the
// worker's codes) and a message that names the file or backend concerned.
struct Error {
    std::string code;
    std::string message;
};

// Either a value or an Error. Small on purpose: std::expected needs C++23.
template <typename T> class Result {
public:
    Result(T value)
        : m_data(std::move(value)) {}
    Result(Error error)
        : m_data(std::move(error)) {}

    bool ok() const { return std::holds_alternative<T>(m_data); }
    explicit operator bool() const { return ok(); }

    T& value() & { return std::get<T>(m_data); }
    const T& value() const& { return std::get<T>(m_data); }
    // On a temporary the value is moved out, not referenced: `const auto& v = f().value();` or
    // `for (auto& x : f().value())` would otherwise hold a reference into a destroyed Result.
    T value() && { return std::get<T>(std::move(m_data)); }
    const Error& error() const& { return std::get<Error>(m_data); }
    Error error() && { return std::get<Error>(std::move(m_data)); }

private:
    std::variant<T, Error> m_data;
};

// For operations that produce nothing but may fail.
using Status = std::optional<Error>;

} // namespace fusescope
