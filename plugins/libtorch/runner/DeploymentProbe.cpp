#include "DeploymentProbe.h"

#include "AotInductorRunner.h"
#include "TorchScriptRunner.h"
#include "codec/Json.h"
#include "stream/LineSplitter.h"

#include <ATen/Parallel.h>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QProcess>
#include <algorithm>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <memory>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using nlohmann::json;

namespace fusescope::libtorch {

namespace {

constexpr int kChildTimeoutMs = 120'000;

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const size_t n = values.size();
    return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

// "warm" when every page of the artifact was in the page cache before each load, "cold" when
// none was, "partial" otherwise (docs/libtorch.md: nothing here evicts it).
std::string cacheState(double leastResident, double mostResident) {
    if (leastResident < 0)
        return "unknown";
    if (leastResident >= 0.999)
        return "warm";
    if (mostResident <= 0.001)
        return "cold";
    return "partial";
}

// One fresh process: its deploy_load line, or an error text. `wallSeconds` is the process's
// whole life (start, LibTorch's own initialisation, load, first call, exit), seen from here.
json loadInFreshProcess(const QStringList& arguments, double& wallSeconds) {
    QProcess process;
    process.setProgram(QCoreApplication::applicationFilePath());
    process.setArguments(arguments);
    process.setProcessChannelMode(QProcess::ForwardedErrorChannel); // its log goes to the run's
    process.setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGKILL); });
    QElapsedTimer clock;
    clock.start();
    process.start();
    if (!process.waitForStarted(30'000))
        return {{"error", "cannot start a fresh runner process: " + process.errorString().toStdString()}};
    process.closeWriteChannel();
    if (!process.waitForFinished(kChildTimeoutMs)) {
        process.kill();
        process.waitForFinished(5'000);
        return {{"error", "a fresh runner process did not finish loading the artifact in " +
                              std::to_string(kChildTimeoutMs / 1000) + " s"}};
    }
    wallSeconds = static_cast<double>(clock.nsecsElapsed()) / 1e9;
    LineSplitter lines;
    const QByteArray out = process.readAllStandardOutput();
    json reply;
    for (const auto& line : lines.feed(std::string_view(out.constData(), static_cast<size_t>(out.size())))) {
        auto parsed = codec::parseJson(line);
        if (parsed && parsed.value().value.is_object() &&
            parsed.value().value.value("type", std::string()) == "deploy_load")
            reply = std::move(parsed.value().value);
    }
    if (reply.is_null()) {
        const bool crashed = process.exitStatus() == QProcess::CrashExit;
        return {
            {"error", std::string("a fresh runner process ") +
                          (crashed ? "crashed" : "exited with code " + std::to_string(process.exitCode())) +
                          " without reporting its load (its log is in the run's log)"}};
    }
    return reply;
}

} // namespace

double residentFraction(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st = {};
    double fraction = -1;
    if (::fstat(fd, &st) == 0 && st.st_size > 0) {
        const size_t size = static_cast<size_t>(st.st_size);
        void* map = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
        if (map != MAP_FAILED) {
            const long page = ::sysconf(_SC_PAGESIZE);
            const size_t pages = (size + static_cast<size_t>(page) - 1) / static_cast<size_t>(page);
            std::vector<unsigned char> resident(pages);
            if (::mincore(map, size, resident.data()) == 0) {
                const auto in =
                    std::count_if(resident.begin(), resident.end(), [](unsigned char c) { return c & 1; });
                fraction = static_cast<double>(in) / static_cast<double>(pages);
            }
            ::munmap(map, size);
        }
    }
    ::close(fd);
    return fraction;
}

int runDeployLoad(int argc, char** argv, const std::function<void(const json&)>& send) {
    if (argc < 6) {
        send({{"type", "deploy_load"}, {"error", "usage: --deploy-load BACKEND ARTIFACT DATA THREADS"}});
        return 64;
    }
    const std::string backend = argv[2], artifact = argv[3], data = argv[4];
    at::set_num_threads(std::max(std::atoi(argv[5]), 1));
    try {
        std::unique_ptr<LibTorchRunner> runner;
        json exported = {{"data_path", data}};
        TorchScriptRunner* script = nullptr;
        if (backend == "aot_inductor") {
            runner = std::make_unique<AotInductorRunner>();
            exported["package_path"] = artifact;
        } else {
            auto ts = std::make_unique<TorchScriptRunner>(backend == "torchscript_nnc"
                                                              ? TorchScriptRunner::Mode::Nnc
                                                              : TorchScriptRunner::Mode::Interpreter);
            ts->setFirstCallOnly(true);
            script = ts.get();
            runner = std::move(ts);
            exported["model_path"] = artifact;
        }
        auto failure = runner->load(exported);
        if (!failure)
            failure =
                runner->compile(); // TorchScript: the first call; AOTInductor: package load + first call
        if (failure) {
            send({{"type", "deploy_load"}, {"error", failure->message}});
            return 0;
        }
        const double load = script ? script->loadSeconds() : runner->info().value("package_load_s", 0.0);
        send({{"type", "deploy_load"}, {"load_s", load}, {"first_call_s", runner->firstCallSeconds()}});
    } catch (const std::exception& e) {
        send({{"type", "deploy_load"}, {"error", e.what()}});
    }
    return 0;
}

json measureDeployment(const std::string& backend, const json& exported, int threads,
                       const std::function<bool()>& stopRequested, int processes) {
    const bool aoti = backend == "aot_inductor";
    const std::string artifact = exported.value(aoti ? "package_path" : "model_path", std::string());
    const std::string data = exported.value("data_path", std::string());
    json out = {{"artifact", std::filesystem::path(artifact).filename().string()},
                {"loader", aoti ? "torch::inductor::AOTIModelPackageLoader" : "torch::jit::load"},
                {"artifact_bytes", nullptr},
                {"eager_model_bytes", nullptr},
                {"load_s", nullptr},
                {"first_call_s", nullptr},
                {"process_s", nullptr},
                {"fresh_processes", 0},
                {"load_samples_s", json::array()},
                {"first_call_samples_s", json::array()},
                {"file_cache", "unknown"},
                {"file_cache_resident", nullptr}};
    if (auto it = exported.find("eager_model_bytes"); it != exported.end() && it->is_number_integer())
        out["eager_model_bytes"] = *it;
    std::error_code ec;
    const auto size = std::filesystem::file_size(artifact, ec);
    if (ec) {
        out["error"] = "cannot read the size of " + artifact + ": " + ec.message();
        return out;
    }
    out["artifact_bytes"] = static_cast<int64_t>(size);
    std::vector<double> loads, firsts, walls;
    double leastResident = 2, mostResident = -1;
    const QStringList arguments = {kDeployLoadFlag, QString::fromStdString(backend),
                                   QString::fromStdString(artifact), QString::fromStdString(data),
                                   QString::number(std::max(threads, 1))};
    for (int i = 0; i < processes && !stopRequested(); ++i) {
        const double resident = residentFraction(artifact);
        leastResident = std::min(leastResident, resident);
        mostResident = std::max(mostResident, resident);
        double wall = 0;
        const json reply = loadInFreshProcess(arguments, wall);
        if (reply.contains("error")) {
            out["error"] = reply["error"];
            break;
        }
        loads.push_back(reply.value("load_s", 0.0));
        firsts.push_back(reply.value("first_call_s", 0.0));
        walls.push_back(wall);
    }
    out["fresh_processes"] = loads.size();
    out["load_samples_s"] = loads;
    out["first_call_samples_s"] = firsts;
    if (!loads.empty()) {
        out["load_s"] = median(loads);
        out["first_call_s"] = median(firsts);
        out["process_s"] = median(walls);
    }
    if (mostResident >= 0) {
        out["file_cache"] = cacheState(leastResident, mostResident);
        out["file_cache_resident"] = leastResident;
    }
    return out;
}

} // namespace fusescope::libtorch
