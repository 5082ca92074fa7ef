// fusescope: the desktop application. `fusescope [MODEL | REPORT.fscope] [--backends LIST] [--run]`
#include "DiffWindow.h"
#include "GraphPanel.h"
#include "MainWindow.h"
#include "PythonSetting.h"
#include "capture/CompareSession.h"
#include "capture/ProvenanceCollect.h"
#include "capture/SessionPlan.h"
#include "capture/WorkerConfig.h"
#include "codec/Utf8.h"
#include "engine/ReportModel.h"
#include "files/PathChecks.h"
#include "import/Import.h"
#include "model/BackendEntry.h"
#include "report/ReportFile.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QFile>
#include <QFileInfo>
#include <QPointer>
#include <QTimer>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>

namespace {

constexpr int kExitNoDisplay = 1;
constexpr int kExitUsage = 64; // as fusescope-cli's (docs/cli.md)

// "roofline" is the Traces tab with its Roofline chart in front (docs/roofline.md).
const QStringList kTabs = {"comparison", "graphs", "charts",  "traces", "roofline",
                           "breaks",     "shapes", "modules", "tuning"};

const char* const kHeadlessHints =
    "  Without a screen, use fusescope-cli, the same comparisons headless (fusescope-cli --help);\n"
    "  or draw the window off-screen: QT_QPA_PLATFORM=offscreen fusescope MODEL --run --screenshot "
    "FILE.png;\n"
    "  or give it a virtual display: xvfb-run fusescope ...\n";

// The user picked a platform plugin (offscreen, vnc, ...): Qt's choice, not ours to second-guess.
bool platformChosen(int argc, char** argv) {
    if (!qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        return true;
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "-platform") == 0 || std::strcmp(argv[i], "--platform") == 0 ||
            std::strncmp(argv[i], "-platform=", 10) == 0)
            return true;
    return false;
}

bool displayNamed() {
    return !qEnvironmentVariableIsEmpty("DISPLAY") || !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY");
}

QtMessageHandler g_previousHandler = nullptr;
// The off-screen platform only reads the command line when there is no display: its warnings
// (XDG_RUNTIME_DIR not set, ...) are about a platform the user never chose.
bool g_quietPlatform = false;

// When no platform plugin starts (DISPLAY names a server that is not there, a Wayland socket is
// gone) Qt ends with qFatal, an abort and a core dump: say what happened and exit instead.
void platformFailureHandler(QtMsgType type, const QMessageLogContext& context, const QString& message) {
    if (type == QtFatalMsg && message.contains("platform plugin")) {
        const QByteArray display = qgetenv("DISPLAY");
        const QByteArray wayland = qgetenv("WAYLAND_DISPLAY");
        std::fprintf(stderr,
                     "fusescope: cannot open the display (DISPLAY=%s, WAYLAND_DISPLAY=%s): no Qt platform "
                     "plugin could start.\n%s",
                     display.isEmpty() ? "unset" : display.constData(),
                     wayland.isEmpty() ? "unset" : wayland.constData(), kHeadlessHints);
        std::fflush(stderr);
        std::_Exit(kExitNoDisplay);
    }
    if (g_quietPlatform && type != QtFatalMsg)
        return;
    if (g_previousHandler)
        g_previousHandler(type, context, message);
    else
        std::fprintf(stderr, "%s\n", qPrintable(qFormatLogMessage(type, context, message)));
}

int usageError(const std::string& message) {
    std::fprintf(stderr, "fusescope: %s\nRun fusescope --help for the options.\n", message.c_str());
    return kExitUsage;
}

std::string local(const QString& s) {
    return QFile::encodeName(s).toStdString();
}

// What the command line names, checked before a window exists; the reason when it is bad.
// A TORCH_TRACE directory or log (or another format import/Import.h detects): opened as a report,
// imported on the engine thread (docs/import.md).
bool importable(const std::string& path) {
    return !QFileInfo(QString::fromStdString(path + "/sweep.json")).isFile() &&
           bool(fusescope::import::detectImporter(path));
}

std::optional<std::string> badArgument(const QCommandLineParser& parser, const QCommandLineOption& backends,
                                       const QCommandLineOption& screenshot, const QCommandLineOption& tab) {
    const QStringList inputs = parser.positionalArguments();
    if (inputs.size() > 1)
        return "one input at most (a model or a .fscope report), not " + std::to_string(inputs.size()) +
               ": " + local(inputs.join(' '));
    // The CLI's reading of --backends (capture/SessionPlan.h): split outside {...}, [...] and "...".
    if (auto entries = fusescope::parseBackendList(parser.value(backends).toStdString()); !entries)
        return "--backends: " + entries.error().message;
    if (parser.isSet(tab) && !kTabs.contains(parser.value(tab), Qt::CaseInsensitive))
        return "--tab: '" + parser.value(tab).toStdString() + "' is not one of " +
               kTabs.join(", ").toStdString();
    std::vector<fusescope::files::InputFile> read;
    if (!inputs.isEmpty()) {
        const std::string input = local(inputs.front());
        // A sweep folder (it has sweep.json) opens as the Suite view (docs/sweeps.md).
        const bool report = inputs.front().endsWith(".fscope") ||
                            QFileInfo(inputs.front() + "/sweep.json").isFile() || importable(input);
        // A report is read by readReport, which refuses what is not a file; a model goes to the worker.
        if (!report) {
            if (auto bad = fusescope::files::checkModelPath(input))
                return "model: " + bad->message;
        }
        if (!fusescope::files::isModelName(input))
            read.push_back({input, report ? "the report" : "the model file"});
    }
    if (parser.isSet(screenshot)) {
        if (auto bad = fusescope::files::checkOutputPath(local(parser.value(screenshot)), read))
            return "--screenshot: " + bad->message;
    }
    return std::nullopt;
}

} // namespace

int main(int argc, char** argv) {
    fusescope::setProcessOrigin("gui", std::vector<std::string>(argv, argv + argc));
    // Paths reach requests and reports as UTF-8 text; Qt would turn other bytes into U+FFFD and
    // name a different file.
    for (int i = 1; i < argc; ++i)
        if (!fusescope::utf8::isValid(argv[i]))
            return usageError("argument " + fusescope::files::printable(argv[i]) +
                              " is not valid UTF-8 (FuseScope keeps paths as UTF-8 text); rename the file");

    // Without a display the command line is still read (--help, --version and bad arguments need
    // none) on the off-screen platform; only then is the window refused.
    const bool noDisplay = !platformChosen(argc, argv) && !displayNamed();
    if (noDisplay)
        qputenv("QT_QPA_PLATFORM", "offscreen");
    g_quietPlatform = noDisplay;
    g_previousHandler = qInstallMessageHandler(platformFailureHandler);
    QApplication app(argc, argv);
    qInstallMessageHandler(g_previousHandler);
    QApplication::setApplicationName("FuseScope");
    fusescope::setForeignReportReader(fusescope::import::importIfForeign); // logs open as reports
    QApplication::setOrganizationName("FuseScope");
    QApplication::setApplicationVersion(FUSESCOPE_VERSION);

    QCommandLineParser parser;
    parser.setApplicationDescription("Compare torch.compile backends on a model.");
    const QCommandLineOption help = parser.addHelpOption();
    const QCommandLineOption version = parser.addVersionOption();
    parser.addPositionalArgument("input",
                                 "A model (demo:transformer, model.py, model.pt), a .fscope report, or "
                                 "a TORCH_TRACE directory or .log (imported: docs/import.md)");
    QCommandLineOption backends({"b", "backends"}, "Comma-separated backends to select", "list",
                                "eager,aot_eager,inductor");
    QCommandLineOption run("run", "Start the comparison at once");
    QCommandLineOption screenshot("screenshot",
                                  "Save a PNG of the window after the run and quit (for docs/tests)", "file");
    QCommandLineOption graphs("graphs", "Open the Graphs tab on this backend's stages", "backend");
    QCommandLineOption tab("tab", "Open on a tab: " + kTabs.join(", "), "name");
    QCommandLineOption python("python",
                              "Python interpreter (with torch) the workers run in, for this start; the "
                              "saved choice is Run > Python Interpreter",
                              "path");
    QCommandLineOption diff(
        "diff", "Compare report A (this option) with the report given as input (docs/diff.md)", "A.fscope");
    QCommandLineOption heat(
        "heat",
        "Colour the Graphs tab's nodes by measured time: time (share of the traced time) or "
        "roof (each kernel's fraction of the machine's roof, docs/roofline.md)",
        "time|roof");
    parser.addOptions({backends, run, screenshot, graphs, tab, python, diff, heat});
    if (!parser.parse(QCoreApplication::arguments()))
        return usageError(parser.errorText().toStdString());
    if (parser.isSet(help) || parser.isSet("help-all"))
        parser.showHelp(0);
    if (parser.isSet(version))
        parser.showVersion();
    if (auto bad = badArgument(parser, backends, screenshot, tab))
        return usageError(*bad);
    if (parser.isSet(heat) && parser.value(heat) != "time" && parser.value(heat) != "roof")
        return usageError("--heat: '" + local(parser.value(heat)) + "' is not one of time, roof");
    // The interpreter is chosen before the window creates its backend families and probes them.
    if (parser.isSet(python)) {
        const QString path = parser.value(python);
        auto env = fusescope::inspectPython(path);
        if (!env)
            return usageError("--python: " + env.error().message);
        fusescope::WorkerConfig::setChosenPython(path.contains('/') ? QFileInfo(path).absoluteFilePath()
                                                                    : path);
    } else if (const QString saved = fusescope::savedPython(); !saved.isEmpty()) {
        fusescope::WorkerConfig::setChosenPython(saved);
    }
    if (noDisplay) {
        std::fprintf(stderr,
                     "fusescope: no display found (DISPLAY and WAYLAND_DISPLAY are not set), so the window "
                     "cannot open.\n%s",
                     kHeadlessHints);
        return kExitNoDisplay;
    }

    if (parser.isSet(diff)) {
        const QStringList inputs = parser.positionalArguments();
        const QString b = inputs.isEmpty() ? parser.value(diff) : inputs.front();
        // The window opens at once and the engine reads both reports on its thread (loadReports;
        // no backend runs, so it has no families); one that cannot be read ends the program with
        // the file named, as before the window showed.
        fusescope::Engine engine([] { return std::vector<std::unique_ptr<fusescope::BackendFamily>>{}; });
        auto* window = new fusescope::DiffWindow;
        const QPointer<fusescope::DiffWindow> open(window); // null once closed (deleted on close)
        window->setAttribute(Qt::WA_DeleteOnClose);
        window->resize(1400, 900);
        const QString shot = parser.value(screenshot);
        QObject::connect(window, &fusescope::DiffWindow::loaded, window,
                         [window, shot](bool ok, const QString& error) {
                             if (!ok) {
                                 std::fprintf(stderr, "fusescope: %s\n", local(error).c_str());
                                 QApplication::exit(1);
                                 return;
                             }
                             if (!shot.isEmpty())
                                 QTimer::singleShot(1500, window, [window, shot] {
                                     QApplication::exit(window->grab().save(shot) ? 0 : 1);
                                 });
                         });
        window->show();
        window->loadReports(engine, parser.value(diff), b);
        const int status = app.exec();
        delete open.data(); // before the engine it listens to
        return status;
    }

    fusescope::MainWindow window;
    QStringList entries;
    // Checked by badArgument() above. Kept in a local: a range-for over `.value()` of a temporary
    // Result would iterate a list already destroyed (value() && returns a reference into it).
    const auto backendList = fusescope::parseBackendList(parser.value(backends).toStdString());
    if (backendList)
        for (const auto& entry : backendList.value())
            entries << QString::fromStdString(entry);
    window.setBackends(entries);
    const QStringList args = parser.positionalArguments();
    if (!args.isEmpty()) {
        // A report is read on the engine thread; wait for it here so that --graphs, --tab and
        // --screenshot apply to the report, not to the empty window before it.
        if (args.front().endsWith(".fscope") || importable(local(args.front())))
            window.openReport(args.front());
        else
            window.openPath(args.front());
    }
    window.show();
    if (parser.isSet(graphs))
        window.showGraphs(parser.value(graphs));
    if (parser.isSet(tab))
        window.showTab(parser.value(tab));
    if (parser.isSet(heat)) {
        window.graphPanel()->setTimeShown(true);
        window.graphPanel()->setRoofHeat(parser.value(heat) == "roof");
    }
    const QString shot = parser.value(screenshot);
    auto saveShot = [&window, shot] {
        if (window.grab().save(shot)) {
            QApplication::quit();
            return;
        }
        std::fprintf(stderr, "fusescope: cannot write the screenshot %s\n", local(shot).c_str());
        QApplication::exit(1);
    };
    if (parser.isSet(run) && !args.isEmpty() && !args.front().endsWith(".fscope")) {
        QTimer::singleShot(0, &window, &fusescope::MainWindow::startRun);
        if (!shot.isEmpty())
            QObject::connect(&window, &fusescope::MainWindow::runFinished, &window,
                             [saveShot] { QTimer::singleShot(200, saveShot); });
    } else if (!shot.isEmpty()) {
        // A large report's graphs are read after it shows (ReportModel::stagesPending): the
        // picture waits for them, so that it shows the whole report whichever tab it is of.
        QTimer::singleShot(500, &window, [&window, saveShot] {
            const auto* model = window.reportModel();
            if (!model->stagesPending()) {
                saveShot();
                return;
            }
            QObject::connect(model, &fusescope::ReportModel::stagesLoaded, &window,
                             [saveShot] { QTimer::singleShot(500, saveShot); });
        });
    }
    return app.exec();
}
