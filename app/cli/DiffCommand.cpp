#include "Commands.h"
#include "ExitCodes.h"
#include "analysis/Format.h"
#include "analysis/RunDiff.h"
#include "codec/Json.h"
#include "report/ReportFile.h"

#include <cstdio>
#include <iostream>
#include <sstream>

namespace fusescope::cli {

namespace {

std::string kernelLabel(const DiffKernel& k) {
    std::string nodes;
    for (size_t i = 0; i < k.nodes.size() && i < 4; ++i)
        nodes += (i ? "," : "") + k.nodes[i];
    if (k.nodes.size() > 4)
        nodes += ",+" + std::to_string(k.nodes.size() - 4);
    return k.name + " [" + nodes + "]";
}

std::string kernelNames(const std::vector<DiffKernel>& ks) {
    std::string out;
    for (const auto& k : ks)
        out += (out.empty() ? "" : " + ") + k.name;
    return out;
}

std::string breakLabel(const GraphBreak& b) {
    return b.reason + (b.file.empty() ? "" : " at " + b.file + ":" + std::to_string(b.line));
}

std::string diffText(const ReportDiff& diff) {
    std::ostringstream out;
    for (const auto& d : diff.backends) {
        out << (d.nameA == d.nameB ? d.nameA : d.nameA + " -> " + d.nameB) << "\n";
        out << "  latency: " << d.sentence << "\n";
        out << "  compile B/A " << format::ratio(d.compileRatio) << ", peak memory B/A "
            << format::ratio(d.memoryRatio);
        if (d.accuracyA && d.accuracyB)
            out << ", accuracy " << accuracyStatus(*d.accuracyA) << " -> " << accuracyStatus(*d.accuracyB)
                << " (max rel " << format::scientific(d.accuracyA->maxRel) << " -> "
                << format::scientific(d.accuracyB->maxRel) << ")";
        out << "\n";
        const auto& k = d.kernels;
        out << "  kernels: " << k.matched.size() << " matched, " << k.added.size() << " added, "
            << k.removed.size() << " removed, " << k.changed.size() << " changed\n";
        for (const auto& m : k.matched)
            if (m.timeDeltaMs || m.a.name != m.b.name)
                out << "    = " << m.a.name << (m.a.name != m.b.name ? " -> " + m.b.name : std::string())
                    << (m.timeDeltaMs ? "  " + format::milliseconds(m.a.timeMs) + " -> " +
                                            format::milliseconds(m.b.timeMs) + " ms"
                                      : std::string())
                    << "\n";
        for (const auto& a : k.added)
            out << "    + " << kernelLabel(a) << "\n";
        for (const auto& r : k.removed)
            out << "    - " << kernelLabel(r) << "\n";
        for (const auto& c : k.changed) {
            char overlap[32];
            std::snprintf(overlap, sizeof overlap, "%.0f%%", 100 * c.overlap());
            out << "    ~ " << c.how << ": " << kernelNames(c.a) << " -> " << kernelNames(c.b) << " ("
                << c.shared.size() << " nodes shared, " << c.onlyA.size() << " only in A, " << c.onlyB.size()
                << " only in B, overlap " << overlap << ")\n";
        }
        out << "  graph breaks: " << d.breaks.added.size() << " added, " << d.breaks.removed.size()
            << " removed\n";
        for (const auto& b : d.breaks.added)
            out << "    + " << breakLabel(b) << "\n";
        for (const auto& b : d.breaks.removed)
            out << "    - " << breakLabel(b) << "\n";
        for (const auto& note : d.notes)
            out << "  note: " << note << "\n";
    }
    for (const auto& name : diff.onlyA)
        out << "only in A: " << name << "\n";
    for (const auto& name : diff.onlyB)
        out << "only in B: " << name << "\n";
    return out.str();
}

} // namespace

int runDiff(const DiffOptions& options) {
    auto a = readReport(options.reportA);
    if (!a) {
        std::fprintf(stderr, "error: %s\n", a.error().message.c_str());
        return kExitError;
    }
    auto b = readReport(options.reportB);
    if (!b) {
        std::fprintf(stderr, "error: %s\n", b.error().message.c_str());
        return kExitError;
    }
    for (const auto* r : {&a, &b})
        for (const auto& note : r->value().readNotes)
            std::fprintf(stderr, "note: report %s: %s\n",
                         (r == &a ? options.reportA : options.reportB).c_str(), note.c_str());
    auto diff = diffReports(a.value(), b.value(), options.backend, options.backendB, options.reportA,
                            options.reportB);
    if (!diff) {
        std::fprintf(stderr, "error: %s\n", diff.error().message.c_str());
        return kExitError;
    }
    if (options.json)
        std::cout << codec::dumpJson(toJson(diff.value()), 2) << std::endl;
    else
        std::cout << diffText(diff.value());
    return kExitOk;
}

} // namespace fusescope::cli
