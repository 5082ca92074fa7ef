#include "RecentFiles.h"

#include <QSettings>

namespace fusescope {

QStringList RecentFiles::load() {
    return QSettings().value("recentFiles").toStringList();
}

void RecentFiles::add(const QString& pathOrSpec) {
    QStringList list = load();
    list.removeAll(pathOrSpec);
    list.prepend(pathOrSpec);
    while (list.size() > kMax)
        list.removeLast();
    QSettings().setValue("recentFiles", list);
}

} // namespace fusescope
