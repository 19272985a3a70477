#include "steps/purge.h"

#include "domain/api_tokens.h"
#include "engine/gate.h"

namespace peto::steps {

namespace {
constexpr engine::Figure kPurged{"purged"};
constexpr engine::Figure kIdempotencyKeys{"idempotency_keys"};
constexpr engine::Figure kRuns{"runs"};
}  // namespace

engine::StepResult Purge::run(engine::PassContext& ctx) {
  engine::StepResult result{kPurged, kIdempotencyKeys, kRuns};
  if (!engine::take_gate(ctx.cache, "purge")) return result;
  const std::int64_t cutoff = ctx.clock.now_ms() - domain::kIdempotencyHours * 3600 * 1000;
  auto keys = domain::ApiTokens::purge_idempotency(ctx.db, cutoff);
  result.add(kPurged, ctx.cache.purge_expired());
  result.add(kIdempotencyKeys, keys);
  result.add(kRuns);
  return result;
}

}  // namespace peto::steps
