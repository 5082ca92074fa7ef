#include "stream/WorkerStream.h"

#include "codec/RunCodec.h"

#include <gtest/gtest.h>

using namespace fusescope;
using Kind = StreamEvent::Kind;

namespace {

const std::string kHello =
    R"({"type":"hello","protocol":"fusescope-worker","version":1,"worker":"0.1.0","python":"3.11.7","torch":"2.13.0+cpu","devices":["cpu"],"cuda":null,"pid":1})"
    "\n";

std::vector<Kind> kinds(const std::vector<StreamEvent>& events) {
    std::vector<Kind> out;
    for (const auto& e : events)
        out.push_back(e.kind);
    return out;
}

} // namespace

TEST(LineSplitter, JoinsChunksAndStripsCarriageReturns) {
    LineSplitter s;
    EXPECT_TRUE(s.feed("{\"a\":").empty());
    auto lines = s.feed("1}\r\n{\"b\":2}\n{\"c\"");
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines[0], "{\"a\":1}");
    EXPECT_EQ(lines[1], "{\"b\":2}");
    EXPECT_EQ(s.pending(), "{\"c\"");
}

TEST(WorkerStream, HandshakeThenAFullRun) {
    BackendRun run;
    run.name = "inductor";
    WorkerStream stream(run);
    const std::string body =
        kHello +
        R"({"type":"progress","id":"r","phase":"compile","fraction":0.4,"message":"compiling"})"
        "\n"
        R"({"type":"model","id":"r","name":"demo:mlp","source":"demo:mlp","class":"MLP","parameters":10,"inputs":[{"shape":[4,16],"dtype":"float32"}]})"
        "\n"
        R"({"type":"stage","id":"r","stage":{"name":"dynamo_fx","graph":0,"status":"ok","nodes":[{"id":"x","op":"x","kind":"placeholder"},{"id":"relu","op":"torch.relu","kind":"call_function"}],"edges":[{"src":"x","dst":"relu"}],"groups":[]}})"
        "\n"
        R"({"type":"samples","id":"r","series":"eager","ms":[2.0,2.1]})"
        "\n"
        R"({"type":"samples","id":"r","series":"compiled","ms":[1.0,1.1,1.2]})"
        "\n"
        R"J({"type":"code","id":"r","name":"output_code.py","language":"python","stage":"post_fusion","text":"print(1)"})J"
        "\n"
        R"({"type":"result","id":"r","backend":"inductor","status":"ok","compile_s":1.5,"peak_memory_bytes":4096,"memory_method":"profiler-allocator-peak","accuracy":{"max_abs":0.0,"max_rel":0.0,"cosine":1.0,"pass":true},"graphs":1,"graph_breaks":0})"
        "\n"
        R"({"type":"bye"})"
        "\n";
    // Feed byte by byte: chunk boundaries must not matter.
    std::vector<Kind> seen;
    for (char c : body)
        for (auto k : kinds(stream.feed(std::string(1, c))))
            seen.push_back(k);
    EXPECT_TRUE(stream.finish().empty());
    EXPECT_EQ(seen, (std::vector<Kind>{Kind::Hello, Kind::Progress, Kind::Model, Kind::Stage, Kind::Samples,
                                       Kind::Samples, Kind::Code, Kind::Result, Kind::Bye}));
    EXPECT_TRUE(stream.handshakeSeen());
    EXPECT_TRUE(stream.resultSeen());
    EXPECT_TRUE(stream.problems().empty());
    EXPECT_EQ(stream.environment().torch, "2.13.0+cpu");
    EXPECT_EQ(run.status, RunStatus::Ok);
    EXPECT_EQ(run.eagerSamplesMs.size(), 2u);
    EXPECT_EQ(run.compiledSamplesMs.size(), 3u);
    EXPECT_DOUBLE_EQ(*run.compileSeconds, 1.5);
    EXPECT_EQ(*run.peakMemoryBytes, 4096);
    ASSERT_EQ(run.stages.size(), 1u);
    EXPECT_EQ(run.stages[0].edges.size(), 1u);
    EXPECT_EQ(run.code[0].name, "output_code.py");
    EXPECT_TRUE(run.accuracy->pass);
    EXPECT_EQ(run.model->inputs[0].shape, (std::vector<std::string>{"4", "16"}));
}

TEST(WorkerStream, MalformedLinesAreReportedWithTheirLineNumberAndSkipped) {
    BackendRun run;
    WorkerStream stream(run);
    auto events = stream.feed(kHello + "Traceback (most recent call last):\n" + "[1,2,3]\n" +
                              R"({"type":"samples","series":"compiled","ms":"oops"})"
                              "\n" +
                              R"({"type":"samples","series":"compiled","ms":[1.0]})"
                              "\n");
    EXPECT_EQ(kinds(events), (std::vector<Kind>{Kind::Hello, Kind::Malformed, Kind::Malformed,
                                                Kind::Malformed, Kind::Samples}));
    ASSERT_EQ(stream.problems().size(), 3u);
    EXPECT_NE(stream.problems()[0].find("line 2"), std::string::npos);
    EXPECT_NE(stream.problems()[0].find("not JSON"), std::string::npos);
    EXPECT_NE(stream.problems()[1].find("without a string \"type\""), std::string::npos);
    EXPECT_NE(stream.problems()[2].find("message \"samples\": ms: expected an array, got \"oops\""),
              std::string::npos)
        << stream.problems()[2];
    EXPECT_FALSE(stream.fatal());
    EXPECT_EQ(run.compiledSamplesMs, std::vector<double>{1.0});
}

TEST(WorkerStream, TruncatedLastLineIsAProblem) {
    BackendRun run;
    WorkerStream stream(run);
    stream.feed(kHello + R"({"type":"result","status":"o)");
    auto events = stream.finish();
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0].kind, Kind::Malformed);
    EXPECT_NE(events[0].message.find("truncated"), std::string::npos);
    EXPECT_FALSE(stream.resultSeen());
}

TEST(WorkerStream, NewerProtocolVersionIsFatal) {
    BackendRun run;
    WorkerStream stream(run);
    stream.feed(R"({"type":"hello","protocol":"fusescope-worker","version":2})"
                "\n"
                R"({"type":"result","status":"ok"})"
                "\n");
    EXPECT_TRUE(stream.fatal());
    EXPECT_FALSE(stream.resultSeen());
    ASSERT_FALSE(stream.problems().empty());
    EXPECT_NE(stream.problems()[0].find("protocol version 2, this FuseScope understands 1"),
              std::string::npos);
}

TEST(WorkerStream, MissingHandshakeIsFatal) {
    BackendRun run;
    WorkerStream stream(run);
    stream.feed(R"({"type":"result","status":"ok"})"
                "\n");
    EXPECT_TRUE(stream.fatal());
    EXPECT_NE(stream.problems()[0].find("expected the \"hello\" handshake"), std::string::npos);
}

TEST(WorkerStream, UnavailableBackendError) {
    BackendRun run;
    WorkerStream stream(run);
    stream.feed(
        kHello +
        R"({"type":"error","code":"backend_unavailable","message":"backend tvm: No module named 'tvm'","file":null,"backend":"tvm","traceback":null})"
        "\n");
    EXPECT_EQ(run.status, RunStatus::Unavailable);
    EXPECT_EQ(run.error->code, "backend_unavailable");
    EXPECT_TRUE(run.error->file.empty());
}

TEST(WorkerStream, FailedResultKeepsFirstErrorAndPartialStages) {
    BackendRun run;
    WorkerStream stream(run);
    stream.feed(
        kHello +
        R"({"type":"stage","stage":{"name":"dynamo_fx","graph":0,"status":"ok","nodes":[],"edges":[],"groups":[]}})"
        "\n"
        R"({"type":"error","code":"compile_failed","message":"backend inductor: boom","traceback":"Traceback..."})"
        "\n"
        R"({"type":"result","status":"failed","error":{"code":"compile_failed","message":"backend inductor: boom"}})"
        "\n");
    EXPECT_EQ(run.status, RunStatus::Failed);
    EXPECT_EQ(run.error->traceback, "Traceback...");
    EXPECT_EQ(run.stages.size(), 1u);
}

TEST(WorkerStream, UnknownMessageTypesAreIgnored) {
    BackendRun run;
    WorkerStream stream(run);
    auto events = stream.feed(kHello + R"({"type":"from_the_future","x":1})"
                                       "\n");
    EXPECT_EQ(kinds(events), (std::vector<Kind>{Kind::Hello, Kind::Unknown}));
    EXPECT_TRUE(stream.problems().empty());
}

TEST(WorkerStream, AFloodOfBadLinesIsCountedButKeptBounded) {
    BackendRun run;
    WorkerStream stream(run);
    stream.setChannelToken("t0k");
    std::string junk;
    for (int i = 0; i < 5000; ++i)
        junk += "{\"type\":\"result\",\"status\":\"ok\"}\n";
    stream.feed("t0k " + kHello + junk);
    EXPECT_EQ(stream.problemCount(), 5000u);
    EXPECT_EQ(stream.problems().size(), WorkerStream::kMaxProblems);
    EXPECT_FALSE(stream.resultSeen()); // no forged line was applied
    EXPECT_NE(stream.problems().front().find("no channel token"), std::string::npos);
}

TEST(WorkerStream, FirstDivergenceOfTheBisectIsReadAndWrittenBack) {
    BackendRun run;
    WorkerStream stream(run);
    stream.feed(
        kHello +
        R"J({"type":"result","id":"r","backend":"inductor","status":"ok","accuracy":{"max_abs":1,"max_rel":2,"cosine":0.9,"pass":false,"status":"fail_accuracy","first_divergence":{"node":"relu","graph":0,"stage":"dynamo_fx","op":"torch.relu","kernel":"cpp_fused_relu_1","kernels":["cpp_fused_relu_1","cpp_fused_relu_2"],"file":"/m.py","line":30,"max_abs":1.0,"method":"intermediate_outputs","compiles":1,"seconds":2.5,"budget_s":120,"budget_exhausted":false}}})J"
        "\n");
    ASSERT_TRUE(stream.problems().empty()) << stream.problems()[0];
    ASSERT_TRUE(run.accuracy && run.accuracy->firstDivergence);
    const FirstDivergence& d = *run.accuracy->firstDivergence;
    EXPECT_EQ(d.node, "relu");
    EXPECT_EQ(d.kernel, "cpp_fused_relu_1");
    EXPECT_EQ(d.kernels.size(), 2u);
    EXPECT_EQ(d.line, 30);
    EXPECT_FALSE(d.maxRel.has_value());
    const nlohmann::json j = *run.accuracy;
    EXPECT_EQ(j["first_divergence"]["node"], "relu");
    EXPECT_EQ(j["first_divergence"]["budget_s"], 120);
    EXPECT_FALSE(j["first_divergence"].contains("max_rel")); // unknown stays absent
    const std::string text = firstDivergenceText(d);
    EXPECT_NE(text.find("relu (torch.relu) in graph 0, kernel cpp_fused_relu_1 (and 1 more)"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("/m.py:30"), std::string::npos) << text;

    BackendRun none; // no node: the reason is what is shown
    WorkerStream other(none);
    other.feed(
        kHello +
        R"J({"type":"result","id":"r","backend":"inductor","status":"ok","accuracy":{"pass":false,"first_divergence":{"method":"intermediate_outputs","compiles":0,"seconds":0,"budget_exhausted":true,"reason":"the budget ran out","line":"x"}}})J"
        "\n");
    ASSERT_EQ(other.problems().size(), 1u); // a bad field is named with its path
    EXPECT_NE(other.problems()[0].find("first_divergence.line"), std::string::npos) << other.problems()[0];
}
