#include "StageSpans.h"

#include "Reader.h"
#include "RunCodec.h"
#include "StageCodec.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <system_error>
#include <thread>

namespace fusescope::codec {

namespace {

constexpr size_t kNone = std::string_view::npos;

bool isSpace(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// The position after the string that opens at t[pos] ('"'); kNone when it does not end. Quotes
// and backslashes never occur inside a multi-byte UTF-8 sequence, so bytes are enough.
size_t skipString(std::string_view t, size_t pos) {
    size_t from = pos + 1;
    while (from < t.size()) {
        const void* quote = std::memchr(t.data() + from, '"', t.size() - from);
        if (!quote)
            return kNone;
        const size_t at = static_cast<size_t>(static_cast<const char*>(quote) - t.data());
        size_t slashes = 0;
        while (at - slashes > pos + 1 && t[at - slashes - 1] == '\\')
            ++slashes;
        if (slashes % 2 == 0)
            return at + 1;
        from = at + 1;
    }
    return kNone;
}

// The position after the array or object that opens at t[pos]; kNone when its brackets do not
// close in order.
size_t skipContainer(std::string_view t, size_t pos) {
    std::vector<char> open;
    for (size_t i = pos; i < t.size(); ++i) {
        switch (const char c = t[i]) {
        case '"':
            i = skipString(t, i);
            if (i == kNone)
                return kNone;
            --i;
            break;
        case '[':
        case '{':
            open.push_back(c == '[' ? ']' : '}');
            break;
        case ']':
        case '}':
            if (open.empty() || open.back() != c)
                return kNone;
            open.pop_back();
            if (open.empty())
                return i + 1;
            break;
        default:
            break;
        }
    }
    return kNone;
}

// The containers the scan walks into: everything else is skipped whole.
enum class Role { Root, Backends, Backend };

struct Frame {
    Frame(Role r, bool isObject)
        : role(r)
        , object(isObject) {}
    Role role;
    bool object;
    bool expectKey = true;   // in an object: the next string is a key
    std::string_view key;    // in an object: the member being read
    size_t index = 0;        // in an array: the element being read
    size_t backend = 0;      // in a backend: its index in backends
    int interestingKeys = 0; // "backends" in the root, "stages" in a backend
};

} // namespace

std::optional<std::vector<StageSpan>> findStageSpans(std::string_view t) {
    std::vector<StageSpan> spans;
    std::vector<Frame> stack;
    size_t i = 0;
    while (i < t.size() && isSpace(t[i]))
        ++i;
    if (i == t.size() || t[i] != '{')
        return std::nullopt;
    stack.emplace_back(Role::Root, true);
    ++i;
    while (!stack.empty()) {
        if (i >= t.size())
            return std::nullopt;
        Frame& top = stack.back();
        const char c = t[i];
        if (isSpace(c) || c == ':') {
            ++i;
        } else if (c == '"') {
            const size_t end = skipString(t, i);
            if (end == kNone)
                return std::nullopt;
            if (top.object && top.expectKey) {
                top.key = t.substr(i + 1, end - i - 2);
                top.expectKey = false;
                // A key written with escapes could equal one we look for: read such a file whole.
                if (top.role != Role::Backends && top.key.find('\\') != std::string_view::npos)
                    return std::nullopt;
                const std::string_view wanted = top.role == Role::Root ? "backends" : "stages";
                if (top.key == wanted && ++top.interestingKeys > 1)
                    return std::nullopt; // duplicated: which one the parser keeps is its business
            }
            i = end;
        } else if (c == ',') {
            if (top.object)
                top.expectKey = true;
            else
                ++top.index;
            ++i;
        } else if (c == '{' || c == '[') {
            if (top.role == Role::Root && c == '[' && top.key == "backends") {
                stack.emplace_back(Role::Backends, false);
                ++i;
            } else if (top.role == Role::Backends && c == '{') {
                Frame backend{Role::Backend, true};
                backend.backend = top.index;
                stack.push_back(backend);
                ++i;
            } else {
                const size_t end = skipContainer(t, i);
                if (end == kNone)
                    return std::nullopt;
                if (top.role == Role::Backend && c == '[' && top.key == "stages")
                    spans.push_back({top.backend, i, end});
                i = end;
            }
        } else if (c == '}' || c == ']') {
            if (top.object != (c == '}'))
                return std::nullopt;
            stack.pop_back();
            ++i;
        } else {
            ++i; // a number or a literal; the parser judges it
        }
    }
    while (i < t.size() && isSpace(t[i]))
        ++i;
    if (i != t.size())
        return std::nullopt;
    return spans;
}

std::string withoutSpans(std::string_view text, const std::vector<StageSpan>& spans) {
    size_t cut = 0;
    for (const auto& s : spans)
        cut += s.end - s.begin;
    std::string out;
    out.reserve(text.size() - cut + 2 * spans.size());
    size_t from = 0;
    for (const auto& s : spans) {
        out.append(text.substr(from, s.begin - from));
        out.append("[]");
        from = s.end;
    }
    out.append(text.substr(from));
    return out;
}

namespace {

// [begin, end) of each element of the array text[span.begin, span.end); nullopt when it is not
// plainly shaped so (the span is then parsed whole, and the parser names the fault).
std::optional<std::vector<std::pair<size_t, size_t>>> arrayElements(std::string_view t,
                                                                    const StageSpan& span) {
    std::vector<std::pair<size_t, size_t>> out;
    size_t i = span.begin + 1;
    auto skipSpace = [&] {
        while (i < span.end && isSpace(t[i]))
            ++i;
    };
    skipSpace();
    if (i < span.end && t[i] == ']')
        return out;
    for (;;) {
        skipSpace();
        if (i >= span.end)
            return std::nullopt;
        const size_t begin = i;
        if (t[i] == '{' || t[i] == '[')
            i = skipContainer(t, i);
        else if (t[i] == '"')
            i = skipString(t, i);
        else
            while (i < span.end && t[i] != ',' && t[i] != ']' && !isSpace(t[i]))
                ++i;
        if (i == kNone || i > span.end || i == begin)
            return std::nullopt;
        out.emplace_back(begin, i);
        skipSpace();
        if (i >= span.end)
            return std::nullopt;
        if (t[i] == ']')
            return i + 1 == span.end ? std::optional(out) : std::nullopt;
        if (t[i] != ',')
            return std::nullopt;
        ++i;
    }
}

// Syntax errors name a byte of the text parsed: name the file's.
std::string inFile(std::string message, size_t offset) {
    if (message.rfind("byte ", 0) != 0)
        return message;
    const size_t digitsEnd = message.find_first_not_of("0123456789", 5);
    const std::string digits = message.substr(5, digitsEnd - 5);
    if (digits.empty() || digits.size() > 18)
        return message;
    return "byte " + std::to_string(std::stoull(digits) + offset) + message.substr(digitsEnd);
}

JsonLimits below(const JsonLimits& limits, size_t levels) {
    JsonLimits out = limits;
    out.maxDepth = limits.maxDepth > levels ? limits.maxDepth - levels : 1;
    return out;
}

constexpr size_t kDepthOfStages = 3; // root object, backends array, backend object

// One piece of work: a whole span (element < 0) or one element of it.
struct Piece {
    size_t span;
    long element;
    size_t begin, end;
};

struct PieceResult {
    std::optional<Error> error;
    bool syntax = false; // a parse error: it outranks a decode error, as in a whole read
    size_t replaced = 0;
};

} // namespace

std::vector<Result<DecodedStages>> decodeStageSpans(std::string_view text,
                                                    const std::vector<StageSpan>& spans, unsigned threads,
                                                    const JsonLimits& limits) {
    std::vector<Piece> pieces;
    std::vector<std::vector<StageGraph>> stages(spans.size());
    std::vector<std::vector<std::string>> origins(spans.size());
    for (size_t s = 0; s < spans.size(); ++s) {
        const auto elements = arrayElements(text, spans[s]);
        if (!elements || elements->size() > limits.maxItems) {
            pieces.push_back({s, -1, spans[s].begin, spans[s].end});
            continue;
        }
        stages[s].resize(elements->size());
        for (size_t e = 0; e < elements->size(); ++e)
            pieces.push_back({s, static_cast<long>(e), (*elements)[e].first, (*elements)[e].second});
    }
    std::vector<PieceResult> results(pieces.size());
    auto decode = [&](size_t p) {
        const Piece& piece = pieces[p];
        PieceResult& out = results[p];
        const std::string origin = "backends[" + std::to_string(spans[piece.span].backend) + "]";
        const bool whole = piece.element < 0;
        const std::string path =
            origin + ".stages" + (whole ? "" : "[" + std::to_string(piece.element) + "]");
        auto parsed = parseJson(text.substr(piece.begin, piece.end - piece.begin),
                                below(limits, kDepthOfStages + (whole ? 0 : 1)));
        if (!parsed) {
            out.error = Error{"report_corrupt", path + ": " + inFile(parsed.error().message, piece.begin)};
            out.syntax = true;
            return;
        }
        out.replaced = parsed.value().replacedSequences;
        if (whole) {
            nlohmann::json wrapped = nlohmann::json::object();
            wrapped["stages"] = std::move(parsed.value().value);
            Reader r(wrapped, origin);
            readStages(r, stages[piece.span]);
            out.error = r.error(kRecordCorrupt);
            return;
        }
        Reader r(parsed.value().value, path);
        if (r.expectObject())
            readStageGraph(r, stages[piece.span][static_cast<size_t>(piece.element)]);
        out.error = r.error(kRecordCorrupt);
    };
    // Pieces are taken in order by up to `threads` threads: a large report's stages are thousands
    // of graphs, and each is parsed and decoded on its own.
    std::atomic<size_t> next{0};
    auto work = [&] {
        for (size_t p = next++; p < pieces.size(); p = next++)
            decode(p);
    };
    std::vector<std::thread> pool;
    const size_t extra = std::min<size_t>(threads > 1 ? threads - 1 : 0, pieces.size() / 2);
    for (size_t t = 0; t < extra; ++t) {
        try {
            pool.emplace_back(work);
        } catch (const std::system_error&) {
            break; // no thread to be had: the calling thread does the rest
        }
    }
    work();
    for (auto& t : pool)
        t.join();

    std::vector<Result<DecodedStages>> out;
    for (size_t s = 0; s < spans.size(); ++s) {
        const PieceResult* firstSyntax = nullptr;
        const PieceResult* firstDecode = nullptr;
        size_t replaced = 0;
        for (size_t p = 0; p < pieces.size(); ++p) {
            if (pieces[p].span != s)
                continue;
            const PieceResult& r = results[p];
            replaced += r.replaced;
            if (r.error && r.syntax && !firstSyntax)
                firstSyntax = &r;
            if (r.error && !r.syntax && !firstDecode)
                firstDecode = &r;
        }
        if (const PieceResult* bad = firstSyntax ? firstSyntax : firstDecode)
            out.emplace_back(*bad->error);
        else
            out.emplace_back(DecodedStages{std::move(stages[s]), replaced});
    }
    return out;
}

} // namespace fusescope::codec
