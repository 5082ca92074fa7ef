#include "report/ReportFile.h"

#include "TestData.h"
#include "codec/ReportCodec.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sys/stat.h>

using namespace fusescope;
namespace fs = std::filesystem;

namespace {

class ReportFileTest : public ::testing::Test {
protected:
    void SetUp() override {
        dir = fs::temp_directory_path() / ("fscope-test-" + std::to_string(::getpid()) + "-" +
                                           ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::create_directories(dir);
    }
    void TearDown() override { fs::remove_all(dir); }
    std::string path(const std::string& name) const { return (dir / name).string(); }
    void writeRaw(const std::string& name, const std::string& text) const {
        std::ofstream(path(name)) << text;
    }

    fs::path dir;
};

} // namespace

TEST_F(ReportFileTest, WriteThenReadGivesTheSameReport) {
    const Report original = testdata::sampleReport();
    ASSERT_FALSE(writeReport(original, path("r.fscope")).has_value());
    auto back = readReport(path("r.fscope"));
    ASSERT_TRUE(back.ok()) << back.error().message;
    const Report& r = back.value();
    EXPECT_EQ(r.schema, kReportSchemaVersion);
    EXPECT_EQ(r.modelSpec, "demo:mlp");
    ASSERT_EQ(r.backends.size(), 2u);
    EXPECT_EQ(r.backends[0].compiledSamplesMs, original.backends[0].compiledSamplesMs);
    EXPECT_EQ(r.backends[0].stages.size(), 2u);
    EXPECT_EQ(r.backends[0].code[0].text, original.backends[0].code[0].text);
    EXPECT_EQ(r.backends[1].status, RunStatus::Unavailable);
    EXPECT_EQ(r.backends[1].error->message, "backend tvm: apache-tvm is not installed");
    EXPECT_EQ(nlohmann::json(r), nlohmann::json(original));
}

TEST_F(ReportFileTest, ReadLeftoversHoldTheParsedFileUntilTheCallerDropsThem) {
    const Report original = testdata::sampleReport();
    ASSERT_FALSE(writeReport(original, path("r.fscope")).has_value());
    ReadLeftovers leftovers;
    auto back = readReport(path("r.fscope"), &leftovers);
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(nlohmann::json(back.value()), nlohmann::json(original));
    ASSERT_TRUE(leftovers.held);
    EXPECT_EQ(leftovers.held.use_count(), 1);
    // A failed read leaves nothing to hold.
    ReadLeftovers none;
    EXPECT_FALSE(readReport(path("nope.fscope"), &none).ok());
    EXPECT_FALSE(none.held);
}

TEST_F(ReportFileTest, AtomicWriteLeavesNoTemporaryFiles) {
    ASSERT_FALSE(writeReport(testdata::sampleReport(), path("r.fscope")).has_value());
    ASSERT_FALSE(writeReport(testdata::sampleReport(), path("r.fscope")).has_value());
    int files = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir))
        ++files;
    EXPECT_EQ(files, 1);
}

TEST_F(ReportFileTest, FailedWriteKeepsTheOldFile) {
    ASSERT_FALSE(writeReport(testdata::sampleReport(), path("r.fscope")).has_value());
    // A directory that doesn't exist: the write must fail cleanly and name the file.
    auto err = writeReport(testdata::sampleReport(), path("missing-dir/r.fscope"));
    ASSERT_TRUE(err.has_value());
    EXPECT_NE(err->message.find("missing-dir/r.fscope"), std::string::npos);
    EXPECT_TRUE(readReport(path("r.fscope")).ok());
}

TEST_F(ReportFileTest, MissingFileIsNamed) {
    auto r = readReport(path("nope.fscope"));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, "report_not_found");
    EXPECT_NE(r.error().message.find("nope.fscope"), std::string::npos);
}

TEST_F(ReportFileTest, EmptyFileIsRefused) {
    writeRaw("empty.fscope", "");
    auto r = readReport(path("empty.fscope"));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, "report_empty");
}

TEST_F(ReportFileTest, TruncatedFileIsRefusedAsTruncated) {
    const std::string full = nlohmann::json(testdata::sampleReport()).dump();
    writeRaw("cut.fscope", full.substr(0, full.size() / 2));
    auto r = readReport(path("cut.fscope"));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, "report_corrupt");
    EXPECT_NE(r.error().message.find("truncated"), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find("cut.fscope"), std::string::npos);
}

TEST_F(ReportFileTest, GarbageIsNotJson) {
    writeRaw("garbage.fscope", "PK\x03\x04 this is not json at all");
    auto r = readReport(path("garbage.fscope"));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, "report_corrupt");
    EXPECT_NE(r.error().message.find("not valid JSON"), std::string::npos);
}

TEST_F(ReportFileTest, OtherJsonIsNotAReport) {
    writeRaw("other.fscope", R"({"hello": "world"})");
    auto r = readReport(path("other.fscope"));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, "report_not_fscope");
}

TEST_F(ReportFileTest, NewerSchemaIsRefusedWithAClearMessage) {
    auto j = nlohmann::json(testdata::sampleReport());
    j["schema"] = kReportSchemaVersion + 1;
    writeRaw("newer.fscope", j.dump());
    auto r = readReport(path("newer.fscope"));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, "report_newer_schema");
    EXPECT_NE(r.error().message.find("newer FuseScope"), std::string::npos);
    EXPECT_NE(r.error().message.find("schema " + std::to_string(kReportSchemaVersion + 1)),
              std::string::npos);
}

TEST_F(ReportFileTest, WrongFieldTypeIsCorruptNotACrash) {
    auto j = nlohmann::json(testdata::sampleReport());
    j["backends"][0]["stages"] = "not a list";
    writeRaw("bad.fscope", j.dump());
    auto r = readReport(path("bad.fscope"));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, "report_corrupt");
}

// Not a file: refused by type before it is opened, so show on a FIFO never blocks and /dev/zero
// is never read (docs/report-format.md).
TEST_F(ReportFileTest, FifoIsRefusedWithoutBlocking) {
    ASSERT_EQ(::mkfifo(path("pipe.fscope").c_str(), 0600), 0);
    auto r = readReport(path("pipe.fscope"));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, "report_not_a_file");
    EXPECT_NE(r.error().message.find("pipe.fscope"), std::string::npos);
    EXPECT_NE(r.error().message.find("FIFO"), std::string::npos);
}

TEST_F(ReportFileTest, DeviceIsRefused) {
    auto r = readReport("/dev/zero");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, "report_not_a_file");
    EXPECT_NE(r.error().message.find("character device"), std::string::npos) << r.error().message;
}

TEST_F(ReportFileTest, DirectoryIsRefused) {
    auto r = readReport(dir.string());
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, "report_not_found");
    EXPECT_NE(r.error().message.find("directory"), std::string::npos);
}

TEST_F(ReportFileTest, FileOverTheSizeLimitIsRefusedUnread) {
    writeRaw("big.fscope", "");
    fs::resize_file(path("big.fscope"), (uintmax_t(4) << 30) + 1); // sparse
    auto r = readReport(path("big.fscope"));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, "report_too_large");
    EXPECT_NE(r.error().message.find("4 GiB"), std::string::npos) << r.error().message;
}

// A large report is read in two steps (docs/performance.md, "First paint"): the scan that finds
// each backend's stages in the text, the report without them, then the stages.
namespace {

std::vector<std::string> spanTexts(const std::string& text, const std::vector<codec::StageSpan>& spans) {
    std::vector<std::string> out;
    for (const auto& s : spans)
        out.push_back(std::to_string(s.backend) + ":" + text.substr(s.begin, s.end - s.begin));
    return out;
}

} // namespace

TEST(StageSpans, EachBackendsStagesAndNothingElse) {
    // "stages" at the root, inside a backend's member and in strings is not a backend's stages;
    // strings holding brackets, quotes and backslashes do not end an array early.
    const std::string text = R"( {"stages": [1], "model": {"stages": [2]},
        "backends": [
          {"name": "a", "samples": {"stages": [3]}, "stages": [{"name": "x]}\"", "k": "\\"}, [[]]],
           "log": "\"stages\": [4]"},
          {"name": "b"},
          {"stages" : [ ], "name": "c"}
        ], "tail": {"backends": [{"stages": [5]}]}} )";
    const auto spans = codec::findStageSpans(text);
    ASSERT_TRUE(spans.has_value());
    EXPECT_EQ(spanTexts(text, *spans),
              (std::vector<std::string>{R"(0:[{"name": "x]}\"", "k": "\\"}, [[]]])", "2:[ ]"}));
    EXPECT_EQ(codec::withoutSpans(text, *spans).find("x]}"), std::string::npos);
    EXPECT_TRUE(nlohmann::json::accept(codec::withoutSpans(text, *spans)));
}

TEST(StageSpans, ShapesThatLeaveDoubtGiveNoAnswer) {
    for (const std::string text : {
             R"([{"backends": []}])",                            // not an object
             R"({"backends": [], "backends": []})",              // duplicated
             R"({"backends": [{"stages": [], "stages": [1]}]})", // duplicated
             R"({"backends": [{"st\u0061ges": [1]}]})",          // an escaped key
             R"({"backends": [{"stages": [[}, 1]]}]})",          // brackets out of order
             R"({"backends": [{"stages": [1]}]} x)",             // more after the end
             R"({"backends": [{"stages": ["1]}]})",              // a string never ends
             R"({"backends": [{"stages": [1]})",                 // truncated
         })
        EXPECT_FALSE(codec::findStageSpans(text).has_value()) << text;
}

TEST_F(ReportFileTest, ALargeReportsStagesAreReadAfterTheRestToTheSameReport) {
    const Report original = testdata::largeStagesReport(kDeferStagesFromBytes);
    ASSERT_FALSE(writeReport(original, path("big.fscope")).has_value());
    DeferredStages deferred;
    auto skeleton = readReport(path("big.fscope"), nullptr, &deferred);
    ASSERT_TRUE(skeleton.ok()) << skeleton.error().message;
    ASSERT_EQ(deferred.spans.size(), 3u); // inductor's, tvm's (empty) and eager's
    EXPECT_EQ(deferred.spans[0].backend, 0u);
    EXPECT_EQ(deferred.spans[1].backend, 1u);
    EXPECT_EQ(deferred.spans[2].backend, 2u);
    for (const auto& run : skeleton.value().backends)
        EXPECT_TRUE(run.stages.empty()) << run.name;
    EXPECT_EQ(skeleton.value().backends[0].compiledSamplesMs, original.backends[0].compiledSamplesMs);
    const Report whole = withDeferredStages(skeleton.value(), deferred);
    EXPECT_TRUE(whole.readNotes.empty());
    EXPECT_EQ(nlohmann::json(whole), nlohmann::json(original));
    // Read whole, as every reader but the GUI does, it is the same report.
    auto direct = readReport(path("big.fscope"));
    ASSERT_TRUE(direct.ok());
    EXPECT_EQ(nlohmann::json(direct.value()), nlohmann::json(original));
}

TEST_F(ReportFileTest, ASmallReportIsReadWholeWhenDeferringIsAsked) {
    ASSERT_FALSE(writeReport(testdata::sampleReport(), path("r.fscope")).has_value());
    DeferredStages deferred;
    auto back = readReport(path("r.fscope"), nullptr, &deferred);
    ASSERT_TRUE(back.ok());
    EXPECT_TRUE(deferred.empty());
    EXPECT_EQ(back.value().backends[0].stages.size(), 2u);
}

TEST_F(ReportFileTest, DeferredStagesThatDoNotReadAreNamedAndTheRestStands) {
    const Report original = testdata::largeStagesReport(kDeferStagesFromBytes);
    ASSERT_FALSE(writeReport(original, path("big.fscope")).has_value());
    std::ifstream in(path("big.fscope"));
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());

    // A wrong type in inductor's stages: its path, the backend, and eager's stages still read.
    std::string wrongType = text;
    const size_t level = wrongType.find("\"level\":\"scheduler\"");
    ASSERT_NE(level, std::string::npos);
    wrongType.replace(level, 19, "\"level\":17         ");
    writeRaw("type.fscope", wrongType);
    DeferredStages deferred;
    auto skeleton = readReport(path("type.fscope"), nullptr, &deferred);
    ASSERT_TRUE(skeleton.ok()) << skeleton.error().message;
    ASSERT_FALSE(deferred.empty());
    const Report whole = withDeferredStages(skeleton.value(), deferred);
    ASSERT_EQ(whole.readNotes.size(), 1u);
    EXPECT_NE(whole.readNotes[0].find("type.fscope"), std::string::npos) << whole.readNotes[0];
    EXPECT_NE(whole.readNotes[0].find("backends[0].stages[0].level"), std::string::npos)
        << whole.readNotes[0];
    EXPECT_NE(whole.readNotes[0].find("backend inductor is shown without its graphs"), std::string::npos);
    EXPECT_TRUE(whole.backends[0].stages.empty());
    EXPECT_EQ(whole.backends[2].stages.size(), 1u);
    EXPECT_EQ(whole.backends[0].compiledSamplesMs, original.backends[0].compiledSamplesMs);
    // Read whole, the same file is refused, naming the same member.
    auto direct = readReport(path("type.fscope"));
    ASSERT_FALSE(direct.ok());
    EXPECT_NE(direct.error().message.find("backends[0].stages[0].level"), std::string::npos);

    // A syntax error inside the stages names the file's byte (counted from 1, as the whole read
    // names it), not the span's.
    std::string syntax = text;
    const size_t colon = syntax.find("\"nodes\":") + 7;
    syntax[colon] = ';';
    writeRaw("syntax.fscope", syntax);
    auto skeleton2 = readReport(path("syntax.fscope"), nullptr, &deferred);
    ASSERT_TRUE(skeleton2.ok()) << skeleton2.error().message;
    const Report whole2 = withDeferredStages(skeleton2.value(), deferred);
    ASSERT_EQ(whole2.readNotes.size(), 1u);
    const std::string byte = "byte " + std::to_string(colon + 1);
    EXPECT_NE(whole2.readNotes[0].find("backends[0].stages[0]: " + byte), std::string::npos)
        << whole2.readNotes[0] << " (the ';' is at offset " << colon << ")";
    auto direct2 = readReport(path("syntax.fscope"));
    ASSERT_FALSE(direct2.ok());
    EXPECT_NE(direct2.error().message.find(byte), std::string::npos) << direct2.error().message;
}

TEST_F(ReportFileTest, AFileWhoseStagesCannotBeToldApartIsReadWholeWithItsOwnError) {
    const Report original = testdata::largeStagesReport(kDeferStagesFromBytes);
    ASSERT_FALSE(writeReport(original, path("big.fscope")).has_value());
    std::ifstream in(path("big.fscope"));
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t nodes = text.find("\"nodes\":[") + 8;
    text[nodes] = '{'; // the array now closes with ']' after '{': out of order
    writeRaw("bad.fscope", text);
    DeferredStages deferred;
    auto deferring = readReport(path("bad.fscope"), nullptr, &deferred);
    auto whole = readReport(path("bad.fscope"));
    ASSERT_FALSE(deferring.ok());
    ASSERT_FALSE(whole.ok());
    EXPECT_TRUE(deferred.empty());
    EXPECT_EQ(deferring.error().message, whole.error().message);
    EXPECT_EQ(deferring.error().code, whole.error().code);
}
