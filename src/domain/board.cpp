#include "domain/board.h"

namespace peto::domain {

std::map<std::int64_t, CardFacts> card_facts(store::Db& db, std::int64_t owner,
                                             const std::vector<std::int64_t>& ids,
                                             std::int64_t now) {
  std::map<std::int64_t, CardFacts> out;
  if (ids.empty()) return out;
  // "a.owner_id = ? AND x IN (?, …)" and its parameters.
  std::string in = "(";
  store::Params of_owner = {owner};
  for (std::size_t i = 0; i < ids.size(); ++i) {
    in += i == 0 ? "?" : ", ?";
    of_owner.emplace_back(ids[i]);
  }
  in += ")";
  auto conn = db.acquire();
  return store::with_read(*conn, [&](store::Conn& c) {
    for (const auto& r : c.query(
             "SELECT a.id, COALESCE((SELECT MAX(e.occurred_at) FROM application_events e"
             " WHERE e.application_id = a.id AND e.kind = 'status_change'), a.created_at) AS since"
             " FROM applications a WHERE a.owner_id = ? AND a.id IN " +
                 in,
             of_owner))
      out[r.int_at("id")].stage_since = r.int_at("since");

    // The soonest of what is still to come: a reminder not done (an overdue
    // one before all else), an interview scheduled from now on.
    store::Params twice = of_owner;
    twice.emplace_back(owner);
    twice.emplace_back(now);
    for (std::int64_t id : ids) twice.emplace_back(id);
    for (const auto& r :
         c.query("SELECT 'reminders' AS kind, r.id, r.application_id, r.due_at AS at,"
                 " r.due_on AS day, r.title FROM reminders r"
                 " JOIN applications a ON a.id = r.application_id"
                 " WHERE a.owner_id = ? AND r.application_id IN " +
                     in +
                     " AND r.done_at IS NULL AND r.due_at IS NOT NULL"
                     " UNION ALL SELECT 'interviews', i.id, i.application_id, i.starts_at,"
                     " i.starts_on, i.kind FROM interviews i"
                     " JOIN applications a ON a.id = i.application_id"
                     " WHERE a.owner_id = ? AND i.starts_at >= ? AND i.application_id IN " +
                     in + " AND i.outcome = 'scheduled' ORDER BY 4, 2",
                 twice)) {
      auto it = out.find(r.int_at("application_id"));
      if (it == out.end() || it->second.next) continue;
      it->second.next =
          NextThing{r.text("kind"), r.int_at("id"), r.int_at("at"), r.text("day"), r.text("title")};
    }

    for (const auto& r :
         c.query("SELECT at.application_id, g.name, g.colour FROM application_tags at"
                 " JOIN tags g ON g.id = at.tag_id JOIN applications a ON a.id = at.application_id"
                 " WHERE a.owner_id = ? AND at.application_id IN " +
                     in + " ORDER BY g.name, g.id",
                 of_owner))
      if (auto it = out.find(r.int_at("application_id")); it != out.end())
        it->second.tags.emplace_back(r.text("name"), r.text("colour"));
    return out;
  });
}

}  // namespace peto::domain
