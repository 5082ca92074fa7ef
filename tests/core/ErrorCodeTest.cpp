#include "model/ErrorCode.h"

#include <fstream>
#include <gtest/gtest.h>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

using namespace fusescope;

namespace {

struct DocRow {
    std::string code;
    std::string sentBy;
};

// The rows of docs/protocol.md's "Error codes" table: | `code` | sent by | meaning |.
std::vector<DocRow> documentedCodes() {
    std::ifstream in(FUSESCOPE_SOURCE_DIR "/docs/protocol.md");
    EXPECT_TRUE(in.good()) << "cannot read " FUSESCOPE_SOURCE_DIR "/docs/protocol.md";
    std::vector<DocRow> rows;
    std::string line;
    bool inSection = false;
    const std::regex row(R"(^\|\s*`([a-z_]+)`\s*\|\s*([^|]+?)\s*\|.*\|\s*$)");
    while (std::getline(in, line)) {
        if (line.rfind("## ", 0) == 0)
            inSection = line == "## Error codes";
        std::smatch m;
        if (inSection && std::regex_match(line, m, row))
            rows.push_back({m[1], m[2]});
    }
    return rows;
}

} // namespace

TEST(ErrorCode, TheEnumIsTheDocumentedTable) {
    const auto rows = documentedCodes();
    ASSERT_FALSE(rows.empty()) << "no error code table under '## Error codes' in docs/protocol.md";
    ASSERT_EQ(rows.size(), kErrorCodes.size())
        << "docs/protocol.md and core/model/ErrorCode.h list different codes";
    for (size_t i = 0; i < rows.size(); ++i) {
        EXPECT_EQ(rows[i].code, std::string(kErrorCodes[i].name)) << "row " << i;
        EXPECT_EQ(rows[i].sentBy, kErrorCodes[i].sentByWorker ? "worker" : "C++") << rows[i].code;
    }
}

TEST(ErrorCode, NamesReadBack) {
    for (const auto& c : kErrorCodes) {
        EXPECT_EQ(errorCodeFromString(toString(c.code)), c.code) << c.name;
        EXPECT_EQ(std::string(toString(c.code)), std::string(c.name));
    }
    EXPECT_EQ(errorCodeFromString("no_such_code"), std::nullopt);
    EXPECT_EQ(errorCodeFromString(""), std::nullopt);
    EXPECT_STREQ(toString(ErrorCode::WorkerCrashed), "worker_crashed");
}

TEST(ErrorCode, ModelErrorsAreTheModelCodes) {
    std::vector<std::string> model;
    for (const auto& c : kErrorCodes)
        if (isModelError(c.code))
            model.emplace_back(c.name);
    EXPECT_EQ(model, (std::vector<std::string>{"model_not_found", "model_invalid", "model_failed"}));
}
