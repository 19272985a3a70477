#include "domain/insights.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "core/timezone.h"
#include "domain/dashboard.h"
#include "domain/kinds.h"

namespace peto::domain {

namespace {

constexpr std::int64_t kDayMs = 24LL * 3600 * 1000;

// The funnel's stages, in order; each is "reached this, ever".
const std::vector<std::string> kFunnel = {"applied",    "acknowledged", "screening", "interviewing",
                                          "assessment", "offer",        "accepted"};

const std::vector<std::string> kReplyStatuses = {
    "acknowledged", "screening", "interviewing", "assessment", "offer", "accepted", "rejected"};

// The order an ending's stage is listed in: the statuses' own.
int stage_order(const std::string& s) {
  int r = status_rank(s);
  return r < 0 ? 1000 : r;
}

std::string quoted_list(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "'" : ", '") + s + "'";
  return out;
}

// The bit of a funnel stage in applications.reached; 0 for another status.
std::int64_t stage_bit(const std::string& status) {
  for (std::size_t i = 0; i < kFunnel.size(); ++i)
    if (kFunnel[i] == status) return std::int64_t{1} << i;
  return 0;
}

// An arrival at `status` on an entry aliased `e` (an X→X entry only gives a
// reason afterwards).
std::string arrival(const std::string& e, const char* status) {
  return "(" + e + ".kind = 'status_change' AND " + e + ".to_status = '" + status + "' AND (" + e +
         ".from_status IS NULL OR " + e + ".from_status <> " + e + ".to_status))";
}

// The facts of the application whose id is the SQL expression `id`, read
// from its entries: the SET list of an UPDATE of applications.
std::string facts_from_entries(const std::string& id) {
  std::string bits;
  for (std::size_t i = 0; i < kFunnel.size(); ++i)
    bits += " WHEN '" + kFunnel[i] + "' THEN " + std::to_string(1 << i);
  auto first = [&](const std::string& condition) {
    return "(SELECT MIN(e.occurred_at) FROM application_events e WHERE e.application_id = " + id +
           " AND " + condition + ")";
  };
  return "reached = COALESCE((SELECT SUM(DISTINCT CASE e.to_status" + bits +
         " END) FROM application_events e WHERE e.application_id = " + id +
         " AND e.kind = 'status_change'), 0), first_reply_at = " + first(reply_condition("e")) +
         ", first_offer_at = " + first(arrival("e", "offer")) +
         ", first_rejection_at = " + first(arrival("e", "rejected")) +
         ", last_entry_at = (SELECT MAX(e.occurred_at) FROM application_events e"
         " WHERE e.application_id = " +
         id + ")";
}

std::string refresh_facts(const std::string& id) {
  return "UPDATE applications SET " + facts_from_entries(id) + " WHERE id = " + id + ";";
}

std::string facts_sql(store::Dialect d) {
  const std::string columns =
      "ALTER TABLE applications ADD COLUMN reached INTEGER NOT NULL DEFAULT 0;"
      "ALTER TABLE applications ADD COLUMN first_reply_at BIGINT;"
      "ALTER TABLE applications ADD COLUMN first_offer_at BIGINT;"
      "ALTER TABLE applications ADD COLUMN first_rejection_at BIGINT;"
      "ALTER TABLE applications ADD COLUMN last_entry_at BIGINT;"
      "UPDATE applications SET " +
      facts_from_entries("applications.id") +
      ";"
      // The entries the pages still read one application at a time: the
      // status changes (the funnel, the endings) and the interviews typed in.
      "CREATE INDEX application_events_status ON application_events (application_id, to_status)"
      " WHERE kind = 'status_change';"
      "CREATE INDEX application_events_interview ON application_events"
      " (application_id, occurred_at) WHERE kind = 'interview';"
      // The applications sent in a period, and the drafts never sent.
      "CREATE INDEX applications_sent ON applications (owner_id, applied_at);";
  const std::string watched = "kind, occurred_at, from_status, to_status, application_id";
  if (d == store::Dialect::sqlite)
    return columns +
           "CREATE TRIGGER application_facts_insert AFTER INSERT ON application_events BEGIN " +
           refresh_facts("NEW.application_id") +
           " END;"
           "CREATE TRIGGER application_facts_update AFTER UPDATE OF " +
           watched + " ON application_events BEGIN " + refresh_facts("OLD.application_id") + " " +
           refresh_facts("NEW.application_id") +
           " END;"
           "CREATE TRIGGER application_facts_delete AFTER DELETE ON application_events BEGIN " +
           refresh_facts("OLD.application_id") + " END;";
  return columns +
         "CREATE FUNCTION application_facts() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
         " IF TG_OP <> 'INSERT' THEN " +
         refresh_facts("OLD.application_id") + " END IF; IF TG_OP <> 'DELETE' THEN " +
         refresh_facts("NEW.application_id") +
         " END IF; RETURN NULL; END $$;"
         " CREATE TRIGGER application_facts AFTER INSERT OR DELETE OR UPDATE OF " +
         watched + " ON application_events FOR EACH ROW EXECUTE FUNCTION application_facts();";
}

// One application sent in the period, with what ever happened to it.
struct Sent {
  std::int64_t id = 0;
  std::string status, channel, company, company_id, contact_id, contact;
  std::int64_t applied_at = 0;
  std::int64_t reached = 0;  // bit i: kFunnel[i] reached, ever
  bool replied = false;
  std::optional<std::int64_t> first_reply;  // at or after applied_at
  std::optional<std::int64_t> first_interview;
  std::int64_t held = 0;
  bool quiet = false;
};

// The period's local days as UTC bounds [from, to); open ends are nullopt.
struct Bounds {
  std::optional<std::int64_t> from, to;
};

Bounds bounds_of(const InsightsQuery& q) {
  Bounds b;
  if (!q.from.empty()) b.from = parse_local(q.from + " 00:00", q.time_zone);
  if (!q.to.empty()) b.to = parse_local(add_days(q.to, 1) + " 00:00", q.time_zone);
  return b;
}

// " AND <column> >= ? AND <column> < ?" for the ends of the period that are
// set, and the tag's condition on an application aliased `a` when there is
// one; their parameters go on `params`. A statement with a period runs with
// query_for_values: planned for that period, not for any.
std::string narrowed(const std::string& column, const Bounds& b,
                     const std::optional<std::int64_t>& tag, store::Params& params) {
  std::string sql;
  if (b.from) {
    sql += " AND " + column + " >= ?";
    params.emplace_back(*b.from);
  }
  if (b.to) {
    sql += " AND " + column + " < ?";
    params.emplace_back(*b.to);
  }
  if (tag) {
    sql +=
        " AND EXISTS (SELECT 1 FROM application_tags g WHERE g.application_id = a.id"
        " AND g.tag_id = ?)";
    params.emplace_back(*tag);
  }
  return sql;
}

// The names of the person's companies and contacts (a contact's with its
// company's), by id: read apart, once, rather than joined onto every
// application.
std::unordered_map<std::string, std::string> names_of(store::Conn& db, std::int64_t owner) {
  auto rows = db.query(
      "SELECT 'c' AS what, c.id, c.name, NULL AS company FROM companies c WHERE c.owner_id = ?"
      " UNION ALL SELECT 'p', p.id, p.name, pc.name FROM contacts p"
      " LEFT JOIN companies pc ON pc.id = p.company_id WHERE p.owner_id = ?",
      {owner, owner});
  std::unordered_map<std::string, std::string> out;
  out.reserve(rows.size());
  for (const auto& r : rows) {
    std::string name = r.text(2);
    if (!r.is_null(3)) name += " · " + r.text(3);
    out[r.text(0) + r.text(1)] = std::move(name);
  }
  return out;
}

std::vector<Sent> read_sent(store::Conn& db, const InsightsQuery& q, const Bounds& b) {
  store::Params params = {q.owner};
  std::string cohort =
      " AND a.applied_at IS NOT NULL" + narrowed("a.applied_at", b, q.tag_id, params);
  auto rows = db.query_for_values(
      "SELECT a.id, a.status, a.channel, a.applied_at, l.company_id, a.contact_id,"
      " a.first_reply_at, a.reached FROM applications a JOIN listings l ON l.id = a.listing_id"
      " WHERE a.owner_id = ?" +
          cohort,  // no order: every figure is a count, a median or a sorted table
      params);
  const auto names = names_of(db, q.owner);
  auto name = [&](const char* what, const std::string& id) {
    auto found = names.find(what + id);
    return found == names.end() ? std::string() : found->second;
  };
  std::vector<Sent> out;
  out.reserve(rows.size());
  for (const auto& r : rows) {
    Sent s;
    s.id = r.int_at(0);
    s.status = r.text(1);
    s.channel = r.text(2);
    s.applied_at = r.int_at(3);
    s.company_id = r.text(4);
    s.company = name("c", s.company_id);
    if (!r.is_null(5)) {
      s.contact_id = r.text(5);
      s.contact = name("p", s.contact_id);
    }
    s.replied = !r.is_null(6);
    // A reply entered before the day it was sent says nothing of the wait.
    if (s.replied && r.int_at(6) >= s.applied_at) s.first_reply = r.int_at(6);
    // applied_at is set only by reaching a sent status; the status it is in
    // now was reached too.
    s.reached = r.int_at(7) | stage_bit("applied") | stage_bit(s.status);
    out.push_back(std::move(s));
  }
  return out;
}

// The diary's interviews and the ones typed onto the timeline, per
// application: held, the first held, and how many are still ahead.
void read_interviews(store::Conn& db, const InsightsQuery& q,
                     std::unordered_map<std::int64_t, Sent*>& by_id, Insights& out) {
  auto rows = db.query(
      "SELECT i.application_id, i.kind, i.outcome, i.starts_at, i.ends_at, i.starts_on"
      " FROM interviews i WHERE i.owner_id = ?"
      " UNION ALL SELECT e.application_id, 'timeline', 'done', e.occurred_at, NULL, NULL"
      " FROM application_events e JOIN applications a ON a.id = e.application_id"
      " WHERE a.owner_id = ? AND " +
          typed_interview_condition(),
      {q.owner, q.owner});
  std::map<std::string, std::int64_t> kinds;
  for (const auto& r : rows) {
    auto found = by_id.find(r.int_at(0));
    if (found == by_id.end()) continue;
    Sent& s = *found->second;
    const std::string outcome = r.text(2);
    if (outcome == "scheduled") {
      const bool all_day = !r.is_null(5);
      const std::int64_t starts = r.is_null(3) ? 0 : r.int_at(3);
      const std::int64_t ends = r.is_null(4) ? starts : r.int_at(4);
      if ((all_day ? ends : starts) >= q.now) ++out.interviews_ahead;
      continue;
    }
    if (outcome != "done" || r.is_null(3)) continue;
    const std::int64_t at = r.int_at(3);
    ++s.held;
    ++out.interviews_held;
    ++kinds[r.text(1)];
    if (!s.first_interview || at < *s.first_interview) s.first_interview = at;
  }
  for (const auto& [kind, n] : kinds) out.interview_kinds.push_back({kind, n});
  std::stable_sort(out.interview_kinds.begin(), out.interview_kinds.end(),
                   [](const Count& a, const Count& b) { return a.count > b.count; });
}

// Where the ended applications had got to, and why they ended, from the
// entries that ended them.
void read_endings(store::Conn& db, const InsightsQuery& q,
                  const std::unordered_map<std::int64_t, Sent*>& by_id, Insights& out) {
  auto rows = db.query(
      "SELECT e.application_id, e.from_status, e.to_status, e.end_reason"
      " FROM application_events e JOIN applications a ON a.id = e.application_id"
      " WHERE a.owner_id = ? AND a.status IN ('rejected', 'withdrawn', 'ghosted')"
      " AND e.kind = 'status_change' AND e.to_status = a.status"
      " ORDER BY e.application_id, e.occurred_at, e.id",
      {q.owner});
  struct Ending {
    std::string how, stage, reason;
  };
  std::map<std::int64_t, Ending> ended;
  for (const auto& r : rows) {
    if (!by_id.count(r.int_at(0))) continue;
    Ending& e = ended[r.int_at(0)];
    e.how = r.text(2);
    const std::string from = r.text(1);
    if (!from.empty() && from != e.how) e.stage = from;
    if (!r.text(3).empty()) e.reason = r.text(3);
  }
  std::map<std::string, EndingRow> stages, reasons;
  for (const auto& [id, e] : ended) {
    for (auto* row : {&stages[e.stage], &reasons[e.reason]}) {
      if (e.how == "rejected") ++row->rejected;
      if (e.how == "withdrawn") ++row->withdrawn;
      if (e.how == "ghosted") ++row->ghosted;
    }
    ++out.ended;
    if (!e.reason.empty()) ++out.ended_explained;
  }
  auto total = [](const EndingRow& r) { return r.rejected + r.withdrawn + r.ghosted; };
  for (auto& [key, row] : stages) {
    row.key = key;
    out.ending_stages.push_back(row);
  }
  for (auto& [key, row] : reasons) {
    row.key = key;
    out.ending_reasons.push_back(row);
  }
  // What is not known goes last in both.
  std::sort(out.ending_stages.begin(), out.ending_stages.end(),
            [](const EndingRow& a, const EndingRow& b) {
              return std::pair(a.key.empty(), stage_order(a.key)) <
                     std::pair(b.key.empty(), stage_order(b.key));
            });
  std::sort(out.ending_reasons.begin(), out.ending_reasons.end(),
            [&](const EndingRow& a, const EndingRow& b) {
              return std::tuple(a.key.empty(), -total(a), a.key) <
                     std::tuple(b.key.empty(), -total(b), b.key);
            });
}

void mark_quiet(store::Conn& db, const InsightsQuery& q,
                std::unordered_map<std::int64_t, Sent*>& by_id, Insights& out) {
  auto rows =
      db.query("SELECT a.id FROM applications a WHERE a.owner_id = ? AND " + quiet_condition(),
               {q.owner, q.now, q.now - q.quiet_after_days * kDayMs});
  std::map<std::string, std::int64_t> companies;
  for (const auto& r : rows) {
    auto found = by_id.find(r.int_at(0));
    if (found == by_id.end()) continue;
    found->second->quiet = true;
    ++out.quiet_now;
    ++companies[found->second->company];
  }
  for (const auto& [name, n] : companies) out.quiet_by_company.push_back({name, n});
  std::stable_sort(out.quiet_by_company.begin(), out.quiet_by_company.end(),
                   [](const Count& a, const Count& b) { return a.count > b.count; });
}

void read_listings(store::Conn& db, const InsightsQuery& q, const Bounds& b, Insights& out) {
  if (q.tag_id) return;
  // Three counts over the listings noted in the period; the applied ones
  // counted from the applications' side, which both backends plan well.
  store::Params params = {q.owner};
  const std::string noted = narrowed("l.created_at", b, std::nullopt, params);
  params.emplace_back(q.owner);
  const std::string applied = narrowed("l.created_at", b, std::nullopt, params);
  params.emplace_back(q.owner);
  const std::string discarded = narrowed("l.created_at", b, std::nullopt, params);
  // The listing is joined only to read when it was noted.
  const std::string listing = applied.empty() ? "" : " JOIN listings l ON l.id = a.listing_id";
  auto rows = db.query_for_values(
      "SELECT (SELECT COUNT(*) FROM listings l WHERE l.owner_id = ?" + noted +
          ") AS noted, (SELECT COUNT(DISTINCT a.listing_id) FROM applications a" + listing +
          " WHERE a.owner_id = ? AND " + application_past_draft("a") + applied +
          ") AS applied, (SELECT COUNT(*) FROM listings l WHERE l.owner_id = ?"
          " AND l.state = 'discarded'" +
          discarded + ") AS discarded",
      params);
  out.listings_noted = rows[0].int_at("noted");
  out.listings_applied = rows[0].int_at("applied");
  out.listings_discarded = rows[0].int_at("discarded");
}

std::int64_t count_drafts(store::Conn& db, const InsightsQuery& q, const Bounds& b) {
  store::Params params = {q.owner};
  const std::string sql =
      "SELECT COUNT(*) AS n FROM applications a WHERE a.owner_id = ? AND a.applied_at IS NULL" +
      narrowed("a.created_at", b, q.tag_id, params);
  return db.query_for_values(sql, params)[0].int_at("n");
}

// Whole days between two moments, as the person's calendar counts them.
std::int64_t days_between(std::int64_t from, std::int64_t to, const std::string& zone) {
  return local_day(to, zone) - local_day(from, zone);
}

double median(std::vector<std::int64_t> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1
             ? static_cast<double>(values[n / 2])
             : (static_cast<double>(values[n / 2 - 1]) + static_cast<double>(values[n / 2])) / 2.0;
}

bool interviewed(const Sent& s) {
  return s.held > 0 || (s.reached & (stage_bit("interviewing") | stage_bit("assessment"))) != 0;
}

void add_to(Tally& row, const Sent& s) {
  ++row.applied;
  if (s.replied) ++row.replied;
  if (interviewed(s)) ++row.interviewed;
  if ((s.reached & (stage_bit("offer") | stage_bit("accepted"))) != 0) ++row.offers;
  if (s.quiet) ++row.quiet;
}

std::vector<Tally> by_size(std::map<std::string, Tally>& rows) {
  std::vector<Tally> out;
  out.reserve(rows.size());
  for (auto& [key, row] : rows) out.push_back(row);
  std::sort(out.begin(), out.end(), [](const Tally& a, const Tally& b) {
    return std::tuple(a.key.empty(), -a.applied, a.name, a.key) <
           std::tuple(b.key.empty(), -b.applied, b.name, b.key);
  });
  return out;
}

void tables(const std::vector<Sent>& sent, Insights& out) {
  std::map<std::string, Tally> channels, companies, contacts;
  for (const Sent& s : sent) {
    Tally& channel = channels[s.channel];
    channel.key = s.channel;
    add_to(channel, s);
    Tally& company = companies[s.company_id];
    company.key = s.company_id;
    company.name = s.company;
    add_to(company, s);
    // Who referred the person, or the agency it went through: only the
    // applications that name one (the rest would be the table above again).
    if (!s.contact_id.empty() && (s.channel == "referral" || s.channel == "recruiter")) {
      Tally& contact = contacts[s.contact_id];
      contact.key = s.contact_id;
      contact.name = s.contact;
      add_to(contact, s);
    }
  }
  out.by_channel = by_size(channels);
  out.by_company = by_size(companies);
  out.by_contact = by_size(contacts);
}

// Every month from the first application sent to the last (or to the end
// of the period), noughts kept: a quiet stretch must be visible.
void months(const std::vector<Sent>& sent, const InsightsQuery& q, Insights& out) {
  if (sent.empty()) return;
  std::map<std::string, std::int64_t> counts;
  for (const Sent& s : sent) ++counts[local_date(s.applied_at, q.time_zone).substr(0, 7)];
  std::string month = counts.begin()->first;
  std::string last = counts.rbegin()->first;
  const std::string now_month = local_date(q.now, q.time_zone).substr(0, 7);
  const std::string end = q.to.empty() ? now_month : std::min(q.to.substr(0, 7), now_month);
  if (end > last) last = end;
  while (month <= last) {
    auto found = counts.find(month);
    out.by_month.push_back({month, found == counts.end() ? 0 : found->second});
    month = add_days(month + "-28", 4).substr(0, 7);
  }
}

void replies(const std::vector<Sent>& sent, const InsightsQuery& q, Insights& out) {
  std::vector<std::int64_t> reply_days, interview_days;
  for (const Sent& s : sent) {
    if (s.replied) ++out.replied;
    if (s.status == "ghosted") ++out.ghosted;
    if (is_open_status(s.status)) {
      ++out.open_now;
      if (!s.replied) ++out.waiting;
    }
    if (s.first_reply)
      reply_days.push_back(days_between(s.applied_at, *s.first_reply, q.time_zone));
    if (interviewed(s)) ++out.interviewed;
    if (s.first_interview && *s.first_interview >= s.applied_at)
      interview_days.push_back(days_between(s.applied_at, *s.first_interview, q.time_zone));
  }
  if (!reply_days.empty()) {
    out.median_reply_days = median(reply_days);
    out.fastest_reply_days = *std::min_element(reply_days.begin(), reply_days.end());
    out.slowest_reply_days = *std::max_element(reply_days.begin(), reply_days.end());
  }
  if (!interview_days.empty()) out.median_interview_days = median(interview_days);
}

nlohmann::json share(std::int64_t n, std::int64_t of) {
  if (of <= 0) return nullptr;
  return static_cast<double>(
             std::llround(1000.0 * static_cast<double>(n) / static_cast<double>(of))) /
         10.0;
}

nlohmann::json optional_json(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}
nlohmann::json optional_json(const std::optional<std::int64_t>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json tallies(const std::vector<Tally>& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const Tally& t : rows)
    out.push_back({{"key", t.key},
                   {"name", t.name},
                   {"applied", t.applied},
                   {"replied", t.replied},
                   {"reply_rate", share(t.replied, t.applied)},
                   {"interviewed", t.interviewed},
                   {"interview_rate", share(t.interviewed, t.applied)},
                   {"offers", t.offers},
                   {"offer_rate", share(t.offers, t.applied)},
                   {"quiet", t.quiet},
                   {"quiet_rate", share(t.quiet, t.applied)}});
  return out;
}

nlohmann::json endings(const std::vector<EndingRow>& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const EndingRow& e : rows)
    out.push_back({{"key", e.key},
                   {"rejected", e.rejected},
                   {"withdrawn", e.withdrawn},
                   {"ghosted", e.ghosted},
                   {"total", e.rejected + e.withdrawn + e.ghosted}});
  return out;
}

nlohmann::json counts(const std::vector<Count>& rows, const char* name) {
  nlohmann::json out = nlohmann::json::array();
  for (const Count& c : rows) out.push_back({{name, c.key}, {"count", c.count}});
  return out;
}

}  // namespace

const std::vector<std::string>& reply_statuses() { return kReplyStatuses; }

const std::vector<std::string>& funnel_statuses() { return kFunnel; }

std::vector<store::Migration> insight_migrations() {
  // 27: the listing of each application in the index by status, so that the
  // listings applied to are counted from the index alone.
  const std::string status_index =
      "DROP INDEX applications_status;"
      "CREATE INDEX applications_status ON applications (owner_id, status, listing_id);";
  return {{26, "what the timeline says of each application", facts_sql(store::Dialect::sqlite),
           facts_sql(store::Dialect::postgres)},
          {27, "listings in the index of applications by status", status_index, status_index}};
}

std::string reply_condition(const std::string& e) {
  return "((" + e + ".kind = 'status_change' AND " + e + ".to_status IN (" +
         quoted_list(kReplyStatuses) + ") AND (" + e + ".from_status IS NULL OR " + e +
         ".from_status <> " + e + ".to_status)) OR " + e +
         ".kind IN ('email_received', 'interview_scheduled', 'interview', 'assessment',"
         " 'offer', 'rejection'))";
}

std::string typed_interview_condition() {
  return "e.kind = 'interview' AND e.interview_id IS NULL AND NOT EXISTS (SELECT 1 FROM"
         " interviews i WHERE i.application_id = e.application_id AND i.outcome = 'done'"
         " AND i.starts_at > e.occurred_at - 43200000 AND i.starts_at < e.occurred_at + 43200000)";
}

Insights insights(store::Db& db, const InsightsQuery& q) {
  auto conn = db.acquire();
  return store::with_read(*conn, [&](store::Conn& c) { return read_insights(c, q); });
}

Insights read_insights(store::Conn& conn, const InsightsQuery& q) {
  Insights out;
  const Bounds b = bounds_of(q);
  std::vector<Sent> sent = read_sent(conn, q, b);
  std::unordered_map<std::int64_t, Sent*> by_id;
  by_id.reserve(sent.size());
  for (Sent& s : sent) by_id[s.id] = &s;
  out.applied = static_cast<std::int64_t>(sent.size());
  out.drafts = count_drafts(conn, q, b);

  for (const std::string& stage : kFunnel) {
    std::int64_t n = 0;
    for (const Sent& s : sent) n += (s.reached & stage_bit(stage)) != 0 ? 1 : 0;
    out.funnel.push_back({stage, n});
  }
  read_interviews(conn, q, by_id, out);
  mark_quiet(conn, q, by_id, out);
  replies(sent, q, out);
  tables(sent, out);
  read_endings(conn, q, by_id, out);
  months(sent, q, out);
  read_listings(conn, q, b, out);
  return out;
}

nlohmann::json to_json(const Insights& f) {
  nlohmann::json funnel = nlohmann::json::array();
  for (const Count& c : f.funnel)
    funnel.push_back({{"status", c.key}, {"count", c.count}, {"share", share(c.count, f.applied)}});
  nlohmann::json listings = nullptr;
  if (f.listings_noted)
    listings = {{"noted", *f.listings_noted},
                {"applied", *f.listings_applied},
                {"discarded", *f.listings_discarded},
                {"selectivity", share(*f.listings_applied, *f.listings_noted)}};
  return {
      {"applied", f.applied},
      {"drafts", f.drafts},
      {"open_now", f.open_now},
      {"small_sample", f.small_sample()},
      {"funnel", funnel},
      {"replies",
       {{"replied", f.replied},
        {"reply_rate", share(f.replied, f.applied)},
        {"waiting", f.waiting},
        {"ghosted", f.ghosted},
        {"median_days", optional_json(f.median_reply_days)},
        {"fastest_days", optional_json(f.fastest_reply_days)},
        {"slowest_days", optional_json(f.slowest_reply_days)}}},
      {"interviews",
       {{"interviewed", f.interviewed},
        {"interview_rate", share(f.interviewed, f.applied)},
        {"held", f.interviews_held},
        {"ahead", f.interviews_ahead},
        {"median_days_to_first", optional_json(f.median_interview_days)},
        {"by_kind", counts(f.interview_kinds, "kind")}}},
      {"by_channel", tallies(f.by_channel)},
      {"by_company", tallies(f.by_company)},
      {"by_contact", tallies(f.by_contact)},
      {"endings",
       {{"ended", f.ended},
        {"explained", f.ended_explained},
        {"by_stage", endings(f.ending_stages)},
        {"by_reason", endings(f.ending_reasons)}}},
      {"by_month", counts(f.by_month, "month")},
      {"quiet", {{"count", f.quiet_now}, {"by_company", counts(f.quiet_by_company, "company")}}},
      {"listings", listings}};
}

}  // namespace peto::domain
