// Syncs: runs the sync connections that are due (docs/SPEC.md §6, Syncs,
// sync/syncs.h), one at a time, each claimed on synced_at and guarded by its
// lease, so two passes at once never run one connection twice.
//
// The budget (`--sync-budget`, 120 s; 0 = none) is checked on the monotonic
// clock before each sync starts; a sync already started is never cut off.
// What is left keeps its synced_at and is due first next pass.
//
// Counts: ran (started, "already running" included), failed (the report has
// an error), left (due but not started for the budget).
#pragma once

#include "engine/step.h"

namespace peto::steps {

class Syncs final : public engine::Step {
 public:
  std::string_view id() const override { return "syncs"; }
  engine::StepResult run(engine::PassContext& ctx) override;
};

}  // namespace peto::steps
