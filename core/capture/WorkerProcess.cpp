#include "WorkerProcess.h"

#include <QRandomGenerator>
#include <cerrno>
#include <csignal>
#include <unistd.h>

namespace fusescope {

std::string newChannelToken() {
    static constexpr char kHex[] = "0123456789abcdef";
    quint32 words[4];
    QRandomGenerator::system()->fillRange(words);
    std::string token;
    token.reserve(32);
    for (quint32 word : words)
        for (int shift = 28; shift >= 0; shift -= 4)
            token.push_back(kHex[(word >> shift) & 0xF]);
    return token;
}

void putInOwnProcessGroup(QProcess& process) {
    process.setChildProcessModifier([] { ::setpgid(0, 0); });
}

void prepareWorkerProcess(QProcess& process, const WorkerConfig& config, const std::string& channelToken) {
    QProcessEnvironment environment = config.environment;
    environment.insert(kChannelTokenVariable, QString::fromStdString(channelToken));
    process.setProcessEnvironment(environment);
    process.setProgram(config.python);
    process.setArguments({"-m", "fusescope_worker"});
    putInOwnProcessGroup(process);
}

void prepareRunnerProcess(QProcess& process, const WorkerConfig& config, const QString& program,
                          const std::string& channelToken) {
    QProcessEnvironment environment = config.environment;
    environment.insert(kChannelTokenVariable, QString::fromStdString(channelToken));
    environment.insert("FUSESCOPE_PYTHON", config.python);
    process.setProcessEnvironment(environment);
    process.setProgram(program);
    process.setArguments({});
    putInOwnProcessGroup(process);
}

void ProcessGroup::adopt(const QProcess& process) {
    kill(); // a group from an earlier start is over
    const qint64 pid = process.processId();
    if (pid <= 0)
        return;
    // Fails with EACCES once the child has exec'd, by which time its own setpgid has run.
    ::setpgid(static_cast<pid_t>(pid), static_cast<pid_t>(pid));
    m_id = pid;
}

void ProcessGroup::kill() {
    if (m_id <= 0)
        return;
    // ESRCH: every member is gone already. Sent once: the id could name another group later.
    ::kill(-static_cast<pid_t>(m_id), SIGKILL);
    m_id = 0;
}

} // namespace fusescope
