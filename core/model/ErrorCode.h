#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace fusescope {

// Why a backend run failed: the codes of docs/protocol.md ("Error codes"), the same names as the
// Python worker's constants (fusescope_worker/errors.py). A test checks all three agree. Reports
// keep the code as text (RunError::code), so a report from a newer FuseScope with a code this one
// does not know still reads; compare with `code == toString(ErrorCode::...)`.
enum class ErrorCode {
    // Sent by a worker (the Python worker or the LibTorch runner) in its `error` message.
    BadRequest,
    ModelNotFound,
    ModelInvalid,
    ModelFailed,
    BackendUnavailable,
    CompileFailed,
    RunFailed,
    Internal,
    // Named by the C++ side, for what a worker cannot report itself or what never reached one.
    WorkerStartFailed,
    WorkerCrashed,
    WorkerTimeout,
    ProtocolError,
    Cancelled,
    BadOption,
};

struct ErrorCodeName {
    ErrorCode code;
    std::string_view name;
    bool sentByWorker;
};

inline constexpr std::array<ErrorCodeName, 14> kErrorCodes = {{
    {ErrorCode::BadRequest, "bad_request", true},
    {ErrorCode::ModelNotFound, "model_not_found", true},
    {ErrorCode::ModelInvalid, "model_invalid", true},
    {ErrorCode::ModelFailed, "model_failed", true},
    {ErrorCode::BackendUnavailable, "backend_unavailable", true},
    {ErrorCode::CompileFailed, "compile_failed", true},
    {ErrorCode::RunFailed, "run_failed", true},
    {ErrorCode::Internal, "internal", true},
    {ErrorCode::WorkerStartFailed, "worker_start_failed", false},
    {ErrorCode::WorkerCrashed, "worker_crashed", false},
    {ErrorCode::WorkerTimeout, "worker_timeout", false},
    {ErrorCode::ProtocolError, "protocol_error", false},
    {ErrorCode::Cancelled, "cancelled", false},
    {ErrorCode::BadOption, "bad_option", false},
}};

// In enum order, so the table is the enum's one list of names.
constexpr bool errorCodesInOrder() {
    for (size_t i = 0; i < kErrorCodes.size(); ++i)
        if (kErrorCodes[i].code != static_cast<ErrorCode>(i))
            return false;
    return static_cast<size_t>(ErrorCode::BadOption) + 1 == kErrorCodes.size();
}
static_assert(errorCodesInOrder(), "kErrorCodes lists every ErrorCode once, in enum order");

constexpr const char* toString(ErrorCode code) {
    return kErrorCodes[static_cast<size_t>(code)].name.data(); // a literal: NUL-terminated
}

constexpr std::optional<ErrorCode> errorCodeFromString(std::string_view name) {
    for (const auto& c : kErrorCodes)
        if (c.name == name)
            return c.code;
    return std::nullopt;
}

// Errors of the model itself, not of a backend: every backend would fail the same way.
constexpr bool isModelError(ErrorCode code) {
    return code == ErrorCode::ModelNotFound || code == ErrorCode::ModelInvalid ||
           code == ErrorCode::ModelFailed;
}

} // namespace fusescope
