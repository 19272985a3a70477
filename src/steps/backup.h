// Backup: starts the scheduled backup when it is due (docs/SPEC.md §3.2, §6
// Backup and restore). It runs outside the pass lease, after the lease is
// released or when another scheduler holds it (steps::after_lease()): it
// claims its own run in backup_state, so two schedulers never start one slot
// twice. With background work on, the run is queued for a worker; otherwise
// it is written here. Its failure never fails the pass.
#pragma once

#include "engine/step.h"

namespace peto::steps {

class Backup final : public engine::Step {
 public:
  std::string_view id() const override { return "backup"; }
  engine::StepResult run(engine::PassContext& ctx) override;
};

}  // namespace peto::steps
