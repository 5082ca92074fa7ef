// fusescope-cli sweep / suite (docs/sweeps.md). The sweep itself is driven by the Python package
// fusescope_sweep (app/sweep; Ray is a Python library), run with the worker's interpreter; this
// command starts it, prints its progress and keeps DIR/suite.json current from the reports as jobs
// finish.
#include "SweepCommands.h"

#include "ExitCodes.h"
#include "OptionChecks.h"
#include "analysis/Suite.h"
#include "capture/WorkerConfig.h"
#include "codec/Json.h"
#include "codec/SweepCodec.h"
#include "files/PathChecks.h"
#include "report/ReportFile.h"
#include "stream/LineSplitter.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QTimer>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>

namespace fusescope::cli {

namespace {

std::atomic<int> g_signals{0};

void onSignal(int) {
    ++g_signals;
}

// Rewrites DIR/suite.json from sweep.json and the reports; a failure is reported, not fatal.
std::optional<Suite> refreshSuite(const std::string& dir, bool quiet) {
    auto suite = loadSuite(dir);
    if (!suite) {
        if (!quiet)
            std::fprintf(stderr, "warning: suite: %s\n", suite.error().message.c_str());
        return std::nullopt;
    }
    if (auto err = writeSuite(suite.value()))
        std::fprintf(stderr, "error: %s\n", err->message.c_str());
    return std::move(suite.value());
}

std::string joined(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& s : items)
        out += (out.empty() ? "" : ",") + s;
    return out;
}

// One progress line per driver event; returns the driver's final exit code on `done`.
void handleEvent(const SweepEvent& e, const SweepCommands& c, std::optional<int>& doneCode) {
    switch (e.kind) {
    case SweepEvent::Kind::Plan:
        if (!c.quiet)
            std::fprintf(stderr, "sweep %s: %d job(s), %d already finished, %d to run (%s executor)\n",
                         e.name.c_str(), e.jobs, e.skipped, e.toRun, e.executor.c_str());
        break;
    case SweepEvent::Kind::Finished: {
        refreshSuite(c.out, c.quiet);
        if (c.quiet)
            return;
        const SuiteJob& job = e.job;
        const std::string axes = job.axes.empty() ? std::string() : " " + codec::dumpJson(job.axes);
        std::fprintf(stderr, "[%d/%d] %-11s %s {%s}%s%s%s%s\n", e.done, e.total, job.status.c_str(),
                     job.model.c_str(), joined(job.backends).c_str(), axes.c_str(),
                     job.seconds ? (" " + std::to_string(int(*job.seconds + 0.5)) + " s").c_str() : "",
                     job.node.empty() ? "" : (" on " + job.node).c_str(),
                     job.reason.empty() ? "" : (": " + job.reason).c_str());
        break;
    }
    case SweepEvent::Kind::Done:
        doneCode = e.exitCode.value_or(kExitError);
        break;
    case SweepEvent::Kind::Started:
    case SweepEvent::Kind::Other:
        break;
    }
}

// The folder holding the fusescope_sweep package: FUSESCOPE_SWEEP_DIR, else the one installed with
// this binary (<prefix>/share/fusescope/sweep), else the source tree's app/sweep.
QString sweepDriverDir(const QProcessEnvironment& env) {
    const QString set = env.value("FUSESCOPE_SWEEP_DIR");
    if (!set.isEmpty())
        return set;
    const QString installed =
        QDir(QCoreApplication::applicationDirPath()).filePath("../share/fusescope/sweep");
    if (QFileInfo::exists(installed + "/fusescope_sweep"))
        return QDir::cleanPath(installed);
    return QStringLiteral(FUSESCOPE_SOURCE_SWEEP_DIR);
}

int runSweep(const SweepCommands& c) {
    const WorkerConfig config = WorkerConfig::fromEnvironment();
    QProcessEnvironment env = config.environment; // the worker's PYTHONPATH, the driver's first
    env.insert("PYTHONPATH", sweepDriverDir(env) + ':' + env.value("PYTHONPATH"));
    QProcess driver;
    driver.setProcessEnvironment(env);
    driver.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    QStringList args = {"-m",
                        "fusescope_sweep",
                        QString::fromStdString(c.spec),
                        "--out",
                        QString::fromStdString(c.out),
                        "--cli",
                        QCoreApplication::applicationFilePath(),
                        "--executor",
                        QString::fromStdString(c.executor),
                        "--jobs",
                        QString::number(c.jobs)};
    if (!c.rayAddress.empty())
        args << "--ray-address" << QString::fromStdString(c.rayAddress);
    if (c.retryFailed)
        args << "--retry-failed";

    std::optional<int> doneCode;
    LineSplitter lines;
    auto drain = [&] {
        for (const auto& line : lines.feed(driver.readAllStandardOutput().toStdString())) {
            auto parsed = codec::parseJson(line);
            auto event = parsed && parsed.value().value.is_object()
                             ? codec::decodeSweepEvent(parsed.value().value)
                             : Result<SweepEvent>(Error{"protocol_error", "not an event"});
            if (event)
                handleEvent(event.value(), c, doneCode);
            else if (!line.empty())
                std::fprintf(stderr, "%s\n", line.c_str()); // not an event: pass it on
        }
    };
    QObject::connect(&driver, &QProcess::readyReadStandardOutput, drain);
    QObject::connect(&driver, &QProcess::finished, qApp, &QCoreApplication::quit);
    QObject::connect(&driver, &QProcess::errorOccurred, [&](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart) {
            std::fprintf(stderr, "error: cannot start the sweep driver with %s: %s\n",
                         config.python.toStdString().c_str(), driver.errorString().toStdString().c_str());
            QCoreApplication::exit(0);
        }
    });

    // Ctrl+C reaches the driver too when it comes from the terminal; a signal sent to this process
    // alone is passed on. The driver stops its jobs (each compare saves what finished) and exits 4.
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);
    int forwarded = 0;
    QTimer poll;
    QObject::connect(&poll, &QTimer::timeout, [&] {
        const int seen = g_signals.load();
        if (seen > forwarded && driver.processId() > 0) {
            forwarded = seen;
            ::kill(static_cast<pid_t>(driver.processId()), SIGINT);
        }
    });
    poll.start(100);

    driver.start(config.python, args);
    if (driver.waitForStarted(30'000))
        QCoreApplication::exec();
    else if (driver.error() == QProcess::FailedToStart) {
        std::fprintf(stderr, "error: cannot start the sweep driver with %s: %s\n",
                     config.python.toStdString().c_str(), driver.errorString().toStdString().c_str());
        return kExitError;
    }
    driver.waitForFinished(-1);
    drain();
    const int code =
        doneCode ? *doneCode : (driver.exitStatus() == QProcess::NormalExit ? driver.exitCode() : kExitError);
    if (code == kExitUsage)
        return code;
    auto suite = refreshSuite(c.out, c.quiet);
    if (!suite)
        return code == kExitOk ? kExitError : code;
    if (c.json)
        std::cout << codec::dumpJson(suiteJson(*suite), 2) << std::endl;
    else
        std::cout << suiteTable(*suite);
    if (!c.quiet)
        std::fprintf(stderr, "suite written to %s\n",
                     (std::filesystem::path(c.out) / "suite.json").string().c_str());
    return code;
}

int runSuite(const SweepCommands& c) {
    auto suite = loadSuite(c.dir);
    if (!suite) {
        std::fprintf(stderr, "error: %s\n", suite.error().message.c_str());
        return kExitError;
    }
    if (!c.csv.empty()) {
        if (auto bad = files::checkOutputPath(c.csv, {})) {
            std::fprintf(stderr, "error: --csv: %s\n", bad->message.c_str());
            return kExitUsage;
        }
        if (auto err = writeFileAtomically(c.csv, suiteCsv(suite.value()))) {
            std::fprintf(stderr, "error: --csv: %s\n", err->message.c_str());
            return kExitError;
        }
    }
    if (c.json)
        std::cout << codec::dumpJson(suiteJson(suite.value()), 2) << std::endl;
    else
        std::cout << suiteTable(suite.value());
    return kExitOk;
}

} // namespace

void addSweepCommands(CLI::App& cli, SweepCommands& c) {
    c.sweep = cli.add_subcommand("sweep", "Run every job of a sweep spec (models x backends x axes), "
                                          "locally or on a Ray cluster; rerun to resume");
    c.sweep->add_option("spec", c.spec, "The sweep spec, a TOML file (docs/sweeps.md)")->required();
    c.sweep->add_option("-o,--out", c.out, "Folder for the reports, sweep.json and suite.json")->required();
    c.sweep
        ->add_option("--executor", c.executor,
                     "local: processes on this machine; ray: tasks on a Ray cluster")
        ->check(CLI::IsMember({"local", "ray"}))
        ->capture_default_str();
    c.sweep->add_option("--ray-address", c.rayAddress,
                        "Ray cluster to run on (ray://HOST:10001 or HOST:6379); default: start a local one");
    c.sweep
        ->add_option("-j,--jobs", c.jobs,
                     "Jobs measuring at once on this machine (local) or in the local Ray cluster; each "
                     "gets its own CPUs (--pin)")
        ->check(countIn(1, 1024))
        ->capture_default_str();
    c.sweep->add_flag("--retry-failed", c.retryFailed, "Also rerun the jobs that failed or partly failed");
    c.sweep->add_flag("-q,--quiet", c.quiet, "No progress on stderr");
    c.sweep->add_flag("--json", c.json, "Print suite.json instead of the table at the end");

    c.suite =
        cli.add_subcommand("suite", "Print a sweep folder's suite: jobs x backends and per-backend totals");
    c.suite->add_option("dir", c.dir, "A folder written by fusescope-cli sweep")->required();
    c.suite->add_flag("--json", c.json, "Print suite.json as computed now");
    c.suite->add_option("--csv", c.csv, "Also write one row per job and backend to FILE")->type_name("FILE");
}

std::optional<int> runSweepCommands(const SweepCommands& c) {
    if (c.sweep && *c.sweep) {
        if (c.executor != "ray" && !c.rayAddress.empty()) {
            std::fprintf(stderr, "error: --ray-address needs --executor ray\n");
            return kExitUsage;
        }
        return runSweep(c);
    }
    if (c.suite && *c.suite)
        return runSuite(c);
    return std::nullopt;
}

} // namespace fusescope::cli
