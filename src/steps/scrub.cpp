#include "steps/scrub.h"

#include "core/log.h"
#include "media/documents.h"

namespace peto::steps {

namespace {
constexpr engine::Figure kChecked{"checked"};
constexpr engine::Figure kDamaged{"damaged", "{n} upload found damaged",
                                  "{n} uploads found damaged"};
}  // namespace

engine::StepResult Scrub::run(engine::PassContext& ctx) {
  constexpr long long kDayMs = 86'400'000;
  long long age_ms = ctx.config.scrub_every_days * kDayMs;
  store::Value now = store::now_param(ctx.clock);
  auto rows = media::uploads_due_for_check(ctx.db, now, age_ms, kSlice);
  engine::StepResult result{kChecked, kDamaged};
  for (const auto& row : rows) {
    std::int64_t id = row.int_at("id");
    try {
      auto damage = media::check_upload(ctx.db, ctx.config.media_dir(), row, now);
      result.add(kChecked);
      if (damage != media::Damage::none) {
        result.add(kDamaged);
        log::warn("scrub", "upload is damaged",
                  {{"upload", id}, {"damage", media::damage_name(damage)}});
      }
    } catch (const std::exception& e) {
      log::error("scrub", "could not check an upload", {{"upload", id}, {"error", e.what()}});
    }
  }
  return result;
}

}  // namespace peto::steps
