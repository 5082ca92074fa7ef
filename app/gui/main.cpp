// fusescope: the desktop application. `fusescope [MODEL | REPORT.fscope] [--backends LIST] [--run]`
#include "MainWindow.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setApplicationName("FuseScope");
    QApplication::setOrganizationName("FuseScope");
    QApplication::setApplicationVersion(FUSESCOPE_VERSION);

    QCommandLineParser parser;
    parser.setApplicationDescription("Compare torch.compile backends on a model.");
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument("input",
                                 "A model (demo:transformer, model.py, model.pt) or a .fscope report");
    QCommandLineOption backends({"b", "backends"}, "Comma-separated backends to select", "list",
                                "eager,aot_eager,inductor");
    QCommandLineOption run("run", "Start the comparison at once");
    QCommandLineOption screenshot("screenshot",
                                  "Save a PNG of the window after the run and quit (for docs/tests)", "file");
    QCommandLineOption graphs("graphs", "Open the Graphs tab on this backend's stages", "backend");
    QCommandLineOption tab("tab", "Open on a tab: comparison, graphs, charts, traces, breaks, shapes or modules", "name");
    parser.addOptions({backends, run, screenshot, graphs, tab});
    parser.process(app);

    fusescope::MainWindow window;
    window.setBackends(parser.value(backends).split(',', Qt::SkipEmptyParts));
    const QStringList args = parser.positionalArguments();
    if (!args.isEmpty()) {
        window.openPath(args.front());
    }
    window.show();
    if (parser.isSet(graphs))
        window.showGraphs(parser.value(graphs));
    if (parser.isSet(tab))
        window.showTab(parser.value(tab));
    const QString shot = parser.value(screenshot);
    auto saveShot = [&window, shot] {
        window.grab().save(shot);
        QApplication::quit();
    };
    if (parser.isSet(run) && !args.isEmpty() && !args.front().endsWith(".fscope")) {
        QTimer::singleShot(0, &window, &fusescope::MainWindow::startRun);
        if (!shot.isEmpty())
            QObject::connect(&window, &fusescope::MainWindow::runFinished, &window,
                             [saveShot] { QTimer::singleShot(200, saveShot); });
    } else if (!shot.isEmpty()) {
        QTimer::singleShot(500, saveShot);
    }
    return app.exec();
}
