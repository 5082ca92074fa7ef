#include "Report.h"

#include <QDateTime>
#include <algorithm>

namespace fusescope {

std::string utcTimestamp() {
    return QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toStdString();
}

BackendRun* Report::findBackend(const std::string& name) {
    auto it =
        std::find_if(backends.begin(), backends.end(), [&](const BackendRun& r) { return r.name == name; });
    return it == backends.end() ? nullptr : &*it;
}

const BackendRun* Report::findBackend(const std::string& name) const {
    return const_cast<Report*>(this)->findBackend(name);
}

} // namespace fusescope
