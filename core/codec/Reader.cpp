#include "Reader.h"

#include "Json.h"

#include <cmath>
#include <limits>

namespace fusescope::codec {

using nlohmann::json;

const char* describeType(const json& v) {
    switch (v.type()) {
    case json::value_t::null:
        return "null";
    case json::value_t::object:
        return "an object";
    case json::value_t::array:
        return "an array";
    case json::value_t::string:
        return "a string";
    case json::value_t::boolean:
        return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
        return "an integer";
    case json::value_t::number_float:
        return "a number";
    default:
        return "a binary value";
    }
}

namespace {

// A short rendering of the offending value for messages: never the whole of a big one.
std::string excerpt(const json& v) {
    if (v.is_object())
        return "an object";
    if (v.is_array())
        return "an array of " + std::to_string(v.size());
    std::string text = dumpJson(v);
    if (text.size() > 40)
        text = text.substr(0, 37) + "...";
    return text;
}

} // namespace

Reader::Reader(const json& value, std::string origin)
    : m_value(&value)
    , m_origin(std::move(origin))
    , m_state(std::make_shared<State>()) {
}

Reader::Reader(const json& value, const Reader* parent, std::string key, size_t index,
               std::shared_ptr<State> state)
    : m_value(&value)
    , m_parent(parent)
    , m_key(std::move(key))
    , m_index(index)
    , m_state(std::move(state)) {
}

Reader Reader::child(const char* key, const json& value) const {
    return Reader(value, this, key, SIZE_MAX, m_state);
}

Reader Reader::child(size_t index, const json& value) const {
    return Reader(value, this, {}, index, m_state);
}

std::string Reader::path() const {
    if (!m_parent)
        return m_origin;
    const std::string base = m_parent->path();
    return m_index != SIZE_MAX ? joinPath(base, m_index) : joinPath(base, m_key);
}

bool Reader::has(const char* key) const {
    return member(key) != nullptr;
}

const json* Reader::member(const char* key) const {
    if (!m_value->is_object())
        return nullptr;
    const auto it = m_value->find(key);
    if (it == m_value->end() || it->is_null())
        return nullptr;
    return &*it;
}

void Reader::fail(const std::string& what) const {
    if (m_state->error)
        return;
    const std::string where = path();
    m_state->error = (where.empty() ? std::string("the record") : where) + ": " + what;
}

void Reader::failAt(const char* key, const std::string& what) const {
    if (m_state->error)
        return;
    const std::string where = joinPath(path(), key);
    m_state->error = where + ": " + what;
}

void Reader::typeError(const char* key, const json& got, const char* expected) const {
    failAt(key, std::string("expected ") + expected + ", got " + excerpt(got));
}

std::optional<Error> Reader::error(const std::string& code) const {
    if (!m_state->error)
        return std::nullopt;
    return Error{code, *m_state->error};
}

bool Reader::expectObject(bool nullAllowed) const {
    if (m_value->is_object() || (nullAllowed && m_value->is_null()))
        return true;
    fail(std::string("expected an object, got ") + excerpt(*m_value));
    return false;
}

std::string Reader::str(const char* key, std::string fallback) const {
    auto v = optStr(key);
    return v ? std::move(*v) : std::move(fallback);
}

std::optional<std::string> Reader::optStr(const char* key) const {
    const json* v = member(key);
    if (!v)
        return std::nullopt;
    if (!v->is_string()) {
        typeError(key, *v, "a string");
        return std::nullopt;
    }
    return v->get<std::string>();
}

bool Reader::boolean(const char* key, bool fallback) const {
    return optBool(key).value_or(fallback);
}

std::optional<bool> Reader::optBool(const char* key) const {
    const json* v = member(key);
    if (!v)
        return std::nullopt;
    if (!v->is_boolean()) {
        typeError(key, *v, "true or false");
        return std::nullopt;
    }
    return v->get<bool>();
}

std::optional<double> Reader::optNumber(const char* key) const {
    const json* v = member(key);
    if (!v)
        return std::nullopt;
    if (!v->is_number()) {
        typeError(key, *v, "a finite number");
        return std::nullopt;
    }
    const double d = v->get<double>();
    if (!std::isfinite(d)) { // parseJson never makes one; a json built in memory might
        typeError(key, *v, "a finite number");
        return std::nullopt;
    }
    return d;
}

double Reader::number(const char* key, double fallback) const {
    return optNumber(key).value_or(fallback);
}

std::optional<int64_t> Reader::optInt64(const char* key) const {
    const json* v = member(key);
    if (!v)
        return std::nullopt;
    if (v->is_number_unsigned()) {
        if (v->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
            typeError(key, *v, "an integer in the 64-bit range");
            return std::nullopt;
        }
        return static_cast<int64_t>(v->get<uint64_t>());
    }
    if (v->is_number_integer())
        return v->get<int64_t>();
    // Writers in other languages may write 3.0 for 3; a fraction is not an integer.
    if (v->is_number_float()) {
        const double d = v->get<double>();
        if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e15)
            return static_cast<int64_t>(d);
    }
    typeError(key, *v, "an integer");
    return std::nullopt;
}

int64_t Reader::int64(const char* key, int64_t fallback) const {
    return optInt64(key).value_or(fallback);
}

int Reader::integer(const char* key, int fallback) const {
    const auto v = optInt64(key);
    if (!v)
        return fallback;
    if (*v < std::numeric_limits<int>::min() || *v > std::numeric_limits<int>::max()) {
        typeError(key, *member(key), "an integer in the 32-bit range");
        return fallback;
    }
    return static_cast<int>(*v);
}

std::vector<std::string> Reader::strings(const char* key) const {
    std::vector<std::string> out;
    each(key, [&](const Reader& item) {
        if (!item.value().is_string()) {
            item.fail(std::string("expected a string, got ") + excerpt(item.value()));
            return;
        }
        out.push_back(item.value().get<std::string>());
    });
    return out;
}

std::vector<double> Reader::numbers(const char* key) const {
    std::vector<double> out;
    const json* v = member(key);
    if (v && v->is_array())
        out.reserve(v->size());
    each(key, [&](const Reader& item) {
        const json& x = item.value();
        if (!x.is_number() || !std::isfinite(x.get<double>())) {
            item.fail(std::string("expected a finite number, got ") + excerpt(x));
            return;
        }
        out.push_back(x.get<double>());
    });
    return out;
}

std::optional<Reader> Reader::object(const char* key) const {
    const json* v = member(key);
    if (!v)
        return std::nullopt;
    if (!v->is_object()) {
        typeError(key, *v, "an object");
        return std::nullopt;
    }
    return child(key, *v);
}

json Reader::raw(const char* key, json fallback) const {
    const json* v = member(key);
    return v ? *v : std::move(fallback);
}

int64_t Reader::int64At(size_t index) const {
    if (!m_value->is_array() || index >= m_value->size()) {
        fail("expected at least " + std::to_string(index + 1) + " elements");
        return 0;
    }
    const json& v = (*m_value)[index];
    if (v.is_number_unsigned() &&
        v.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        return static_cast<int64_t>(v.get<uint64_t>());
    if (v.is_number_integer())
        return v.get<int64_t>();
    child(index, v).fail(std::string("expected an integer, got ") + excerpt(v));
    return 0;
}

std::string Reader::strAt(size_t index) const {
    if (!m_value->is_array() || index >= m_value->size()) {
        fail("expected at least " + std::to_string(index + 1) + " elements");
        return {};
    }
    const json& v = (*m_value)[index];
    if (!v.is_string()) {
        child(index, v).fail(std::string("expected a string, got ") + excerpt(v));
        return {};
    }
    return v.get<std::string>();
}

int boundedInt(const Reader& r, const char* key, int fallback, int min) {
    const int v = r.integer(key, fallback);
    if (r.has(key) && v < min && !r.failed())
        r.failAt(key, "expected an integer >= " + std::to_string(min) + ", got " + std::to_string(v));
    return v;
}

json withoutNulls(const json& object) {
    json out = json::object();
    if (object.is_object())
        for (const auto& [key, value] : object.items())
            if (!value.is_null())
                out[key] = value;
    return out;
}

} // namespace fusescope::codec
