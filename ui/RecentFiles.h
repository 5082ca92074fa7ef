#pragma once

#include <QStringList>

namespace fusescope {

// Recently opened models and reports, newest first, kept in QSettings between sessions.
class RecentFiles {
public:
    static constexpr int kMax = 10;

    static QStringList load();
    static void add(const QString& pathOrSpec);
};

} // namespace fusescope
