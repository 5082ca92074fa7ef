// libfusescope_cupti's C API on whatever machine runs the tests: without a driver, start must
// fail with a clear message (never crash); with one, start/stop must deliver a final chunk.

#include "fusescope_cupti.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace {

bool driverPresent() {
    void* handle = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (handle)
        dlclose(handle);
    return handle != nullptr;
}

void collect(const char* chunk, size_t length, void* user) {
    static_cast<std::vector<std::string>*>(user)->emplace_back(chunk, length);
}

} // namespace

TEST(CuptiTracer, CallsBeforeStartFailWithAMessage) {
    EXPECT_EQ(fscupti_flush(), FSCUPTI_ERROR);
    EXPECT_NE(std::string(fscupti_last_error()).find("not running"), std::string::npos);
    EXPECT_EQ(fscupti_stop(), FSCUPTI_ERROR);
    EXPECT_EQ(fscupti_begin_iteration(0), FSCUPTI_ERROR);
    EXPECT_EQ(fscupti_dropped(), 0u);
}

TEST(CuptiTracer, StartWithoutADriverFailsClearly) {
    if (driverPresent())
        GTEST_SKIP() << "a CUDA driver is present; StartAndStopDeliverAFinalChunk covers this machine";
    EXPECT_EQ(fscupti_start(nullptr), FSCUPTI_ERROR_NO_DRIVER);
    const std::string error = fscupti_last_error();
    EXPECT_NE(error.find("no CUDA driver"), std::string::npos) << error;
    EXPECT_NE(error.find("libcuda.so.1"), std::string::npos) << error;
    // A failed start leaves the tracer stopped and ready to try again.
    EXPECT_EQ(fscupti_stop(), FSCUPTI_ERROR);
    EXPECT_EQ(fscupti_start(nullptr), FSCUPTI_ERROR_NO_DRIVER);
}

TEST(CuptiTracer, StartAndStopDeliverAFinalChunk) {
    if (!driverPresent())
        GTEST_SKIP() << "no CUDA driver here";
    std::vector<std::string> chunks;
    fscupti_set_sink(collect, &chunks);
    const int started = fscupti_start(nullptr);
    if (started != FSCUPTI_OK) {
        // A driver without a usable GPU (or another profiler): an error, with a message, no crash.
        EXPECT_FALSE(std::string(fscupti_last_error()).empty());
        fscupti_set_sink(nullptr, nullptr);
        return;
    }
    EXPECT_EQ(fscupti_begin_iteration(0), FSCUPTI_OK);
    EXPECT_EQ(fscupti_flush(), FSCUPTI_OK) << fscupti_last_error();
    EXPECT_EQ(fscupti_stop(), FSCUPTI_OK) << fscupti_last_error();
    fscupti_set_sink(nullptr, nullptr);
    ASSERT_FALSE(chunks.empty());
    const auto last = nlohmann::json::parse(chunks.back());
    EXPECT_EQ(last["final"], true);
    EXPECT_EQ(last["source"], "cupti");
}
