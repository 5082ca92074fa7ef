#include "ModelPicker.h"

#include "files/PathChecks.h"

#include <QFile>
#include <QFileInfo>

namespace fusescope {

ModelPicker::ModelPicker(QWidget* parent)
    : QComboBox(parent) {
    setEditable(true);
    addItems({"demo:mlp", "demo:cnn", "demo:transformer", "hf:bert", "hf:gpt2", "hf:llama", "hf:resnet",
              "hf:t5", "hf:vit"});
    setMinimumContentsLength(28);
    setToolTip(tr("A demo, an hf: architecture, or a path to a .py or TorchScript .pt file"));
}

QString ModelPicker::spec() const {
    return currentText().trimmed();
}

void ModelPicker::setSpec(const QString& spec) {
    if (findText(spec) < 0)
        insertItem(0, spec);
    setCurrentText(spec);
}

QString modelPathProblem(const QString& path) {
    // Qt reads a file name's invalid bytes as U+FFFD, and that name then reaches no file.
    if (path.contains(QChar::ReplacementCharacter) && !QFileInfo::exists(path))
        return ModelPicker::tr("The name of %1 is not valid UTF-8 (FuseScope keeps paths as UTF-8 text): "
                               "rename the file.")
            .arg(path);
    if (auto bad = files::checkModelPath(QFile::encodeName(path).toStdString()))
        return QString::fromStdString(bad->message);
    return {};
}

} // namespace fusescope
