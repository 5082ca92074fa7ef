#pragma once

#include "model/Result.h"

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace fusescope::codec {

// Reads one JSON record into typed fields without ever throwing. Every accessor names the
// member it wants; a member that is absent or null yields the fallback (readers tolerate what
// older writers left out and ignore what they don't know), a member of the wrong type records
// the first error with its JSON path ("backends[2].samples.eager[17]: expected a finite number,
// got \"x\"") and yields the fallback too, so a decoder reads straight through and asks
// `error()` once at the end. Paths are built only when something is wrong.
class Reader {
public:
    // The root of a record; `origin` prefixes paths ("backends[2]", or empty).
    explicit Reader(const nlohmann::json& value, std::string origin = {});

    const nlohmann::json& value() const { return *m_value; }
    bool isNull() const { return m_value->is_null(); }
    bool isObject() const { return m_value->is_object(); }
    bool has(const char* key) const;
    // This value's path, for messages.
    std::string path() const;

    // Fails unless this value is an object (or, when allowed, null).
    bool expectObject(bool nullAllowed = false) const;

    // Members of an object. Wrong types fail; absent or null members give the fallback.
    std::string str(const char* key, std::string fallback = {}) const;
    bool boolean(const char* key, bool fallback = false) const;
    double number(const char* key, double fallback = 0) const;
    int integer(const char* key, int fallback = 0) const;
    int64_t int64(const char* key, int64_t fallback = 0) const;
    std::optional<std::string> optStr(const char* key) const;
    std::optional<double> optNumber(const char* key) const;
    std::optional<int64_t> optInt64(const char* key) const;
    std::optional<bool> optBool(const char* key) const;
    std::vector<std::string> strings(const char* key) const;
    std::vector<double> numbers(const char* key) const;

    // A member that must be an object (or absent/null: then nullopt). Use the returned Reader
    // to read its members.
    std::optional<Reader> object(const char* key) const;
    // A member that must be an array (absent/null: empty). Calls fn(Reader item) per element.
    template <typename Fn> void each(const char* key, Fn&& fn) const;
    // This value's elements when it is an array (fails otherwise).
    template <typename Fn> void elements(Fn&& fn) const;
    // A member kept as JSON as it is, after `check` accepted its shape; absent: fallback.
    nlohmann::json raw(const char* key, nlohmann::json fallback = nullptr) const;

    // Element access for arrays of scalars (trace events are arrays, not objects).
    size_t size() const { return m_value->is_array() ? m_value->size() : 0; }
    int64_t int64At(size_t index) const;
    std::string strAt(size_t index) const;

    // Records an error at this value (or at member `key`); the first one wins.
    void fail(const std::string& what) const;
    void failAt(const char* key, const std::string& what) const;
    bool failed() const { return m_state->error.has_value(); }
    // The first error, as an Error with `code` and "<path>: <what>" as its message.
    std::optional<Error> error(const std::string& code) const;

    // A child value of this one (for decoders that walk by hand).
    Reader child(const char* key, const nlohmann::json& value) const;
    Reader child(size_t index, const nlohmann::json& value) const;

private:
    struct State {
        std::optional<std::string> error;
    };
    Reader(const nlohmann::json& value, const Reader* parent, std::string key, size_t index,
           std::shared_ptr<State> state);

    const nlohmann::json* member(const char* key) const; // null when absent or JSON null
    void typeError(const char* key, const nlohmann::json& got, const char* expected) const;

    const nlohmann::json* m_value;
    // Where this value is, kept as links to the parent so no string is built on the good path.
    // A parent Reader always outlives its children (they are made and used inside its calls).
    const Reader* m_parent = nullptr;
    std::string m_key;
    size_t m_index = SIZE_MAX;
    std::string m_origin;
    std::shared_ptr<State> m_state;
};

// "a string", "an array", "null" ... for messages.
const char* describeType(const nlohmann::json& value);

// The error code of a record that does not decode (docs/report-format.md).
inline constexpr const char* kRecordCorrupt = "report_corrupt";

// Integers that index or count things: 32-bit, and not below `min` (fails with the path).
int boundedInt(const Reader& r, const char* key, int fallback, int min);

// A record decoded by `read(Reader, T&)` from the root `j`: the record, or the first bad field.
template <typename T, typename Fn>
Result<T> decodeWith(const nlohmann::json& j, const std::string& origin, Fn&& read) {
    Reader r(j, origin);
    T out{};
    if (r.expectObject())
        read(r, out);
    if (auto err = r.error(kRecordCorrupt))
        return *err;
    return out;
}

// The object's members without those that are null: a reader treats a null member as absent.
nlohmann::json withoutNulls(const nlohmann::json& object);

template <typename Fn> void Reader::each(const char* key, Fn&& fn) const {
    const nlohmann::json* v = member(key);
    if (!v)
        return;
    if (!v->is_array()) {
        typeError(key, *v, "an array");
        return;
    }
    const Reader list = child(key, *v);
    for (size_t i = 0; i < v->size() && !failed(); ++i)
        fn(list.child(i, (*v)[i]));
}

template <typename Fn> void Reader::elements(Fn&& fn) const {
    if (!m_value->is_array()) {
        fail(std::string("expected an array, got ") + describeType(*m_value));
        return;
    }
    for (size_t i = 0; i < m_value->size() && !failed(); ++i)
        fn(child(i, (*m_value)[i]));
}

} // namespace fusescope::codec
