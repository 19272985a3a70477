#include "steps/purge.h"

#include "domain/api_tokens.h"
#include "engine/gate.h"

namespace peto::steps {

engine::Counts Purge::run(engine::PassContext& ctx) {
  if (!engine::take_gate(ctx.cache, "purge")) return {};
  const std::int64_t cutoff = ctx.clock.now_ms() - domain::kIdempotencyHours * 3600 * 1000;
  auto keys = domain::ApiTokens::purge_idempotency(ctx.db, cutoff);
  return {{"purged", ctx.cache.purge_expired()}, {"idempotency_keys", keys}, {"runs", 1}};
}

}  // namespace peto::steps
