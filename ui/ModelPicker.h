#pragma once

#include <QComboBox>

namespace fusescope {

// The toolbar's model field: a demo, an hf: architecture, or a path to a .py or .pt file.
class ModelPicker : public QComboBox {
    Q_OBJECT
public:
    explicit ModelPicker(QWidget* parent = nullptr);

    QString spec() const;
    // Selects `spec`, adding it to the choices when it is new.
    void setSpec(const QString& spec);
};

// Why `path` cannot be run as a model (a directory, a FIFO, a name that is not UTF-8), or empty.
QString modelPathProblem(const QString& path);

} // namespace fusescope
