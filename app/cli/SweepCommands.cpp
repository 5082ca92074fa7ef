// fusescope-cli sweep / suite (docs/sweeps.md). The sweep itself is driven by the Python package
// fusescope_sweep beside the worker (Ray is a Python library); this command starts it, prints its
// progress and keeps DIR/suite.json current from the reports as jobs finish.
#include "SweepCommands.h"

#include "ExitCodes.h"
#include "OptionChecks.h"
#include "analysis/Suite.h"
#include "capture/WorkerConfig.h"
#include "codec/Json.h"
#include "codec/Reader.h"
#include "files/PathChecks.h"
#include "report/ReportFile.h"

#include <QCoreApplication>
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
void handleEvent(const nlohmann::json& event, const SweepCommands& c, std::optional<int>& doneCode) {
    const codec::Reader r(event);
    const std::string kind = r.str("event");
    if (kind == "plan") {
        if (!c.quiet)
            std::fprintf(stderr, "sweep %s: %d job(s), %d already finished, %d to run (%s executor)\n",
                         r.str("name").c_str(), r.integer("jobs"), r.integer("skipped"), r.integer("to_run"),
                         r.str("executor").c_str());
    } else if (kind == "finished") {
        refreshSuite(c.out, c.quiet);
        if (c.quiet)
            return;
        std::string axes;
        if (auto a = r.raw("axes"); a.is_object() && !a.empty())
            axes = " " + codec::dumpJson(a);
        const auto seconds = r.optNumber("seconds");
        std::fprintf(stderr, "[%d/%d] %-11s %s {%s}%s%s%s%s\n", r.integer("done"), r.integer("total"),
                     r.str("status").c_str(), r.str("model").c_str(), joined(r.strings("backends")).c_str(),
                     axes.c_str(), seconds ? (" " + std::to_string(int(*seconds + 0.5)) + " s").c_str() : "",
                     r.str("node").empty() ? "" : (" on " + r.str("node")).c_str(),
                     r.str("reason").empty() ? "" : (": " + r.str("reason")).c_str());
    } else if (kind == "done") {
        doneCode = r.integer("exit", kExitError);
    }
}

int runSweep(const SweepCommands& c) {
    const WorkerConfig config = WorkerConfig::fromEnvironment();
    QProcess driver;
    driver.setProcessEnvironment(config.environment);
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
    std::string buffer;
    auto drain = [&] {
        buffer += driver.readAllStandardOutput().toStdString();
        size_t nl;
        while ((nl = buffer.find('\n')) != std::string::npos) {
            const std::string line = buffer.substr(0, nl);
            buffer.erase(0, nl + 1);
            auto parsed = codec::parseJson(line);
            if (parsed && parsed.value().value.is_object())
                handleEvent(parsed.value().value, c, doneCode);
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
