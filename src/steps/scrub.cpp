#include "steps/scrub.h"

#include "core/log.h"
#include "media/documents.h"

namespace peto::steps {

engine::Counts Scrub::run(engine::PassContext& ctx) {
  constexpr long long kDayMs = 86'400'000;
  long long age_ms = ctx.config.scrub_every_days * kDayMs;
  store::Value now = store::now_param(ctx.clock);
  auto rows = ctx.db.query("SELECT " + std::string(media::kCheckColumns) +
                               " FROM uploads"
                               " WHERE verified_at <= COALESCE(?, now_ms()) - ? AND file <> ''"
                               " ORDER BY verified_at, id LIMIT ?",
                           {now, age_ms, kSlice});
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
  auto damaged = c.count("damaged") ? c.at("damaged") : 0;
  if (damaged == 0) return {};
  return {std::to_string(damaged) + " of " + std::to_string(c.at("checked")) +
          " uploads checked are damaged"};
}

}  // namespace peto::steps
