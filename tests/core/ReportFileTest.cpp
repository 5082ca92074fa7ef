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
