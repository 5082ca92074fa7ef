#pragma once

#include "model/BackendEntry.h"

#include <QDialog>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace fusescope {

// Mode and options of one backend-list entry (docs/cli.md, "Backends and their options"): the
// torch.compile mode, fullgraph, dynamic and Inductor options for this entry alone, on top of the
// run-wide Options box. The entry it builds is shown as the label the row will carry, checked as
// it is typed. "Apply" changes the entry; "Add as New Entry" keeps it and adds the variant, so
// `inductor` and `inductor{epilogue_fusion=false}` can be compared side by side.
class BackendEntryDialog : public QDialog {
    Q_OBJECT
public:
    // `torchCompile` false: a backend of another family, whose entry takes a precision only (the
    // mode, fullgraph, dynamic and Inductor rows are hidden).
    explicit BackendEntryDialog(const BackendEntry& entry, QWidget* parent = nullptr,
                                bool torchCompile = true);

    // The entry the fields describe, or what is wrong with the Inductor options.
    Result<BackendEntry> entry() const;
    QString label() const; // empty while the fields are invalid
    bool addAsNew() const { return m_addAsNew; }

    QComboBox* modeBox() const { return m_mode; }
    QComboBox* fullgraphBox() const { return m_fullgraph; }
    QComboBox* dynamicBox() const { return m_dynamic; }
    QComboBox* precisionBox() const { return m_precision; }
    QLineEdit* inductorEdit() const { return m_inductor; }
    QPushButton* applyButton() const { return m_apply; }
    QPushButton* addButton() const { return m_add; }

private:
    void refresh();

    std::string m_backend;
    QComboBox* m_mode;
    QComboBox* m_fullgraph;
    QComboBox* m_dynamic;
    QComboBox* m_precision;
    QLineEdit* m_inductor;
    QLabel* m_preview;
    QPushButton* m_apply;
    QPushButton* m_add;
    bool m_addAsNew = false;
};

} // namespace fusescope
