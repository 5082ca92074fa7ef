// The export worker's stdout as the LibTorch runner reads it (core/capture/ExportStream.h): the
// handshake decoded once, messages relayed until the reply, eager answers after it, and every
// broken line refused with a reason instead of taken.
#include "capture/ExportStream.h"

#include <gtest/gtest.h>
#include <string>
#include <vector>

using namespace fusescope;
using nlohmann::json;

namespace {

const std::string kToken = "tok123";
const std::string kHello =
    R"({"type":"hello","protocol":"fusescope-worker","version":1,"worker":"0.1.0","python":"3.11.7","torch":"2.13.0+cpu","devices":["cpu"],"cuda":null,"pid":1})";

std::string line(const std::string& body) {
    return kToken + " " + body + "\n";
}

struct Seen {
    std::vector<WorkerEnvironment> hellos;
    std::vector<json> relayed;
};

ExportStream makeStream(Seen& seen) {
    ExportStream::Handlers handlers;
    handlers.hello = [&](const WorkerEnvironment& env) { seen.hellos.push_back(env); };
    handlers.relay = [&](const json& message) { seen.relayed.push_back(message); };
    return ExportStream(kToken, "torchscript_exported", std::move(handlers));
}

} // namespace

TEST(ExportStreamTest, HelloIsDecodedOnceThenMessagesAreRelayedUntilTheReply) {
    Seen seen;
    ExportStream stream = makeStream(seen);
    const std::string bytes = line(kHello) + line(R"({"type":"progress","phase":"load","fraction":0.5})") +
                              line(R"({"type":"torchscript_exported","method":"script","path":"/x.pt"})") +
                              line(R"({"type":"progress","phase":"load","fraction":0.9})");
    // Fed one byte at a time, as a pipe may deliver it.
    for (char c : bytes)
        stream.feed(std::string_view(&c, 1));
    stream.finish();
    ASSERT_TRUE(stream.handshakeDone());
    ASSERT_EQ(seen.hellos.size(), 1u);
    EXPECT_EQ(seen.hellos[0].torch, "2.13.0+cpu");
    ASSERT_EQ(seen.relayed.size(), 1u); // the progress before the reply; not the hello, not after
    EXPECT_EQ(seen.relayed[0]["type"], "progress");
    EXPECT_EQ(stream.reply().value("method", ""), "script");
    EXPECT_FALSE(stream.exportError());
    ASSERT_EQ(stream.problemCount(), 1u); // progress after the reply
    EXPECT_NE(stream.problems()[0].find("\"progress\" after the export's reply"), std::string::npos);
    ASSERT_EQ(stream.notes().size(), 1u);
    EXPECT_NE(stream.notes()[0].find("1 line(s)"), std::string::npos);
}

TEST(ExportStreamTest, NothingBeforeTheHandshakeIsTakenAndABadHelloIsNamed) {
    Seen seen;
    ExportStream stream = makeStream(seen);
    stream.feed(line(R"({"type":"torchscript_exported","method":"script"})"));
    stream.feed(line(R"({"type":"hello","protocol":"fusescope-worker","version":"one"})"));
    stream.feed("tok12 {\"type\":\"hello\"}\n"); // another token
    stream.feed(kHello + "\n");                  // no token at all
    EXPECT_FALSE(stream.handshakeDone());
    EXPECT_TRUE(stream.reply().is_null());
    EXPECT_TRUE(seen.hellos.empty());
    ASSERT_EQ(stream.problemCount(), 4u);
    EXPECT_NE(
        stream.problems()[0].find("expected the \"hello\" handshake first, got \"torchscript_exported\""),
        std::string::npos);
    EXPECT_EQ(stream.problems()[1].rfind("hello: ", 0), 0u) << stream.problems()[1];
    EXPECT_NE(stream.problems()[2].find("without the channel token"), std::string::npos);
    EXPECT_TRUE(stream.notes().empty()); // before a handshake the run fails with the first problem
}

TEST(ExportStreamTest, TheExportsErrorIsKeptAndRelayedAndAnEagerErrorEndsTheCalls) {
    Seen seen;
    ExportStream stream = makeStream(seen);
    stream.feed(line(kHello));
    stream.feed(line(R"({"type":"error","code":"model_failed","message":"boom"})"));
    stream.feed(line(R"({"type":"error","code":"internal","message":"second"})"));
    ASSERT_TRUE(stream.exportError());
    EXPECT_EQ(stream.exportError()->message, "boom"); // the first one stays
    EXPECT_EQ(seen.relayed.size(), 2u);               // both go to the runner's channel

    Seen after;
    ExportStream eager = makeStream(after);
    eager.feed(line(kHello) + line(R"({"type":"torchscript_exported","method":"trace"})"));
    eager.feed(line(R"({"type":"error","code":"model_failed","message":"forward raised"})"));
    eager.feed(line(R"({"type":"error","code":"model_failed","message":"later"})"));
    EXPECT_FALSE(eager.exportError());
    ASSERT_TRUE(eager.eagerError());
    EXPECT_EQ(eager.eagerError()->message, "forward raised");
    EXPECT_TRUE(after.relayed.empty()); // the runner's row reports it, not the relay
}

TEST(ExportStreamTest, EagerAnswersAreTakenOnceAndOnlySaneFieldsKept) {
    Seen seen;
    ExportStream stream = makeStream(seen);
    stream.feed(line(kHello) + line(R"({"type":"torchscript_exported","method":"script"})"));
    EXPECT_FALSE(stream.takeEagerAnswer());
    stream.feed(line(R"({"type":"eager_ms","ms":1.25,"faults":3})"));
    auto answer = stream.takeEagerAnswer();
    ASSERT_TRUE(answer);
    EXPECT_DOUBLE_EQ(*answer->ms, 1.25);
    EXPECT_EQ(*answer->faults, 3);
    EXPECT_FALSE(stream.takeEagerAnswer()); // taken once

    for (const char* bad :
         {R"({"type":"eager_ms","ms":0,"faults":-1})", R"({"type":"eager_ms","ms":-2,"faults":1.5})",
          R"({"type":"eager_ms","ms":"1","faults":"2"})",
          R"({"type":"eager_ms","ms":null,"faults":18446744073709551615})"}) {
        stream.feed(line(bad));
        auto sample = stream.takeEagerAnswer();
        ASSERT_TRUE(sample) << bad;
        EXPECT_FALSE(sample->ms) << bad;
        EXPECT_FALSE(sample->faults) << bad;
    }
    stream.feed(line(R"({"type":"bye"})"));
    EXPECT_EQ(stream.problemCount(), 0u);
}

TEST(ExportStreamTest, BrokenLinesAreCountedWithTheirReasonAndATruncatedEndIsNamed) {
    Seen seen;
    ExportStream stream = makeStream(seen);
    stream.feed(line(kHello));
    stream.feed(line("{not json"));
    stream.feed(line("[1,2]"));
    stream.feed(line(R"({"type":"progress")"));
    stream.feed("\n\r\n"); // blank lines are nothing
    stream.feed(kToken + R"( {"type":"torchscript_exp)");
    stream.finish();
    ASSERT_EQ(stream.problemCount(), 4u);
    EXPECT_EQ(stream.problems()[0].rfind("not JSON (", 0), 0u);
    EXPECT_EQ(stream.problems()[1], "a line that is not a JSON object");
    EXPECT_EQ(stream.problems()[3], "the stream ended inside a line (truncated output)");
    EXPECT_TRUE(stream.reply().is_null());
}

TEST(ExportStreamTest, OnlyTheFirstHundredProblemsAreKeptButAllAreCounted) {
    Seen seen;
    ExportStream stream = makeStream(seen);
    for (int i = 0; i < 250; ++i)
        stream.feed("noise\n");
    EXPECT_EQ(stream.problemCount(), 250u);
    EXPECT_EQ(stream.problems().size(), 100u);
}

// Found by fuzz_export_stream on its first minute: a message whose "type" is a number threw
// nlohmann's type_error out of the line reader (the runner would have died on it); the code was
// ExportWorker's before it moved here.
TEST(ExportStreamTest, AMessageWhoseTypeIsNotAStringIsRefused) {
    Seen seen;
    ExportStream stream = makeStream(seen);
    stream.feed(line(R"({"type":5,"message":"loading"})"));
    stream.feed(line(kHello));
    stream.feed(line(R"({"type":["progress"],"fraction":0.5})"));
    stream.feed(line(R"({"type":null})"));
    EXPECT_TRUE(stream.handshakeDone());
    EXPECT_TRUE(seen.relayed.empty());
    ASSERT_EQ(stream.problemCount(), 3u);
    EXPECT_EQ(stream.problems()[0], "a message whose \"type\" is not a string");
    EXPECT_EQ(stream.problems()[1], "a message whose \"type\" is not a string");
}

TEST(ExportStreamTest, ExportProgressIsScaledIntoTheRunnersShare) {
    auto scaled = [](json fraction) {
        json message = {{"type", "progress"}, {"fraction", fraction}};
        scaleExportProgress(message, 0.3);
        return message["fraction"];
    };
    EXPECT_DOUBLE_EQ(scaled(0.5).get<double>(), 0.15);
    EXPECT_DOUBLE_EQ(scaled(1).get<double>(), 0.3);
    EXPECT_DOUBLE_EQ(scaled(7.0).get<double>(), 0.3); // past the end counts as the end
    EXPECT_DOUBLE_EQ(scaled(-0.5).get<double>(), -1.0);
    EXPECT_DOUBLE_EQ(scaled(nullptr).get<double>(), -1.0);
    EXPECT_EQ(scaled("half"), "half"); // not a number: the engine refuses it with its reason
    json absent = {{"type", "progress"}};
    scaleExportProgress(absent, 0.3);
    EXPECT_DOUBLE_EQ(absent["fraction"].get<double>(), -1.0);
}
