#include "ProvenanceCollect.h"

#include <QDir>
#include <QFile>
#include <QProcessEnvironment>
#include <QSysInfo>
#include <QThread>
#include <array>

namespace fusescope {

namespace {

// Set once by main() before sessions start; read by every collectProvenance().
std::string g_frontEnd;
std::vector<std::string> g_arguments;

// Long values (a TORCH_LOGS list, a path) are kept, runaway ones cut: a report stays small.
constexpr size_t kMaxValue = 4096;
constexpr size_t kMaxVariables = 200;

bool startsWith(const std::string& s, const char* prefix) {
    return s.rfind(prefix, 0) == 0;
}

std::string trimmed(const std::string& s) {
    const auto b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos)
        return {};
    const auto e = s.find_last_not_of(" \t\r\n");
    return s.substr(b, e - b + 1);
}

std::string readSmallFile(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.read(1 << 20).toStdString();
}

// GPU models from the NVIDIA driver (/proc/driver/nvidia/gpus/*/information, "Model:"), which
// does not need a CUDA build of torch.
std::vector<std::string> nvidiaGpus() {
    std::vector<std::string> out;
    const QDir dir("/proc/driver/nvidia/gpus");
    for (const auto& entry : dir.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
        const std::string text = readSmallFile(dir.filePath(entry) + "/information");
        size_t at = text.find("Model:");
        if (at == std::string::npos)
            continue;
        at += 6;
        out.push_back(trimmed(text.substr(at, text.find('\n', at) - at)));
    }
    return out;
}

} // namespace

void setProcessOrigin(const std::string& frontEnd, const std::vector<std::string>& arguments) {
    g_frontEnd = frontEnd;
    g_arguments = arguments;
}

bool isCompileEnvironmentVariable(const std::string& name) {
    static const std::array<const char*, 8> prefixes{"TORCHINDUCTOR_", "TORCH_COMPILE_", "TORCHDYNAMO_",
                                                     "INDUCTOR_",      "TRITON_",        "PYTORCH_",
                                                     "TORCH_LOGS",     "TORCH_TRACE"};
    static const std::array<const char*, 4> exact{"CUDA_VISIBLE_DEVICES", "OMP_NUM_THREADS",
                                                  "MKL_NUM_THREADS", "KMP_AFFINITY"};
    for (const char* p : prefixes)
        if (startsWith(name, p))
            return true;
    for (const char* e : exact)
        if (name == e)
            return true;
    return false;
}

std::string cpuModelFromCpuinfo(const std::string& cpuinfo) {
    for (const char* key : {"model name", "Model", "Hardware", "cpu model"}) {
        size_t at = 0;
        while ((at = cpuinfo.find(key, at)) != std::string::npos) {
            const bool lineStart = at == 0 || cpuinfo[at - 1] == '\n';
            const size_t colon = cpuinfo.find(':', at);
            const size_t eol = cpuinfo.find('\n', at);
            if (lineStart && colon != std::string::npos && colon < eol &&
                trimmed(cpuinfo.substr(at, colon - at)) == key)
                return trimmed(cpuinfo.substr(colon + 1, eol == std::string::npos ? eol : eol - colon - 1));
            at += 1;
        }
    }
    return {};
}

Provenance collectProvenance() {
    Provenance p;
    p.fusescope = FUSESCOPE_VERSION;
    p.frontEnd = g_frontEnd;
    p.commandLine = g_arguments;
    const auto env = QProcessEnvironment::systemEnvironment();
    for (const auto& key : env.keys()) {
        const std::string name = key.toStdString();
        if (!isCompileEnvironmentVariable(name) || p.environment.size() >= kMaxVariables)
            continue;
        std::string value = env.value(key).toStdString();
        if (value.size() > kMaxValue)
            value = value.substr(0, kMaxValue) + "...";
        p.environment[name] = value;
    }
    p.cpu = cpuModelFromCpuinfo(readSmallFile("/proc/cpuinfo"));
    if (p.cpu.empty())
        p.cpu = QSysInfo::currentCpuArchitecture().toStdString();
    p.cpuCount = QThread::idealThreadCount();
    p.gpus = nvidiaGpus();
    p.os = QSysInfo::prettyProductName().toStdString() + ", " + QSysInfo::kernelType().toStdString() + " " +
           QSysInfo::kernelVersion().toStdString();
    return p;
}

void addWorkerEnvironment(Provenance& p, const WorkerEnvironment& env) {
    p.torch = env.torch;
    p.torchGit = env.torchGit;
    p.torchBuild = env.torchBuild;
    p.python = env.python;
    if (p.gpus.empty() && env.cuda.is_object() && env.cuda.contains("devices") &&
        env.cuda["devices"].is_array())
        for (const auto& d : env.cuda["devices"])
            if (d.is_string())
                p.gpus.push_back(d.get<std::string>());
}

} // namespace fusescope
