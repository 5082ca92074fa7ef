#include "LibTorchUtil.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <mutex>
#include <torch/csrc/autograd/profiler_kineto.h>
#include <torch/script.h>

namespace fusescope::libtorch {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

} // namespace

TensorData readTensorData(const std::string& path) {
    TensorData data;
    auto module = torch::jit::load(path);
    for (const auto& v : module.attr("inputs").toListRef())
        data.args.push_back(v);
    const auto names = module.attr("kwarg_names").toListRef();
    const auto values = module.attr("kwarg_values").toListRef();
    for (size_t i = 0; i < names.size() && i < values.size(); ++i)
        data.kwargs.emplace(names[i].toStringRef(), values[i]);
    for (const auto& v : module.attr("outputs").toListRef())
        data.reference.push_back(v.toTensor());
    return data;
}

void flattenTensors(const c10::IValue& value, std::vector<at::Tensor>& out) {
    if (value.isTensor()) {
        out.push_back(value.toTensor());
    } else if (value.isTuple()) {
        for (const auto& v : value.toTupleRef().elements())
            flattenTensors(v, out);
    } else if (value.isList()) {
        for (const auto& v : value.toListRef())
            flattenTensors(v, out);
    } else if (value.isGenericDict()) {
        for (const auto& entry : value.toGenericDict())
            flattenTensors(entry.value(), out);
    }
}

Accuracy compareOutputs(const std::vector<at::Tensor>& outputs, const std::vector<at::Tensor>& reference) {
    Accuracy acc;
    acc.tolerance = 1e-3;
    if (outputs.size() != reference.size()) {
        acc.rule = "structure";
        return acc;
    }
    bool anyFloat = false;
    bool pass = true;
    for (const auto& e : reference)
        if (e.scalar_type() == at::kHalf || e.scalar_type() == at::kBFloat16)
            acc.tolerance = 1e-2;
    double sumSq = 0, dot = 0, normC = 0, normE = 0;
    int64_t count = 0;
    for (size_t i = 0; i < outputs.size(); ++i) {
        const auto& c = outputs[i];
        const auto& e = reference[i];
        if (c.sizes() != e.sizes()) {
            pass = false;
            continue;
        }
        if (!e.is_floating_point()) {
            pass = pass && c.equal(e);
            continue;
        }
        anyFloat = true;
        pass = pass && at::allclose(c, e, acc.tolerance, acc.tolerance, /*equal_nan=*/true);
        const auto cd = c.to(at::kDouble).flatten();
        const auto ed = e.to(at::kDouble).flatten();
        const auto diff = (cd - ed).abs();
        if (diff.numel() > 0) {
            acc.maxAbs = std::max(acc.maxAbs, diff.max().item<double>());
            acc.maxRel = std::max(acc.maxRel, (diff / ed.abs().clamp_min(1e-6)).max().item<double>());
        }
        sumSq += (diff * diff).sum().item<double>();
        dot += (cd * ed).sum().item<double>();
        normC += (cd * cd).sum().item<double>();
        normE += (ed * ed).sum().item<double>();
        count += diff.numel();
    }
    acc.rule = anyFloat ? "allclose" : "exact";
    acc.pass = pass;
    acc.rmse = count > 0 ? std::sqrt(sumSq / static_cast<double>(count)) : 0;
    acc.cosine = normC > 0 && normE > 0 ? dot / std::sqrt(normC * normE) : (normC == normE ? 1.0 : 0.0);
    return acc;
}

nlohmann::json timeCalls(const MeasureSettings& settings, const std::function<bool()>& cancelled,
                         const std::function<void(std::vector<double>)>& onSamples,
                         const std::function<void()>& call) {
    for (int i = 0; i < settings.warmup && !cancelled(); ++i)
        call();
    std::vector<double> chunk;
    const auto start = Clock::now();
    int runs = 0;
    const int maxRuns = std::max(settings.maxRuns, 1);
    while (!cancelled()) {
        const auto callStart = Clock::now();
        call();
        chunk.push_back(secondsSince(callStart) * 1000.0);
        ++runs;
        if (chunk.size() >= 50) {
            onSamples(std::move(chunk));
            chunk.clear();
        }
        const double elapsed = secondsSince(start);
        if (runs >= maxRuns || elapsed >= settings.maxTimeSeconds ||
            (runs >= settings.minRuns && elapsed >= settings.minTimeSeconds))
            break;
    }
    if (!chunk.empty())
        onSamples(std::move(chunk));
    return {{"compiled", runs}, {"warmup", settings.warmup}, {"elapsed_s", secondsSince(start)}};
}

PeakMemory profilerAllocatorPeak(const std::function<void()>& call) {
    namespace impl = torch::profiler::impl;
    namespace profiler = torch::autograd::profiler;
    static std::mutex oneSession;
    const std::lock_guard<std::mutex> lock(oneSession);
    PeakMemory out;
    if (impl::profilerEnabled()) {
        out.reason = "a LibTorch profiler is already active on this thread";
        return out;
    }
    const impl::ProfilerConfig config(impl::ProfilerState::KINETO, /*report_input_shapes=*/false,
                                      /*profile_memory=*/true);
    const std::set<impl::ActivityType> activities{impl::ActivityType::CPU};
    std::unique_ptr<profiler::ProfilerResult> result;
    bool enabled = false;
    try {
        profiler::prepareProfiler(config, activities);
        profiler::enableProfiler(config, activities);
        enabled = true;
        call();
        enabled = false;
        result = profiler::disableProfiler();
    } catch (const std::exception& e) {
        if (enabled) {
            try {
                profiler::disableProfiler();
            } catch (const std::exception&) {
            }
        }
        out.reason = std::string("LibTorch's profiler failed: ") + e.what();
        return out;
    }
    std::vector<std::pair<uint64_t, int64_t>> events; // (start ns, signed bytes)
    for (const auto& e : result->events())
        if (e.deviceType() == c10::DeviceType::CPU && e.name() == "[memory]")
            events.emplace_back(e.startNs(), e.nBytes());
    std::stable_sort(events.begin(), events.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    int64_t running = 0, peak = 0;
    for (const auto& [ns, bytes] : events) {
        running += bytes;
        peak = std::max(peak, running);
    }
    out.events = static_cast<int64_t>(events.size());
    out.method = kPeakMemoryMethod;
    if (events.empty())
        out.reason = "the profiler recorded no CPU allocator event during the call";
    else
        out.bytes = peak;
    return out;
}

} // namespace fusescope::libtorch
