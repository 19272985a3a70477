// Reminders: announces outstanding reminders that are due (docs/SPEC.md
// §3.2–3.4, §6).
//
// Reads the due reminders of active owners (an inactive owner's reminders
// wait), claims them on notified_at and, in the same write transaction,
// writes each announcement to the outbox (notify/outbox.h): a claim that
// commits has its inbox notice and its deliveries; one that rolls back has
// neither. So two schedulers never announce one reminder twice, and a crash
// never loses one. 500 per transaction, for at most 60 s; key
// reminder:<id>:<due ISO>.
#pragma once

#include "engine/step.h"

namespace peto::steps {

class Reminders final : public engine::Step {
 public:
  static constexpr int kPerTransaction = 500;
  std::string_view id() const override { return "reminders"; }
  engine::StepResult run(engine::PassContext& ctx) override;
};

}  // namespace peto::steps
