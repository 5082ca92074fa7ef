#include "analysis/ComparisonColumns.h"

#include "TestData.h"

#include <gtest/gtest.h>
#include <set>

using namespace fusescope;

TEST(ComparisonColumns, EveryIdHasItsRowInOrder) {
    const auto& columns = comparisonColumns();
    ASSERT_EQ(columns.size(), static_cast<size_t>(column::Count));
    std::set<std::string> keys, headers, tableHeaders;
    for (size_t i = 0; i < columns.size(); ++i) {
        EXPECT_EQ(columns[i].id, static_cast<column::Id>(i)) << columns[i].key;
        ASSERT_NE(columns[i].text, nullptr) << columns[i].key;
        ASSERT_NE(columns[i].sortValue, nullptr) << columns[i].key;
        EXPECT_FALSE(columns[i].tip.empty()) << columns[i].key;
        EXPECT_TRUE(keys.insert(columns[i].key).second) << columns[i].key;
        EXPECT_TRUE(headers.insert(columns[i].header).second) << columns[i].header;
        EXPECT_TRUE(tableHeaders.insert(columns[i].tableHeader).second) << columns[i].tableHeader;
        // The CLI table splits on runs of two spaces: a header with two never reads back.
        EXPECT_EQ(columns[i].tableHeader.find("  "), std::string::npos);
    }
}

TEST(ComparisonColumns, CellsOfASuccessfulRun) {
    const Report report = testdata::sampleReport();
    const auto cells = rowCells(report.backends[0]);
    ASSERT_EQ(cells.size(), static_cast<size_t>(column::Count));
    EXPECT_EQ(cells[column::Backend], "inductor");
    EXPECT_EQ(cells[column::Status], "ok");
    EXPECT_EQ(cells[column::CompileSeconds], "3.50");
    EXPECT_EQ(cells[column::MedianMs], "1.000");
    // The median of the per-iteration ratios eager[k] / compiled[k]: 2.0, 2.0, 2.33, 1.9.
    EXPECT_EQ(cells[column::Speedup], "2.00x");
    EXPECT_EQ(cells[column::PeakMemory], "1.0 MiB");
    EXPECT_EQ(cells[column::Accuracy], "1.0e-06 pass");
    EXPECT_EQ(cells[column::Graphs], "1");
    EXPECT_EQ(cells[column::GraphBreaks], "0");
    EXPECT_EQ(cells[column::NodesBeforeFusion], "3");
    EXPECT_EQ(cells[column::KernelsAfterFusion], "2");
    EXPECT_EQ(cellSortValue(report.backends[0], column::MedianMs), 1.0);
    EXPECT_EQ(cellSortValue(report.backends[0], column::Backend), std::nullopt);
}

TEST(ComparisonColumns, AFailedRunShowsDashes) {
    const Report report = testdata::sampleReport();
    const auto cells = rowCells(report.backends[1]);
    EXPECT_EQ(cells[column::Status], "unavailable");
    for (auto id : {column::CompileSeconds, column::MedianMs, column::IqrMs, column::Speedup,
                    column::PeakMemory, column::Accuracy, column::Graphs, column::GraphBreaks})
        EXPECT_EQ(cells[id], "-") << comparisonColumn(id).key;
    EXPECT_EQ(cellSortValue(report.backends[1], column::MedianMs), std::nullopt);
}

TEST(ComparisonColumns, GradientsThatFailSayGradFail) {
    BackendRun run = testdata::sampleReport().backends[0];
    TrainingResult training;
    training.gradientAccuracy =
        Accuracy{1e-2, 1e-1, 0.99, 1e-3, false, "allclose", 1e-3, "fp32", "fail_accuracy", ""};
    run.training = training;
    EXPECT_TRUE(gradientsFailed(run));
    EXPECT_EQ(cellText(run, column::Accuracy), "1.0e-06 pass grad FAIL");
    run.training->gradientAccuracy->pass = true;
    EXPECT_EQ(cellText(run, column::Accuracy), "1.0e-06 pass");
}

TEST(ComparisonColumns, AccuracyStatusWhereMaxAbsSaysNothing) {
    BackendRun run = testdata::sampleReport().backends[0];
    run.accuracy->pass = false;
    run.accuracy->status = "nonfinite";
    EXPECT_EQ(cellText(run, column::Accuracy), "nonfinite");
    run.accuracy->status = "fail_accuracy";
    run.accuracy->maxAbs = 0.25;
    EXPECT_EQ(cellText(run, column::Accuracy), "2.5e-01 FAIL");
}

TEST(ComparisonColumns, StatusCountsNotesAndWarnings) {
    BackendRun run = testdata::sampleReport().backends[0];
    run.notes = {"a note"};
    EXPECT_EQ(cellText(run, column::Status), "ok (1 note)");
    run.notes.push_back("another");
    run.warnings = {{"machine_busy", "other processes used 0.93 of 2 cores"}};
    EXPECT_EQ(cellText(run, column::Status), "ok (2 notes, 1 warning)");
    run.notes.clear();
    run.compiledSamplesMs = {1.0, 1.2, 1.4, 1.6, 1.8}; // IQR 0.4 of 1.4: high_variance is derived
    EXPECT_EQ(cellText(run, column::Status), "ok (2 warnings)");
}
