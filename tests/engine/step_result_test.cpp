// engine::StepResult: the typed figures every step returns and the one summary
// writer of the pass.
#include <gtest/gtest.h>

#include "engine/step.h"

namespace peto {
namespace {

constexpr engine::Figure kSent{"sent", "{n} copy sent", "{n} copies sent"};
constexpr engine::Figure kFailed{"failed", "{n} copy failed", "{n} copies failed"};
constexpr engine::Figure kLeft{"left"};
constexpr engine::Figure kWritten{"written", "backup written", "{n} backups written"};

TEST(StepResult, SummaryWordsOneAndManyInDeclaredOrder) {
  engine::StepResult r{kSent, kFailed, kLeft};
  r.add(kFailed);
  r.add(kSent, 3);
  r.add(kLeft, 2);
  EXPECT_EQ(r.summary(), (std::vector<std::string>{"3 copies sent", "1 copy failed"}))
      << "declaration order, not the order of the adds; a figure without words is not shown";
  EXPECT_EQ(r[kSent], 3);
  EXPECT_EQ(r["left"], 2);
  EXPECT_EQ(r["absent"], 0);
}

TEST(StepResult, ZerosAreCountedButNotSummarised) {
  engine::StepResult r{kSent, kFailed};
  EXPECT_TRUE(r.all_zero());
  EXPECT_TRUE(r.summary().empty());
  EXPECT_EQ(r.counts(), (engine::Counts{{"failed", 0}, {"sent", 0}}));
}

TEST(StepResult, WordsWithoutTheCount) {
  engine::StepResult r{kWritten};
  r.add(kWritten);
  EXPECT_EQ(r.summary(), std::vector<std::string>{"backup written"});
  r.add(kWritten);
  EXPECT_EQ(r.summary(), std::vector<std::string>{"2 backups written"});
}

TEST(StepResult, MergeAddsAndKeepsUndeclaredFiguresLast) {
  engine::StepResult a{kSent, kFailed};
  engine::StepResult b{kSent};
  a.add(kSent);
  b.add(kSent, 2);
  b.add(kLeft, 4);
  a.merge(b);
  EXPECT_EQ(a.counts(), (engine::Counts{{"failed", 0}, {"left", 4}, {"sent", 3}}));
  EXPECT_FALSE(a.all_zero());
}

}  // namespace
}  // namespace peto
