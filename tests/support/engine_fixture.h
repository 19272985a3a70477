// A migrated database on both backends, a fake clock and a config whose data
// folder is the test's own.
#pragma once

#include <gtest/gtest.h>

#include <functional>

#include "app/app.h"
#include "core/config.h"
#include "engine/pass.h"
#include "store/migrate.h"
#include "tests/support/backends.h"

namespace peto::testing {

class EngineTest : public BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (IsSkipped()) return;
    auto applied = store::Migrator(db(), app::migrations()).apply();
    ASSERT_TRUE(applied) << applied.status().message();
    config_.data_dir = dir().string();
  }

  FakeClock clock_;
  Config config_;
};

// A step made of a function, for tests.
// A step made of a function that returns plain counts: each becomes a figure
// without words (never in the summary). The keys live in the step until its
// next run, as long as the pass reads the Result.
class LambdaStep final : public engine::Step {
 public:
  LambdaStep(std::string id, std::function<engine::Counts(engine::PassContext&)> fn)
      : id_(std::move(id)), fn_(std::move(fn)) {}
  std::string_view id() const override { return id_; }
  engine::StepResult run(engine::PassContext& ctx) override {
    last_ = fn_(ctx);
    engine::StepResult result;
    for (const auto& [key, n] : last_) result.add(engine::Figure{key}, n);
    return result;
  }

 private:
  std::string id_;
  std::function<engine::Counts(engine::PassContext&)> fn_;
  engine::Counts last_;
};

template <typename... Steps>
std::vector<std::unique_ptr<engine::Step>> step_list(Steps... steps) {
  std::vector<std::unique_ptr<engine::Step>> list;
  (list.push_back(std::move(steps)), ...);
  return list;
}

}  // namespace peto::testing
