// Copies: sends document copies to their stores (docs/SPEC.md §6, Stores,
// media/copies.h). The first 50 due copies in (next_attempt_at, id) order,
// one at a time, each claimed before it is tried.
//
// docs/RULES.md #1172: the step stops starting copies once 60 s have gone (checked before
// each one; a copy started is never cut off, so a pass spends the budget and
// one copy more at most). What is left is neither claimed nor counted: it
// keeps its next_attempt_at and stands first next pass, ahead of copies that
// failed and wait for their retry.
//
// Counts: sent, failed (failed, declined and policy-refused alike, as
// Postulo counts them), left (due but not started for the budget).
#pragma once

#include "engine/step.h"

namespace peto::steps {

class Copies final : public engine::Step {
 public:
  static constexpr auto kBudget = std::chrono::seconds(60);
  std::string_view id() const override { return "copies"; }
  engine::StepResult run(engine::PassContext& ctx) override;
};

}  // namespace peto::steps
