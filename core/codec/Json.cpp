#include "Json.h"

#include "Utf8.h"

#include <cmath>
#include <cstdlib>
#include <vector>

namespace fusescope::codec {

using nlohmann::json;

std::string joinPath(const std::string& path, std::string_view key) {
    const bool plain = !key.empty() && key.find_first_of(".[]\" ") == std::string_view::npos;
    if (plain)
        return path.empty() ? std::string(key) : path + "." + std::string(key);
    // Keys that would make the path ambiguous are quoted, as JSON strings.
    return path + "[" + dumpJson(json(std::string(key))) + "]";
}

std::string joinPath(const std::string& path, size_t index) {
    return path + "[" + std::to_string(index) + "]";
}

namespace {

// Builds the DOM like nlohmann's own SAX DOM parser, and tracks where it is so that a limit or a
// syntax error can be reported with the JSON path of the value concerned. nlohmann's parser is
// iterative, so depth is bounded here, not by the stack.
class LimitedDomBuilder : public nlohmann::json_sax<json> {
public:
    LimitedDomBuilder(json& root, const JsonLimits& limits)
        : m_root(root)
        , m_limits(limits) {}

    bool null() override { return put(nullptr); }
    bool boolean(bool value) override { return put(value); }
    bool number_integer(number_integer_t value) override { return put(value); }
    bool number_unsigned(number_unsigned_t value) override { return put(value); }
    bool number_float(number_float_t value, const string_t& text) override {
        if (!std::isfinite(value))
            return fail(currentPath() + ": expected a finite number, got " + text);
        return put(value);
    }
    bool string(string_t& value) override {
        if (value.size() > m_limits.maxStringBytes)
            return fail(currentPath() + ": a string of " + std::to_string(value.size()) +
                        " bytes is over the limit of " + std::to_string(m_limits.maxStringBytes));
        return put(std::move(value));
    }
    bool binary(binary_t&) override { return fail(currentPath() + ": binary values are not JSON"); }
    bool start_object(std::size_t) override { return open(json::object()); }
    bool key(string_t& value) override {
        if (value.size() > m_limits.maxStringBytes)
            return fail(currentPath() + ": a key of " + std::to_string(value.size()) + " bytes");
        m_stack.back().key = std::move(value);
        return true;
    }
    bool end_object() override { return close(); }
    bool start_array(std::size_t) override { return open(json::array()); }
    bool end_array() override { return close(); }
    bool parse_error(std::size_t position, const std::string& token,
                     const nlohmann::detail::exception& ex) override {
        if (m_error.empty()) {
            // nlohmann reports a number past double's range as a parse error (out_of_range 406).
            if (ex.id == 406)
                m_error = currentPath() + ": expected a finite number, got " + token;
            else
                m_error = "byte " + std::to_string(position) +
                          (m_stack.empty() ? "" : " (in " + currentPath() + ")") + ": " + describe(ex.what());
            m_errorByte = position;
        }
        return false;
    }

    const std::string& error() const { return m_error; }
    size_t errorByte() const { return m_errorByte; }

private:
    struct Frame {
        json* container;
        std::string key; // the member being read, in an object
    };

    static std::string describe(const std::string& what) {
        // "[json.exception.parse_error.101] parse error at line 1, column 5: syntax error while
        // parsing value - invalid literal; last read: 'tru,'": keep what follows the location.
        // The token nlohmann quotes ("last read: '...'") can end inside a multi-byte character.
        const auto colon = what.find(": ");
        return utf8::sanitize(colon == std::string::npos ? what : what.substr(colon + 2));
    }

    std::string currentPath() const {
        std::string path = "$";
        // A path hundreds of levels deep says no more than its ends: keep those.
        constexpr size_t kHead = 6, kTail = 3;
        const bool elide = m_stack.size() > kHead + kTail + 1;
        for (size_t i = 0; i < m_stack.size(); ++i) {
            if (elide && i == kHead)
                path += "...";
            if (elide && i >= kHead && i + kTail < m_stack.size())
                continue;
            const Frame& frame = m_stack[i];
            // Below the top, the element being read is the array's last; at the top, the next.
            const bool top = i + 1 == m_stack.size();
            if (frame.container->is_array())
                path = joinPath(path, frame.container->size() - (top || frame.container->empty() ? 0 : 1));
            else
                path = joinPath(path, frame.key);
        }
        return path == "$" ? path : path.substr(path[1] == '.' ? 2 : 1);
    }

    bool fail(std::string message) {
        if (m_error.empty())
            m_error = std::move(message);
        return false;
    }

    json* place(json value) {
        if (m_stack.empty()) {
            m_root = std::move(value);
            return &m_root;
        }
        Frame& top = m_stack.back();
        if (top.container->size() >= m_limits.maxItems) {
            fail(currentPath() + ": more than " + std::to_string(m_limits.maxItems) + " items");
            return nullptr;
        }
        if (top.container->is_array()) {
            top.container->push_back(std::move(value));
            return &top.container->back();
        }
        json& slot = (*top.container)[top.key];
        slot = std::move(value);
        return &slot;
    }

    bool put(json value) { return place(std::move(value)) != nullptr; }

    bool open(json container) {
        if (m_stack.size() >= m_limits.maxDepth)
            return fail(currentPath() + ": nested deeper than " + std::to_string(m_limits.maxDepth) +
                        " levels");
        json* where = place(std::move(container));
        if (!where)
            return false;
        m_stack.push_back({where, {}});
        return true;
    }

    bool close() {
        m_stack.pop_back();
        return true;
    }

    json& m_root;
    const JsonLimits& m_limits;
    std::vector<Frame> m_stack;
    std::string m_error;
    size_t m_errorByte = 0;
};

} // namespace

Result<ParsedJson> parseJson(std::string_view text, const JsonLimits& limits) {
    ParsedJson out;
    std::string sanitized;
    if (!utf8::isValid(text)) {
        sanitized = utf8::sanitize(text, &out.replacedSequences);
        text = sanitized;
    }
    LimitedDomBuilder builder(out.value, limits);
    bool ok = false;
    try {
        ok = json::sax_parse(text.begin(), text.end(), &builder, json::input_format_t::json, /*strict=*/true);
    } catch (const std::exception& e) {
        // The SAX interface reports errors through parse_error; anything else (allocation) lands here.
        return Error{"json_invalid", std::string("cannot parse: ") + e.what()};
    }
    if (!ok || !builder.error().empty()) {
        // Limits and non-finite numbers name a JSON path; syntax errors a byte.
        const bool limit = builder.error().rfind("byte ", 0) != 0;
        // Cut inside a string, a number or a literal, nlohmann says "missing closing quote",
        // "invalid number"... rather than "unexpected end of input": a syntax error at the last
        // byte is a truncation too, unless that byte closed something ({"a": tru} is just wrong).
        const bool atEnd = !limit && !text.empty() && builder.errorByte() >= text.size() &&
                           std::string_view("}],:").find(text.back()) == std::string_view::npos;
        const bool truncated = builder.error().find("unexpected end of input") != std::string::npos || atEnd;
        return Error{truncated ? "json_truncated"
                     : limit   ? "json_limit"
                               : "json_invalid",
                     builder.error().empty() ? "not valid JSON" : builder.error()};
    }
    return out;
}

std::string dumpJson(const json& value, int indent) {
    return value.dump(indent, ' ', /*ensure_ascii=*/false, json::error_handler_t::replace);
}

nlohmann::json sizeJson(const std::string& dim) {
    const size_t digitsFrom = !dim.empty() && dim[0] == '-' ? 1 : 0;
    if (dim.size() > digitsFrom && dim.size() - digitsFrom <= 18 &&
        dim.find_first_not_of("0123456789", digitsFrom) == std::string::npos)
        return std::strtoll(dim.c_str(), nullptr, 10);
    return dim;
}

} // namespace fusescope::codec
