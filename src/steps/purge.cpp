#include "steps/purge.h"

#include "engine/gate.h"

namespace peto::steps {

engine::Counts Purge::run(engine::PassContext& ctx) {
  if (!engine::take_gate(ctx.cache, "purge")) return {};
  return {{"purged", ctx.cache.purge_expired()}, {"runs", 1}};
}

}  // namespace peto::steps
