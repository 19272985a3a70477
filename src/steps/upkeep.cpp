#include "steps/upkeep.h"

#include "capture/kept_pages.h"
#include "engine/queue.h"
#include "media/exports.h"
#include "notify/outbox.h"

namespace peto::steps {

engine::Counts Upkeep::run(engine::PassContext& ctx) {
  engine::Queue queue(ctx.db, ctx.clock);
  engine::Counts c;
  c["interrupted"] = queue.fail_interrupted_errands(kErrandTimeout);
  c["reaped"] = queue.prune_finished(kKeepFinished);
  c["pages_expired"] = capture::KeptPages(ctx.db, ctx.clock, ctx.config.pages_dir())
                           .expire(ctx.config.capture_page_keep_days);
  c["archives_reaped"] = media::reap_archives(ctx.db, ctx.config.exports_dir(), ctx.clock.now_ms());
  c["notices_forgotten"] = notify::Outbox(ctx.clock, ctx.config).forget_old(*ctx.db.acquire());
  return c;
}

std::vector<std::string> Upkeep::summary(const engine::Counts& c) const {
  std::vector<std::string> lines;
  if (auto n = c.count("reaped") ? c.at("reaped") : 0)
    lines.push_back(std::to_string(n) + " finished errands and expired archives removed");
  if (auto n = c.count("archives_reaped") ? c.at("archives_reaped") : 0)
    lines.push_back(std::to_string(n) + " expired export archives removed");
  if (auto n = c.count("pages_expired") ? c.at("pages_expired") : 0)
    lines.push_back(std::to_string(n) + " kept capture pages expired");
  if (auto n = c.count("interrupted") ? c.at("interrupted") : 0)
    lines.push_back(std::to_string(n) + " interrupted errands failed");
  return lines;
}

}  // namespace peto::steps
