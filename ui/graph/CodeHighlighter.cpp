#include "CodeHighlighter.h"

namespace fusescope {

namespace {

QTextCharFormat makeFormat(const char* color, bool bold = false) {
    QTextCharFormat f;
    f.setForeground(QColor(color));
    if (bold)
        f.setFontWeight(QFont::Bold);
    return f;
}

} // namespace

CodeHighlighter::CodeHighlighter(QTextDocument* document)
    : QSyntaxHighlighter(document) {
    const QStringList keywords = {// Python
                                  "def", "class", "return", "import", "from", "as", "if", "elif", "else",
                                  "for", "while", "in", "not", "and", "or", "is", "None", "True", "False",
                                  "with", "async", "await", "lambda", "yield", "del", "pass",
                                  // C++
                                  "void", "int", "long", "float", "double", "bool", "auto", "const",
                                  "constexpr", "static", "inline", "extern", "struct", "template", "typename",
                                  "namespace", "using", "return", "break", "continue", "int64_t", "int32_t",
                                  "uint8_t", "size_t", "restrict", "__restrict__",
                                  // Triton
                                  "tl", "triton"};
    m_rules.append({QRegularExpression("\\b(" + keywords.join('|') + ")\\b"), makeFormat("#0d47a1", true)});
    m_rules.append({QRegularExpression("\\b[0-9]+(\\.[0-9]+)?[fL]?\\b"), makeFormat("#6a1b9a")});
    m_rules.append(
        {QRegularExpression("@[A-Za-z_.]+|#\\s*(include|pragma|define)\\b.*"), makeFormat("#795548")});
    m_rules.append({QRegularExpression("\"([^\"\\\\]|\\\\.)*\"|'([^'\\\\]|\\\\.)*'"), makeFormat("#2e7d32")});
    m_rules.append(
        {QRegularExpression("(?<![\"'])#(?!\\s*(include|pragma|define)).*$|//.*$"), makeFormat("#757575")});
    m_blockComment = makeFormat("#757575");
}

void CodeHighlighter::highlightBlock(const QString& text) {
    for (const Rule& rule : m_rules) {
        auto it = rule.pattern.globalMatch(text);
        while (it.hasNext()) {
            const auto match = it.next();
            setFormat(int(match.capturedStart()), int(match.capturedLength()), rule.format);
        }
    }
    // C /* ... */ comments span lines: carry the state to the next block.
    int start = previousBlockState() == 1 ? 0 : int(text.indexOf("/*"));
    setCurrentBlockState(0);
    while (start >= 0) {
        const int end = int(text.indexOf("*/", start));
        if (end < 0) {
            setFormat(start, int(text.size()) - start, m_blockComment);
            setCurrentBlockState(1);
            break;
        }
        setFormat(start, end + 2 - start, m_blockComment);
        start = int(text.indexOf("/*", end + 2));
    }
}

} // namespace fusescope
