#include "Provenance.h"

namespace fusescope {

namespace {

// One argument as a shell would need it to be typed back.
std::string quoted(const std::string& arg) {
    if (!arg.empty() && arg.find_first_of(" \t\n'\"\\$`*?[]{}();&|<>!#~") == std::string::npos)
        return arg;
    std::string out = "'";
    for (char c : arg)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

} // namespace

std::vector<std::string> provenanceLines(const Provenance& p) {
    std::vector<std::string> out;
    std::string produced = "produced by: FuseScope " + (p.fusescope.empty() ? "?" : p.fusescope);
    if (!p.frontEnd.empty())
        produced += " (" + p.frontEnd + ")";
    out.push_back(produced);
    if (!p.commandLine.empty()) {
        std::string line = "command line:";
        for (const auto& arg : p.commandLine)
            line += " " + quoted(arg);
        out.push_back(line);
    }
    if (!p.torch.empty()) {
        std::string t = "torch: " + p.torch;
        if (!p.torchBuild.empty())
            t += ", " + p.torchBuild;
        if (!p.torchGit.empty())
            t += ", git " + p.torchGit;
        if (!p.python.empty())
            t += "; python " + p.python;
        out.push_back(t);
    }
    std::string env = "compile environment:";
    if (p.environment.empty())
        env += " none set";
    for (const auto& [k, v] : p.environment)
        env += " " + k + "=" + quoted(v);
    out.push_back(env);
    std::string machine = "machine: " + (p.cpu.empty() ? std::string("CPU unknown") : p.cpu);
    if (p.cpuCount > 0)
        machine += " x" + std::to_string(p.cpuCount);
    machine += "; GPU: ";
    if (p.gpus.empty())
        machine += "none";
    for (size_t i = 0; i < p.gpus.size(); ++i)
        machine += (i ? ", " : "") + p.gpus[i];
    if (!p.os.empty())
        machine += "; " + p.os;
    out.push_back(machine);
    return out;
}

} // namespace fusescope
