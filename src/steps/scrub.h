// Scrub (docs/RULES.md #1118): checks a slice of uploads against their recorded size and
// SHA-256. Only uploads never checked, or last checked more than
// PETO_SCRUB_EVERY_DAYS ago (0: every pass), 25 a pass, oldest first. Damage
// ("missing", "changed") is recorded on the row; a file is never altered or
// deleted. Two schedulers scrubbing at once only check a file twice, which is
// harmless, so there is no claim.
#pragma once

#include "engine/step.h"

namespace peto::steps {

class Scrub final : public engine::Step {
 public:
  static constexpr int kSlice = 25;
  std::string_view id() const override { return "scrub"; }
  engine::StepResult run(engine::PassContext& ctx) override;
};

}  // namespace peto::steps
