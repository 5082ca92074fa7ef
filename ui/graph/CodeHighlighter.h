#pragma once

#include <QRegularExpression>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>

namespace fusescope {

// Enough colour to read Inductor's output_code.py and the C++/Triton kernels inside it:
// keywords of both languages, strings, comments and numbers. Python triple-quoted strings
// hold the C++ source, so they are not coloured as strings.
class CodeHighlighter : public QSyntaxHighlighter {
public:
    explicit CodeHighlighter(QTextDocument* document);

protected:
    void highlightBlock(const QString& text) override;

private:
    struct Rule {
        QRegularExpression pattern;
        QTextCharFormat format;
    };
    QList<Rule> m_rules;
    QTextCharFormat m_blockComment;
};

} // namespace fusescope
