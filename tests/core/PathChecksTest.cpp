#include "files/PathChecks.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace fusescope;
using namespace fusescope::files;
namespace fs = std::filesystem;

namespace {

class PathChecksTest : public ::testing::Test {
protected:
    void SetUp() override {
        dir = fs::temp_directory_path() / ("fscope-paths-" + std::to_string(::getpid()) + "-" +
                                           ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::create_directories(dir);
    }
    void TearDown() override { fs::remove_all(dir); }
    std::string path(const std::string& name) const { return (dir / name).string(); }
    std::string touch(const std::string& name) const {
        std::ofstream(path(name)) << "x = 1\n";
        return path(name);
    }

    fs::path dir;
};

} // namespace

TEST(Printable, KeepsUtf8AndEscapesEverythingElse) {
    EXPECT_EQ(printable("plain/path.py"), "plain/path.py");
    EXPECT_EQ(printable("caf\xc3\xa9.py"), "caf\xc3\xa9.py");
    EXPECT_EQ(printable("m\xffodel.py"), "m\\xffodel.py");
    EXPECT_EQ(printable("a\xc3("), "a\\xc3(");               // truncated sequence
    EXPECT_EQ(printable("\xc0\xaf"), "\\xc0\\xaf");          // overlong '/'
    EXPECT_EQ(printable("\xed\xa0\x80"), "\\xed\\xa0\\x80"); // a surrogate
    EXPECT_EQ(printable("line\nbreak"), "line\\x0abreak");
}

TEST(SizeText, SaysTheUnitAPersonWould) {
    EXPECT_EQ(sizeText(uint64_t(4) << 30), "4 GiB");
    EXPECT_EQ(sizeText(uint64_t(16) << 20), "16 MiB");
    EXPECT_EQ(sizeText(512), "512 bytes");
}

TEST_F(PathChecksTest, ReadRegularFileReadsAndLimits) {
    std::ofstream(path("f.txt")) << "hello";
    auto ok = readRegularFile(path("f.txt"), 5);
    ASSERT_TRUE(ok.ok()) << ok.error().message;
    EXPECT_EQ(ok.value(), "hello");
    auto big = readRegularFile(path("f.txt"), 4);
    ASSERT_FALSE(big.ok());
    EXPECT_EQ(big.error().code, "too_large");
    EXPECT_EQ(readRegularFile(path("nope"), 5).error().code, "not_found");
    EXPECT_EQ(readRegularFile(dir.string(), 5).error().code, "is_directory");
    ASSERT_EQ(::mkfifo(path("p").c_str(), 0600), 0);
    EXPECT_EQ(readRegularFile(path("p"), 5).error().code, "not_regular");
}

TEST_F(PathChecksTest, ModelPathMustBeAFileWhenItExists) {
    EXPECT_FALSE(checkModelPath("demo:mlp"));
    EXPECT_FALSE(checkModelPath(touch("m.py")));
    EXPECT_FALSE(checkModelPath(path("missing.py"))); // the backend reports model_not_found
    auto folder = checkModelPath(dir.string());
    ASSERT_TRUE(folder);
    EXPECT_NE(folder->message.find("directory"), std::string::npos);
    ASSERT_EQ(::mkfifo(path("p.py").c_str(), 0600), 0);
    auto fifo = checkModelPath(path("p.py"));
    ASSERT_TRUE(fifo);
    EXPECT_NE(fifo->message.find("FIFO"), std::string::npos);
    auto bad = checkModelPath(path("m\xff.py"));
    ASSERT_TRUE(bad);
    EXPECT_EQ(bad->code, "path_not_utf8");
    EXPECT_NE(bad->message.find("m\\xff.py"), std::string::npos);
}

TEST_F(PathChecksTest, OutputNeverReplacesAnInput) {
    const std::string model = touch("m.py");
    const std::vector<InputFile> inputs = {{model, "the model file"}};
    EXPECT_EQ(checkOutputPath(model, inputs)->code, "path_is_input");
    fs::create_symlink(model, path("sym.fscope"));
    EXPECT_EQ(checkOutputPath(path("sym.fscope"), inputs)->code, "path_is_input");
    fs::create_hard_link(model, path("hard.fscope"));
    EXPECT_EQ(checkOutputPath(path("hard.fscope"), inputs)->code, "path_is_input");
    fs::create_directories(dir / "sub");
    EXPECT_EQ(checkOutputPath(path("sub/../m.py"), inputs)->code, "path_is_input");
    EXPECT_FALSE(checkOutputPath(path("r.fscope"), inputs));
    EXPECT_FALSE(checkOutputPath(touch("old.fscope"), inputs)); // replacing an old report is fine
}

TEST_F(PathChecksTest, OutputFolderMustExistAndTakeAFile) {
    EXPECT_EQ(checkOutputPath(dir.string())->code, "path_is_directory");
    EXPECT_EQ(checkOutputPath(path("nope/r.fscope"))->code, "folder_missing");
    EXPECT_EQ(checkOutputPath(touch("plain") + "/r.fscope")->code, "folder_not_directory");
    EXPECT_EQ(checkOutputPath("/proc/x.fscope")->code, "folder_not_writable");
    EXPECT_EQ(checkOutputPath("/dev/null")->code, "path_not_regular");
    EXPECT_EQ(checkOutputPath("")->code, "path_empty");
    EXPECT_EQ(checkOutputPath(path("r\xfe.fscope"))->code, "path_not_utf8");
    // The probe leaves nothing behind.
    EXPECT_FALSE(checkOutputPath(path("r.fscope")));
    int files = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir))
        ++files;
    EXPECT_EQ(files, 1); // "plain"
}
