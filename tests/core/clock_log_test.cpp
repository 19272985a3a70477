#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "core/log.h"

namespace peto {
namespace {

TEST(Time, FormatsAndParsesRfc3339) {
  EXPECT_EQ(format_time(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(format_time_s(1767258000000), "2026-01-01T09:00:00Z");
  EXPECT_EQ(parse_time("2026-01-01T09:00:00Z"), 1767258000000);
  EXPECT_EQ(parse_time("2026-01-01T09:00:00.250Z"), 1767258000250);
  EXPECT_EQ(parse_time("2026-01-01T10:30:00+01:30"), 1767258000000);
  EXPECT_FALSE(parse_time("2026-01-01 09:00:00"));
  EXPECT_FALSE(parse_time("2026-13-01T09:00:00Z"));
  EXPECT_FALSE(parse_time("2026-01-01T09:00:00Zjunk"));
}

TEST(Time, RefusesImpossibleDaysAndLooseDigits) {
  EXPECT_FALSE(parse_time("2026-02-30T09:00:00Z"));
  EXPECT_FALSE(parse_time("2026-02-29T09:00:00Z")) << "2026 is not a leap year";
  EXPECT_EQ(parse_time("2028-02-29T00:00:00Z"), *parse_time("2028-03-01T00:00:00Z") - 86400000);
  EXPECT_FALSE(parse_time("2026-04-31T09:00:00Z"));
  EXPECT_FALSE(parse_time("2026-1-01T09:00:00Z"));
  EXPECT_FALSE(parse_time("2026-01-01T 9:00:00Z"));
  EXPECT_FALSE(parse_time("+026-01-01T09:00:00Z"));
  EXPECT_FALSE(parse_time(""));
}

TEST(FakeClock, MovesOnlyWhenTold) {
  FakeClock clock(1000);
  auto m0 = clock.mono();
  EXPECT_EQ(clock.now_ms(), 1000);
  clock.advance(std::chrono::minutes(1));
  EXPECT_EQ(clock.now_ms(), 61000);
  EXPECT_EQ(clock.mono() - m0, std::chrono::minutes(1));
  EXPECT_EQ(clock.pinned_ms(), 61000);
  EXPECT_FALSE(system_clock().pinned_ms());
}

class LogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    log::configure(log::Level::info, log::Format::json);
    log::set_test_sink([this](const std::string& l) {
      std::lock_guard lock(mu_);
      lines_.push_back(l);
    });
  }
  void TearDown() override { log::set_test_sink(nullptr); }
  std::mutex mu_;
  std::vector<std::string> lines_;
};

TEST_F(LogTest, JsonLinesCarryTheScope) {
  {
    log::Scope scope("pass-abc");
    log::info("scheduler", "pass \"quoted\"\n", {{"reminders", 3}});
  }
  log::info("scheduler", "outside");
  log::debug("scheduler", "hidden below the level");
  ASSERT_EQ(lines_.size(), 2u);
  auto first = nlohmann::json::parse(lines_[0]);
  EXPECT_EQ(first["level"], "info");
  EXPECT_EQ(first["logger"], "scheduler");
  EXPECT_EQ(first["message"], "pass \"quoted\"\n");
  EXPECT_EQ(first["scope"], "pass-abc");
  EXPECT_EQ(first["reminders"], 3);
  EXPECT_TRUE(parse_time(first["time"].get<std::string>()));
  auto second = nlohmann::json::parse(lines_[1]);
  EXPECT_FALSE(second.contains("scope"));
}

TEST_F(LogTest, ScopesAreThreadLocalAndNest) {
  log::Scope outer("req-1");
  std::thread other([] { log::info("t", "other thread"); });
  other.join();
  {
    log::Scope inner("task-2");
    log::info("t", "inner");
  }
  log::info("t", "outer again");
  ASSERT_EQ(lines_.size(), 3u);
  EXPECT_FALSE(nlohmann::json::parse(lines_[0]).contains("scope"));
  EXPECT_EQ(nlohmann::json::parse(lines_[1])["scope"], "task-2");
  EXPECT_EQ(nlohmann::json::parse(lines_[2])["scope"], "req-1");
}

TEST_F(LogTest, TextFormat) {
  log::configure(log::Level::info, log::Format::text);
  log::Scope scope("pass-x");
  log::warn("sweep", "removed", {{"file", "a.pdf"}});
  ASSERT_EQ(lines_.size(), 1u);
  EXPECT_NE(lines_[0].find("warning sweep [pass-x] removed file=a.pdf"), std::string::npos)
      << lines_[0];
}

TEST(ScopeId, HasPrefixAndIsFresh) {
  auto a = log::new_scope_id("pass"), b = log::new_scope_id("pass");
  EXPECT_EQ(a.rfind("pass-", 0), 0u);
  EXPECT_EQ(a.size(), 17u);
  EXPECT_NE(a, b);
}

}  // namespace
}  // namespace peto
