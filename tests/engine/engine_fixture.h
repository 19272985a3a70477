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
class LambdaStep final : public engine::Step {
 public:
  LambdaStep(std::string id, std::function<engine::Counts(engine::PassContext&)> fn,
             std::function<std::vector<std::string>(const engine::Counts&)> summary = nullptr)
      : id_(std::move(id)), fn_(std::move(fn)), summary_(std::move(summary)) {}
  std::string_view id() const override { return id_; }
  engine::Counts run(engine::PassContext& ctx) override { return fn_(ctx); }
  std::vector<std::string> summary(const engine::Counts& c) const override {
    return summary_ ? summary_(c) : std::vector<std::string>{};
  }

 private:
  std::string id_;
  std::function<engine::Counts(engine::PassContext&)> fn_;
  std::function<std::vector<std::string>(const engine::Counts&)> summary_;
};

template <typename... Steps>
std::vector<std::unique_ptr<engine::Step>> step_list(Steps... steps) {
  std::vector<std::unique_ptr<engine::Step>> list;
  (list.push_back(std::move(steps)), ...);
  return list;
}

}  // namespace peto::testing
