// Report: what a person sent in one period, how regularly, and what came
// back — the document an employment office asks for, and the shape of a
// month that felt like nothing.
//
//   auto period = period_from({.kind = "month", .on = "2026-11"}, today);
//   Report r = report(db, owner, std::get<Period>(period), "Europe/Berlin", now);
//
// Two questions are kept apart on purpose. *Sent in the period* (the cadence
// and the evidence list) reads applications by the local day they were sent.
// *Happened in the period* (replies, interviews, offers, rejections) reads
// the timeline by when each thing happened, so a reply in December to a
// November application is December's. A reply is an application's *first*
// reply, counted once. Weeks run Monday to Sunday, as the calendar's do.
// Nothing is stored: a report is computed from the record when asked for.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <variant>
#include <vector>

#include "domain/field_errors.h"
#include "store/db.h"

namespace peto::domain {

// A custom range is at most this many days (two years of weekly bars).
inline constexpr int kReportMaxDays = 731;

// What an address asks for: ?period=month&on=2026-11, quarter&on=2026-Q4,
// weeks&weeks=8, custom&from=…&to=…; from/to alone mean custom; nothing at
// all, the month in progress.
struct PeriodAsk {
  std::string kind = "", on = "", weeks = "", from = "", to = "";
};

// A run of local days, both ends included.
struct Period {
  std::string kind;  // month | quarter | weeks | custom
  std::string from, to;
  int days() const;
  // The query string that asks for it again ("period=month&on=2026-11").
  std::string query() const;
};

// The period asked for, or what is wrong with it, by field (on, weeks, from,
// to): an impossible date, a range backwards or longer than kReportMaxDays.
// `today` is the person's local day.
std::variant<Period, FieldErrors> period_from(const PeriodAsk& ask, const std::string& today);

struct ReportWeek {
  std::string from, to;  // Monday and Sunday
  std::int64_t sent = 0;
  bool partial = false;      // reaches outside the period: fewer days counted
  bool in_progress = false;  // holds today
};

// One application sent in the period, as the report lists it.
struct Evidence {
  std::int64_t application_id = 0;
  std::string sent_on;  // local day
  std::string company, role, channel, status, url;
  std::string last_activity_on;  // local day of its newest timeline entry
};

struct Happened {
  std::int64_t replies = 0, interviews = 0, offers = 0, rejections = 0;
};

struct Report {
  Period period;
  std::vector<ReportWeek> weeks;
  std::int64_t sent = 0;
  double per_week = 0;
  int longest_gap_days = 0;  // days in a row with nothing sent, up to today
  int current_run = 0;       // weeks in a row with an application, ending with the last
  int longest_run = 0;
  std::int64_t through_service = 0;  // sent through an employment service
  std::int64_t drafts = 0;           // started in the period, never sent: left out
  Happened happened;
  std::vector<Evidence> evidence;  // oldest first
};

// The report of `owner` for `period` in `time_zone`; one read transaction.
Report report(store::Db& db, std::int64_t owner, const Period& period, const std::string& time_zone,
              std::int64_t now);
Report read_report(store::Conn& conn, std::int64_t owner, const Period& period,
                   const std::string& time_zone, std::int64_t now);

// What happened in [from, to) (UTC ms) across all of the person's
// applications: first replies, interviews held, first offers, rejections.
Happened happened_between(store::Conn& conn, std::int64_t owner, std::int64_t from,
                          std::int64_t to);

// The dashboard's line: this week (Monday to Sunday in `time_zone`).
struct ThisWeek {
  std::string from;  // its Monday
  std::int64_t sent = 0;
  Happened happened;
};
ThisWeek this_week(store::Conn& conn, std::int64_t owner, std::int64_t now,
                   const std::string& time_zone);

// {period: {kind, from, to, days}, sent, per_week, longest_gap_days,
//  current_run_weeks, longest_run_weeks, weeks: […], happened: {…},
//  drafts_left_out, through_employment_service, evidence: […]}.
nlohmann::json to_json(const Report& r);

// The Monday of the week `day` ("YYYY-MM-DD") falls in.
std::string monday_of(const std::string& day);

}  // namespace peto::domain
