#include "capture/WorkerProcess.h"

#include "capture/StderrTail.h"
#include "codec/Utf8.h"

#include <QProcess>
#include <csignal>
#include <fstream>
#include <gtest/gtest.h>
#include <thread>

using namespace fusescope;

namespace {

// Dead, or a zombie nobody reaped yet (its parent is gone too, and init may not reap quickly).
bool gone(pid_t pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line))
        return true;
    const auto close = line.rfind(')');
    return close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z';
}

} // namespace

TEST(ChannelToken, Is32HexDigitsAndNewEachTime) {
    const std::string a = newChannelToken(), b = newChannelToken();
    EXPECT_EQ(a.size(), 32u);
    EXPECT_EQ(a.find_first_not_of("0123456789abcdef"), std::string::npos);
    EXPECT_NE(a, b);
}

TEST(StderrTail, KeepsTheLastBytesFromACharacterBoundary) {
    StderrTail tail(10);
    tail.append("abc");
    // "漢" is three bytes: 4 of them are 12 bytes, the last 10 start inside the first one.
    tail.append("漢漢漢漢");
    EXPECT_EQ(tail.bytes(), "漢漢漢");
    EXPECT_TRUE(utf8::isValid(tail.text()));
    StderrTail big(10);
    big.append("xx漢漢漢漢"); // one chunk longer than the limit
    EXPECT_EQ(big.bytes(), "漢漢漢");
}

TEST(StderrTail, ReplacesWhatIsNotUtf8OnlyWhenShown) {
    StderrTail tail;
    tail.append("caf\xe9 \xff\n");
    EXPECT_EQ(tail.bytes(), "caf\xe9 \xff\n"); // the bytes as written
    EXPECT_EQ(tail.text(), "caf\xEF\xBF\xBD \xEF\xBF\xBD\n");
    EXPECT_EQ(tail.lastLines(3), "caf\xEF\xBF\xBD \xEF\xBF\xBD");
}

TEST(StderrTail, LastLinesAreTheLastOnesAndBounded) {
    StderrTail tail;
    tail.append("one\ntwo\nthree\nfour\n\n");
    EXPECT_EQ(tail.lastLines(2), "three\nfour");
    EXPECT_EQ(tail.lastLines(9), "one\ntwo\nthree\nfour");
    EXPECT_EQ(lastLinesOf("\nonly", 3), "only");
    const std::string flood(5000, 'x');
    const std::string shown = lastLinesOf(flood, 3, 100);
    EXPECT_EQ(shown, "..." + std::string(100, 'x'));
}

TEST(ProcessGroup, KillReachesWhatTheChildForked) {
    QProcess process;
    putInOwnProcessGroup(process);
    process.start("/bin/sh", {"-c", "sleep 300 & echo $!; wait"});
    ASSERT_TRUE(process.waitForStarted(10'000));
    ProcessGroup group;
    group.adopt(process);
    EXPECT_EQ(group.id(), process.processId());
    ASSERT_TRUE(process.waitForReadyRead(10'000));
    const pid_t sleeper = static_cast<pid_t>(process.readAllStandardOutput().trimmed().toLongLong());
    ASSERT_GT(sleeper, 0);
    EXPECT_EQ(::getpgid(sleeper), static_cast<pid_t>(process.processId()));
    group.kill();
    EXPECT_EQ(group.id(), 0);
    ASSERT_TRUE(process.waitForFinished(10'000));
    for (int i = 0; i < 100 && !gone(sleeper); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_TRUE(gone(sleeper));
}
