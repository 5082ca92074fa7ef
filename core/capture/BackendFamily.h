#pragma once

#include "model/BackendRun.h"
#include "model/RunRequest.h"
#include "stream/WorkerStream.h"

#include <QObject>
#include <memory>
#include <string>
#include <vector>

namespace fusescope {

// A backend as `fusescope-cli backends` lists it.
struct BackendInfo {
    std::string name;
    std::string family;
    bool available = false;
    std::string reason; // why not, when unavailable
    std::vector<std::string> tags;
};

// One backend run in flight. Owns its BackendRun until finished() fires; a job never blocks the
// thread that created it (results arrive as signals through that thread's event loop).
class BackendJob : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;
    ~BackendJob() override = default;

    virtual void start() = 0;
    // Stops the run; finished() still fires, with the run marked cancelled.
    virtual void cancel() = 0;
    virtual const BackendRun& run() const = 0;
    virtual BackendRun takeRun() = 0;
    virtual WorkerEnvironment environment() const { return {}; }

signals:
    void streamEvent(const fusescope::StreamEvent& event);
    void finished();
};

// A family of backends behind one interface (docs/architecture.md): torch.compile backends run by
// the Python worker, LibTorch by fusescope-libtorch-runner (a child process too, so its jobs are
// WorkerJobs), TVM... Families are registered explicitly in plugins/Registry.cpp; adding a backend
// touches one folder.
class BackendFamily {
public:
    virtual ~BackendFamily() = default;

    virtual std::string id() const = 0;
    // Which backends this family offers on this machine, each with availability and reason. May take
    // seconds (it can start a worker); call it off the UI thread.
    virtual std::vector<BackendInfo> probe() = 0;
    // Whether a backend name the user typed belongs to this family.
    virtual bool handles(const std::string& backend) const = 0;
    virtual std::unique_ptr<BackendJob> createJob(const RunRequest& request, QObject* parent) = 0;
};

} // namespace fusescope

Q_DECLARE_METATYPE(fusescope::StreamEvent)
