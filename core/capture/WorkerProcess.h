#pragma once

#include "WorkerConfig.h"

#include <QProcess>
#include <string>

namespace fusescope {

// How the C++ side starts the Python capture worker (docs/protocol.md, "Transport"), in one place
// for every caller: WorkerJob, queryWorker and the LibTorch family's export.

inline constexpr const char* kChannelTokenVariable = "FUSESCOPE_CHANNEL_TOKEN";

// 128 bits from the system's random generator as 32 hex digits, new for each worker process. The
// worker prefixes every protocol line with it; WorkerStream::setChannelToken refuses lines without.
std::string newChannelToken();

// Program, arguments (-m fusescope_worker), the config's environment plus the channel token, and a
// process group of the worker's own (putInOwnProcessGroup).
void prepareWorkerProcess(QProcess& process, const WorkerConfig& config, const std::string& channelToken);

// The same for an executable that speaks the worker protocol itself, the LibTorch runner
// (docs/libtorch.md): `program`, no arguments, the config's environment plus the channel token and
// FUSESCOPE_PYTHON set to the config's interpreter (the runner starts it for the export), its own
// process group.
void prepareRunnerProcess(QProcess& process, const WorkerConfig& config, const QString& program,
                          const std::string& channelToken);

// The child calls setpgid(0, 0) between fork and exec, so whatever it forks can be killed with it.
void putInOwnProcessGroup(QProcess& process);

// The process group of one started worker. kill() sends SIGKILL to every member (the worker and
// whatever the model forked, exec'd or not) once; the destructor does the same, so no child of a
// model outlives the run on any path. A model that calls setsid() leaves the group: this is a
// clean-up, not a sandbox.
class ProcessGroup {
public:
    ProcessGroup() = default;
    ~ProcessGroup() { kill(); }
    ProcessGroup(const ProcessGroup&) = delete;
    ProcessGroup& operator=(const ProcessGroup&) = delete;

    // Call right after start(): the group is the worker's pid. The parent also moves the child
    // into it, so a kill() that comes before the child's own setpgid still reaches it.
    void adopt(const QProcess& process);
    void kill();
    qint64 id() const { return m_id; }

private:
    qint64 m_id = 0;
};

} // namespace fusescope
