// The pass's steps in the order docs/SPEC.md §3.2 gives.
#pragma once

#include <memory>
#include <vector>

#include "engine/step.h"

namespace peto::steps {

std::vector<std::unique_ptr<engine::Step>> all();
// The steps that run outside the pass lease, after it (the scheduled backup).
std::vector<std::shared_ptr<engine::Step>> after_lease();

}  // namespace peto::steps
