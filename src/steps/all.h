// The pass's steps in the order SPEC §3.2 gives. Steps that need the domain
// join this list as their issues land.
#pragma once

#include <memory>
#include <vector>

#include "engine/step.h"

namespace peto::steps {

std::vector<std::unique_ptr<engine::Step>> all();

}  // namespace peto::steps
