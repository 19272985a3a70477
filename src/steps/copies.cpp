#include "steps/copies.h"

#include "core/log.h"
#include "media/copies.h"
#include "net/http.h"

namespace peto::steps {

engine::Counts Copies::run(engine::PassContext& ctx) {
  static const net::HttpClient http;
  media::Copies copies(ctx.db, ctx.clock, ctx.config, http);
  engine::Counts counts;
  auto budget = ctx.budget(kBudget);
  auto due = copies.due();
  for (std::size_t i = 0; i < due.size(); ++i) {
    if (budget.spent()) {
      counts["left"] += static_cast<std::int64_t>(due.size() - i);
      break;
    }
    std::int64_t id = due[i];
    try {
      auto claim = copies.claim(id);
      if (!claim) continue;  // another sender has it
      auto outcome = copies.attempt(id, *claim);
      if (outcome == media::CopyOutcome::sent)
        ++counts["sent"];
      else if (outcome != media::CopyOutcome::busy)
        ++counts["failed"];
    } catch (const std::exception& e) {
      // The database failed under this copy: its claim brings it back in 15 minutes.
      log::error("copies", "copy failed", {{"copy", id}, {"error", e.what()}});
      ++counts["errors"];
    }
  }
  return counts;
}

std::vector<std::string> Copies::summary(const engine::Counts& c) const {
  std::vector<std::string> lines;
  auto sent = engine::count_of(c, "sent");
  auto failed = engine::count_of(c, "failed");
  std::string line;
  if (sent) line = std::to_string(sent) + " document copies sent";
  if (failed) line += (line.empty() ? "" : ", ") + std::to_string(failed) + " failed";
  if (failed && !sent) line = std::to_string(failed) + " document copies failed";
  if (!line.empty()) lines.push_back(line);
  return lines;
}

}  // namespace peto::steps
