#include "LibTorchUtil.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <torch/csrc/autograd/profiler_kineto.h>
#include <torch/script.h>

namespace fusescope::libtorch {

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

namespace {

// The worker's quantization rule (quantize.py COSINE_MIN, REL_ERROR_MAX).
constexpr double kQuantizedCosineMin = 0.99;
constexpr double kQuantizedRelErrorMax = 0.1;

std::string describeTensor(const at::Tensor& t) {
    std::string shape;
    for (auto size : t.sizes())
        shape += (shape.empty() ? "" : ", ") + std::to_string(size);
    return std::string(c10::toString(t.scalar_type())) + "[" + shape + "]";
}

// Where the NaNs and infinities of one output are (accuracy.py _nonfinite), or empty.
std::string nonfiniteIn(const std::string& path, const at::Tensor& eager, const at::Tensor& compiled) {
    std::string found;
    for (const auto& [side, t] :
         {std::pair<const char*, const at::Tensor&>{"eager", eager}, {"compiled", compiled}}) {
        const int64_t nan = at::isnan(t).sum().item<int64_t>();
        const int64_t inf = at::isinf(t).sum().item<int64_t>();
        std::string what;
        if (nan)
            what = std::to_string(nan) + " NaN";
        if (inf)
            what += (what.empty() ? "" : " and ") + std::to_string(inf) + " inf";
        if (!what.empty())
            found += (found.empty() ? "" : " and ") + what + " in " + side;
    }
    return found.empty() ? std::string()
                         : path + " has " + found + " (of " + std::to_string(eager.numel()) + " values)";
}

} // namespace

Accuracy compareOutputs(const std::vector<at::Tensor>& outputs, const std::vector<at::Tensor>& reference,
                        const std::string& quantized) {
    // Statuses and reasons as the worker names them (accuracy.py, docs/measurement.md "Statuses"):
    // pass, fail_accuracy, nonfinite; paths are output[i] over the flattened tensor leaves.
    Accuracy acc;
    acc.tolerance = quantized.empty() ? 1e-3 : kQuantizedRelErrorMax;
    acc.precision = quantized.empty() ? "fp32" : quantized;
    if (outputs.size() != reference.size()) {
        acc.rule = "structure";
        acc.status = "fail_accuracy";
        acc.reason = "eager returned " + std::to_string(reference.size()) + " tensors, compiled " +
                     std::to_string(outputs.size());
        return acc;
    }
    bool anyFloat = false;
    std::string failure;
    std::vector<std::string> nonfinite;
    for (const auto& e : reference)
        if (quantized.empty() && (e.scalar_type() == at::kHalf || e.scalar_type() == at::kBFloat16))
            acc.tolerance = 1e-2;
    double sumSq = 0, dot = 0, normC = 0, normE = 0;
    int64_t count = 0;
    for (size_t i = 0; i < outputs.size(); ++i) {
        const auto& c = outputs[i];
        const auto& e = reference[i];
        const std::string path = "output[" + std::to_string(i) + "]";
        if (c.sizes() != e.sizes() || c.scalar_type() != e.scalar_type()) {
            if (failure.empty())
                failure = path + ": eager " + describeTensor(e) + ", compiled " + describeTensor(c);
            continue;
        }
        if (!e.is_floating_point()) {
            if (!c.equal(e) && failure.empty())
                failure = path + " (" + describeTensor(e) +
                          ") is not identical: " + std::to_string(c.ne(e).sum().item<int64_t>()) + " of " +
                          std::to_string(e.numel()) + " elements differ";
            continue;
        }
        anyFloat = true;
        if (auto where = nonfiniteIn(path, e, c); !where.empty()) {
            nonfinite.push_back(where);
            continue; // compared by status, left out of the metrics
        }
        const auto cd = c.to(at::kDouble).flatten();
        const auto ed = e.to(at::kDouble).flatten();
        const auto diff = (cd - ed).abs();
        double leafAbs = 0;
        if (diff.numel() > 0) {
            leafAbs = diff.max().item<double>();
            acc.maxAbs = std::max(acc.maxAbs, leafAbs);
            acc.maxRel = std::max(acc.maxRel, (diff / ed.abs().clamp_min(1e-6)).max().item<double>());
        }
        if (!quantized.empty()) {
            const double normLeaf = ed.norm().item<double>();
            const double rel = normLeaf > 0 ? (cd - ed).norm().item<double>() / normLeaf
                                            : (diff.numel() && leafAbs > 0 ? INFINITY : 0.0);
            const double norms = normLeaf * cd.norm().item<double>();
            const double cosine = norms > 0 ? (cd * ed).sum().item<double>() / norms : (rel == 0 ? 1.0 : 0.0);
            if ((rel > acc.tolerance || cosine < kQuantizedCosineMin) && failure.empty()) {
                char text[200];
                std::snprintf(text, sizeof(text),
                              "relative L2 error %.3g (at most %g) and cosine similarity %.4f (at least %g) "
                              "against fp32 eager",
                              rel, acc.tolerance, cosine, kQuantizedCosineMin);
                failure = path + " is outside the quantization rule: " + text;
            }
        } else if (!at::allclose(c, e, acc.tolerance, acc.tolerance) && failure.empty()) {
            char text[160];
            std::snprintf(text, sizeof(text), "max abs %.3g, allclose at rtol=atol=%g fails", leafAbs,
                          acc.tolerance);
            failure = path + " is outside the tolerance: " + text;
        }
        sumSq += (diff * diff).sum().item<double>();
        dot += (cd * ed).sum().item<double>();
        normC += (cd * cd).sum().item<double>();
        normE += (ed * ed).sum().item<double>();
        count += diff.numel();
    }
    acc.rule = anyFloat
                   ? (count > 0 || nonfinite.empty() ? (quantized.empty() ? "allclose" : "quantized") : "")
                   : "exact";
    acc.rmse = count > 0 ? std::sqrt(sumSq / static_cast<double>(count)) : 0;
    acc.cosine = normC > 0 && normE > 0 ? dot / std::sqrt(normC * normE) : (normC == normE ? 1.0 : 0.0);
    if (!nonfinite.empty()) {
        acc.status = "nonfinite";
        std::string named;
        for (size_t i = 0; i < nonfinite.size() && i < 3; ++i)
            named += (i ? "; " : "") + nonfinite[i];
        acc.reason =
            "non-finite values: " + named +
            (nonfinite.size() > 3 ? "; and " + std::to_string(nonfinite.size() - 3) + " more outputs" : "") +
            (failure.empty() ? "" : "; also " + failure);
    } else if (!failure.empty()) {
        acc.status = "fail_accuracy";
        acc.reason = failure;
    } else {
        acc.status = "pass";
    }
    acc.pass = acc.status == "pass";
    return acc;
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
