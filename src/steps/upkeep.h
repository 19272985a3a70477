// Upkeep (#1121 and errands): fails errands still waiting or working 24 h
// after they were asked for ("interrupted, please try again"; errands are
// never retried by themselves), and deletes finished tasks (done, failed,
// cancelled) once they are 7 days old, in batches; and removes the kept
// pages of captures not accepted after PETO_CAPTURE_PAGE_KEEP_DAYS. Later
// issues add export archives and shown notices here.
#pragma once

#include "engine/step.h"

namespace peto::steps {

class Upkeep final : public engine::Step {
 public:
  static constexpr auto kErrandTimeout = std::chrono::hours(24);
  static constexpr auto kKeepFinished = std::chrono::hours(24 * 7);
  std::string_view id() const override { return "upkeep"; }
  engine::Counts run(engine::PassContext& ctx) override;
  std::vector<std::string> summary(const engine::Counts& c) const override;
};

}  // namespace peto::steps
