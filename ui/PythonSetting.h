#pragma once

#include <QDialog>
#include <QString>

class QLabel;
class QLineEdit;

namespace fusescope {

// The GUI's Python setting (docs/worker.md, "Your own Python"): the interpreter the workers run in,
// kept in QSettings under kPythonSettingKey. `fusescope --python PATH` overrides it for one start.
inline constexpr const char* kPythonSettingKey = "worker/python";

// The saved interpreter, empty when none was chosen (then FUSESCOPE_PYTHON or the build's default).
QString savedPython();

// Asks for an interpreter: a path (Browse...) or empty for the default. OK checks the path with
// inspectPython and says in the dialog what is wrong with it; it closes only on a good one (or the
// default), after saving it and making it the process's choice (WorkerConfig::setChosenPython).
class PythonDialog : public QDialog {
    Q_OBJECT
public:
    explicit PythonDialog(QWidget* parent = nullptr);

    void accept() override;
    // What the accepted dialog chose ("" is the default).
    QString chosen() const;

private:
    void showCurrent();

    QLineEdit* m_path = nullptr;
    QLabel* m_status = nullptr;
};

} // namespace fusescope
