// Closing: tells each person which listings they have not applied to close
// soon (docs/SPEC.md §3.2–3.4).
//
// Listings not applied to, not discarded and open, closing within the
// owner's closing_notice_days counted in their own calendar; announced once
// per closing date (closing_announced_for), so a moved date is told again.
// Claimed and announced in one transaction per owner; one owner's failure
// is logged and counted, and the others go on.
#pragma once

#include "engine/step.h"

namespace peto::steps {

class Closing final : public engine::Step {
 public:
  std::string_view id() const override { return "closing"; }
  engine::StepResult run(engine::PassContext& ctx) override;
};

}  // namespace peto::steps
