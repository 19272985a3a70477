// Cache purge (docs/RULES.md #1167): once an hour across all schedulers, deletes the cache
// rows already past their expiry. Nothing live is touched, so no gate,
// lease or counter is ever cut short; there is no entry limit to cull by.
// peto keeps no file cache, so there is no file purge to cap. The same pass
// drops the API's idempotency keys older than 24 h (their answers are no
// longer replayed).
#pragma once

#include "engine/step.h"

namespace peto::steps {

class Purge final : public engine::Step {
 public:
  std::string_view id() const override { return "purge"; }
  engine::StepResult run(engine::PassContext& ctx) override;
};

}  // namespace peto::steps
