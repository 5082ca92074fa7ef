#include "BackendDetails.h"

#include "analysis/CompileTime.h"
#include "analysis/Confidence.h"
#include "analysis/Deployment.h"
#include "analysis/Format.h"
#include "analysis/QuantizationLines.h"
#include "analysis/RunWarnings.h"
#include "analysis/Speedup.h"

#include <QStringList>

namespace fusescope {

namespace {

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

} // namespace

QString backendDetailsText(const Report& report, const BackendRun& run) {
    QString text = QString("%1 (%2): %3\n").arg(q(run.name), q(run.family), q(toString(run.status)));
    if (run.error)
        text += QString("\nerror [%1]: %2\n").arg(q(run.error->code), q(run.error->message));
    for (const auto& note : run.notes)
        text += QString("\nnote: %1\n").arg(q(note));
    for (const auto& w :
         reportWarnings(report)) // run-wide (the check before the first backend, baseline_drift)
        text += QString("\nwarning, whole run [%1]: %2\n").arg(q(w.code), q(w.message));
    for (const auto& w : runWarnings(run))
        text += QString("\nwarning [%1]: %2\n").arg(q(w.code), q(w.message));
    if (const auto speedup = pairedSpeedup(run)) {
        // 95 % order-statistic intervals of the medians (docs/measurement.md, "Confidence intervals").
        text += QString("\nspeedup %1").arg(q(format::ratio(speedup->median)));
        if (speedup->ci95)
            text += QString(", 95% CI %1-%2 (+-%3 %)")
                        .arg(q(format::ratio(speedup->ci95->lo)), q(format::ratio(speedup->ci95->hi)))
                        .arg(speedup->ci95->halfWidthPercent(), 0, 'f', 1);
        if (const auto latency = medianConfidenceInterval(run.compiledSamplesMs))
            text += QString("; compiled %1 ms, 95% CI %2-%3 ms")
                        .arg(q(format::milliseconds(latency->median)), q(format::milliseconds(latency->lo)),
                             q(format::milliseconds(latency->hi)));
        if (const auto c = confidenceOutcome(run); c && c->targetPct > 0)
            text +=
                QString("; target +-%1 % %2").arg(c->targetPct).arg(c->reached ? "reached" : "NOT reached");
        text += "\n";
    }
    if (run.placement) {
        QStringList cpus;
        for (int cpu : run.placement->affinity)
            cpus << QString::number(cpu);
        text += QString("\nthreads: %1%2, CPUs %3%4%5\n")
                    .arg(run.placement->threads)
                    .arg(run.placement->threadsRequested ? "" : " (default)")
                    .arg(cpus.join(','))
                    .arg(run.placement->pin.empty() ? "" : " (pinned)")
                    .arg(run.placement->malloc.empty() ? QString() : ", malloc " + q(run.placement->malloc));
    }
    if (run.accuracy)
        text += QString("\naccuracy: max abs %1, max rel %2, cosine %3, rule %4 at %5: %6\n")
                    .arg(run.accuracy->maxAbs)
                    .arg(run.accuracy->maxRel)
                    .arg(run.accuracy->cosine, 0, 'f', 6)
                    .arg(q(run.accuracy->rule))
                    .arg(run.accuracy->tolerance)
                    .arg(run.accuracy->pass ? "pass" : "FAIL") +
                (run.accuracy->pass
                     ? QString()
                     : QString("accuracy status: %1%2\n")
                           .arg(q(accuracyStatus(*run.accuracy)),
                                run.accuracy->reason.empty() ? QString() : ": " + q(run.accuracy->reason)));
    if (run.accuracy && run.accuracy->firstDivergence) // --bisect (docs/accuracy.md)
        text += "accuracy bisect: " + q(firstDivergenceText(*run.accuracy->firstDivergence)) + "\n";
    if (const auto lines = compileTimeLines(run); !lines.empty()) { // analysis/CompileTime.h
        text += "\n";
        for (const auto& line : lines)
            text += q(line) + "\n";
    }
    if (const auto lines = deploymentLines(run); !lines.empty()) { // analysis/Deployment.h
        text += "\ndeployment: ";
        for (const auto& line : lines)
            text += q(line) + "\n";
    }
    if (const auto lines = quantizationLines(run); !lines.empty()) { // analysis/QuantizationLines.h
        text += "\nquantization: ";
        for (size_t i = 0; i < lines.size(); ++i)
            text += (i ? "  " : "") + q(lines[i]) + "\n";
    }
    if (!run.memoryMethod.empty())
        text += QString("memory: %1 (eager %2), method %3\n")
                    .arg(q(format::bytes(run.peakMemoryBytes)), q(format::bytes(run.eagerPeakMemoryBytes)),
                         q(run.memoryMethod));
    if (!run.stages.empty()) {
        text += "\nstages:\n";
        for (const auto& s : run.stages) {
            text += QString("  %1  %2 nodes").arg(q(s.key()), -16).arg(s.computeNodeCount());
            if (s.fusion == "after")
                text += QString(", %1 kernels").arg(s.kernelCount());
            if (s.status != StageStatus::Ok)
                text += QString("  [%1: %2]").arg(q(toString(s.status)), q(s.reason));
            text += "\n";
        }
    }
    for (const auto& b : run.breakReasons)
        text += QString("graph break: %1 (%2:%3)\n").arg(q(b.reason), q(b.file)).arg(b.line);
    if (report.provenance) { // what produced the report: FuseScope, torch build, environment, machine
        text += "\n";
        for (const auto& line : provenanceLines(*report.provenance))
            text += q(line) + "\n";
    }
    if (run.error && !run.error->traceback.empty())
        text += "\ntraceback:\n" + q(run.error->traceback);
    if (!run.log.empty())
        text += "\nworker log (tail):\n" +
                q(run.log.size() > 4000 ? run.log.substr(run.log.size() - 4000) : run.log);
    return text;
}

} // namespace fusescope
