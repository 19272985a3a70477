// Quiet: tells each person which of their applications went quiet
// (docs/SPEC.md §3.2–3.4; docs/RULES.md #1120).
//
// The active owners who have an application that can go quiet are read once
// with their profiles; per owner, one question (domain/due.h) returns only
// the applications quiet for quiet_after_days and not yet announced in this
// silence; they are claimed on quiet_announced_at and told in one message
// (5 named, then "and N more"), in the claiming transaction. The number of
// queries does not depend on the number of applications. One owner's
// failure is logged and counted; the others go on.
#pragma once

#include "engine/step.h"

namespace peto::steps {

class Quiet final : public engine::Step {
 public:
  std::string_view id() const override { return "quiet"; }
  engine::StepResult run(engine::PassContext& ctx) override;
};

}  // namespace peto::steps
