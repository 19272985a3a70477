// Deliveries: sends what the outbox holds (notify::Outbox::deliver_due), for
// at most 60 s a pass (docs/SPEC.md §3.2, §6). Counts: sent, failed (will
// retry), given_up, retired (connections switched off as unusable).
#pragma once

#include "engine/step.h"

namespace peto::steps {

class Deliveries final : public engine::Step {
 public:
  static constexpr auto kBudget = std::chrono::seconds(60);
  std::string_view id() const override { return "deliveries"; }
  engine::StepResult run(engine::PassContext& ctx) override;
};

}  // namespace peto::steps
