#include "CuptiCheck.h"

#include <cstring>
#include <mutex>

namespace fusescope::cupti {

namespace {
std::mutex g_errorMutex;
std::string g_error;
} // namespace

bool checkCupti(CUptiResult result, const char* call, const char* file, int line) {
    if (result == CUPTI_SUCCESS)
        return true;
    const char* text = nullptr;
    // Not through FSCUPTI_CHECK: this is the error path, and it must not recurse.
    if (cuptiGetResultString(result, &text) != CUPTI_SUCCESS || !text)
        text = "unknown CUPTI error";
    const char* base = std::strrchr(file, '/');
    setError(std::string(base ? base + 1 : file) + ":" + std::to_string(line) + ": " + call + ": " + text +
             " (CUptiResult " + std::to_string(static_cast<int>(result)) + ")");
    return false;
}

void setError(const std::string& message) {
    std::lock_guard lock(g_errorMutex);
    g_error = message;
}

std::string lastError() {
    std::lock_guard lock(g_errorMutex);
    return g_error;
}

void clearError() {
    std::lock_guard lock(g_errorMutex);
    g_error.clear();
}

} // namespace fusescope::cupti
