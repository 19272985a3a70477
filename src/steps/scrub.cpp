#include "steps/scrub.h"

#include "core/log.h"
#include "media/documents.h"

namespace peto::steps {

engine::Counts Scrub::run(engine::PassContext& ctx) {
  constexpr long long kDayMs = 86'400'000;
  long long age_ms = ctx.config.scrub_every_days * kDayMs;
  store::Value now = store::now_param(ctx.clock);
  auto rows = media::uploads_due_for_check(ctx.db, now, age_ms, kSlice);
  engine::Counts counts;
  for (const auto& row : rows) {
    std::int64_t id = row.int_at(0);
    try {
      auto damage = media::check_upload(ctx.db, ctx.config.media_dir(), row, now);
      ++counts["checked"];
      if (damage != media::Damage::none) {
        ++counts["damaged"];
        log::warn("scrub", "upload is damaged",
                  {{"upload", id}, {"damage", media::damage_name(damage)}});
      }
    } catch (const std::exception& e) {
      log::error("scrub", "could not check an upload", {{"upload", id}, {"error", e.what()}});
    }
  }
  return counts;
}

std::vector<std::string> Scrub::summary(const engine::Counts& c) const {
  auto damaged = engine::count_of(c, "damaged");
  if (damaged == 0) return {};
  return {std::to_string(damaged) + " of " + std::to_string(engine::count_of(c, "checked")) +
          " uploads checked are damaged"};
}

}  // namespace peto::steps
