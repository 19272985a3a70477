#include "domain/insights.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
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

// One application sent in the period, with what ever happened to it.
struct Sent {
  std::int64_t id = 0;
  std::string status, channel, company, company_id, contact_id, contact;
  std::int64_t applied_at = 0;
  std::set<std::string> reached;
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
// one; their parameters go on `params`.
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

std::vector<Sent> read_sent(store::Conn& db, const InsightsQuery& q, const Bounds& b) {
  std::string reached;
  for (const std::string& s : kFunnel)
    reached += ", MAX(CASE WHEN e.kind = 'status_change' AND e.to_status = '" + s +
               "' THEN 1 ELSE 0 END) AS r_" + s;
  store::Params params = {q.owner, q.owner};
  std::string cohort =
      " AND a.applied_at IS NOT NULL" + narrowed("a.applied_at", b, q.tag_id, params);
  auto rows = db.query(
      "SELECT a.id, a.status, a.channel, a.applied_at, l.company_id, c.name AS company,"
      " a.contact_id, ct.name AS contact, cc.name AS contact_company,"
      " ev.replied, ev.first_reply, ev.r_applied, ev.r_acknowledged, ev.r_screening,"
      " ev.r_interviewing, ev.r_assessment, ev.r_offer, ev.r_accepted"
      " FROM applications a JOIN listings l ON l.id = a.listing_id"
      " JOIN companies c ON c.id = l.company_id"
      " LEFT JOIN contacts ct ON ct.id = a.contact_id"
      " LEFT JOIN companies cc ON cc.id = ct.company_id"
      " LEFT JOIN (SELECT e.application_id,"
      " MAX(CASE WHEN " +
          reply_condition() +
          " THEN 1 ELSE 0 END) AS replied,"
          " MIN(CASE WHEN " +
          reply_condition() +
          " AND e.occurred_at >= x.applied_at THEN e.occurred_at END) AS first_reply" + reached +
          " FROM application_events e JOIN applications x ON x.id = e.application_id"
          " WHERE x.owner_id = ? GROUP BY e.application_id) ev ON ev.application_id = a.id"
          " WHERE a.owner_id = ?" +
          cohort + " ORDER BY a.applied_at, a.id",
      params);
  std::vector<Sent> out;
  out.reserve(rows.size());
  for (const auto& r : rows) {
    Sent s;
    s.id = r.int_at(0);
    s.status = r.text(1);
    s.channel = r.text(2);
    s.applied_at = r.int_at(3);
    s.company_id = r.text(4);
    s.company = r.text(5);
    if (!r.is_null(6)) {
      s.contact_id = r.text(6);
      s.contact = r.text(7);
      if (!r.is_null(8)) s.contact += " · " + r.text(8);
    }
    s.replied = !r.is_null(9) && r.int_at(9) == 1;
    if (!r.is_null(10)) s.first_reply = r.int_at(10);
    s.reached.insert(s.status);
    s.reached.insert("applied");  // applied_at is set only by reaching a sent status
    for (std::size_t i = 0; i < kFunnel.size(); ++i)
      if (!r.is_null(11 + i) && r.int_at(11 + i) == 1) s.reached.insert(kFunnel[i]);
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
  store::Params params = {q.owner};
  const std::string period = narrowed("l.created_at", b, std::nullopt, params);
  auto rows = db.query("SELECT COUNT(*) AS noted, COALESCE(SUM(CASE WHEN " + listing_applied("l") +
                           " THEN 1 ELSE 0 END), 0) AS applied,"
                           " COALESCE(SUM(CASE WHEN l.state = 'discarded' THEN 1 ELSE 0 END), 0)"
                           " AS discarded FROM listings l WHERE l.owner_id = ?" +
                           period,
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
  return db.query(sql, params)[0].int_at("n");
}

// Whole days between two moments, as the person's calendar counts them.
std::int64_t days_between(std::int64_t from, std::int64_t to, const std::string& zone) {
  auto a = parse_date_utc_ms(local_date(from, zone));
  auto b = parse_date_utc_ms(local_date(to, zone));
  if (!a || !b) return (to - from) / kDayMs;
  return (*b - *a) / kDayMs;
}

double median(std::vector<std::int64_t> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1
             ? static_cast<double>(values[n / 2])
             : (static_cast<double>(values[n / 2 - 1]) + static_cast<double>(values[n / 2])) / 2.0;
}

bool interviewed(const Sent& s) {
  return s.held > 0 || s.reached.count("interviewing") != 0 || s.reached.count("assessment") != 0;
}

void add_to(Tally& row, const Sent& s) {
  ++row.applied;
  if (s.replied) ++row.replied;
  if (interviewed(s)) ++row.interviewed;
  if (s.reached.count("offer") != 0 || s.reached.count("accepted") != 0) ++row.offers;
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
    for (const Sent& s : sent) n += s.reached.count(stage) != 0 ? 1 : 0;
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
