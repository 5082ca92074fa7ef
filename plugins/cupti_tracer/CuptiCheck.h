#pragma once

#include <cupti.h>
#include <string>

namespace fusescope::cupti {

// Records a failed CUPTI call as "file:line: call: <cuptiGetResultString>" for
// fscupti_last_error(). Returns whether the call succeeded.
bool checkCupti(CUptiResult result, const char* call, const char* file, int line);

// Records an error that is not a CUPTI result (bad state, allocation failure).
void setError(const std::string& message);
std::string lastError();
void clearError();

} // namespace fusescope::cupti

// Every CUPTI call goes through this one macro, so no failure goes unreported.
#define FSCUPTI_CHECK(call) ::fusescope::cupti::checkCupti((call), #call, __FILE__, __LINE__)
