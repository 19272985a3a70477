// Insights: what a person's own timeline says about their job search.
//
// Everything is read from what *ever happened* (application_events, the
// interview diary), never only from the current status: an application that
// reached an interview and was then rejected still counts as having reached
// an interview. The figures are plain counts, shares and medians — a search
// produces dozens of applications, not thousands, and below
// kMeaningfulSample applications a share says more about the sample than
// about the search, which the page says out loud.
//
//   InsightsQuery q{.owner = id, .now = clock.now_ms(), .time_zone = "Europe/Lisbon",
//                   .from = "2026-01-01", .to = "2026-06-30"};
//   Insights figures = insights(db, q);        // one read transaction
//   nlohmann::json j = to_json(figures);       // the API's and the page's shape
//
// The period picks the applications *sent* in it (applied_at on one of its
// local days, both ends included), then follows each through everything that
// happened to it since. A tag narrows them to the applications carrying it.
// The number of statements is the same whatever the number of applications.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "store/db.h"
#include "store/migrate.h"

namespace peto::domain {

// Below this many applications sent, a share is shown with a caution.
inline constexpr std::int64_t kMeaningfulSample = 5;

struct InsightsQuery {
  std::int64_t owner = 0;
  std::int64_t now = 0;           // UTC ms
  std::string time_zone = "UTC";  // the person's: days and months are theirs
  int quiet_after_days = 21;
  std::string from, to;  // local days "YYYY-MM-DD", both included; "" = open
  std::optional<std::int64_t> tag_id;
};

// One line of a table by channel, company or contact: how many of the
// applications sent through it got each thing.
struct Tally {
  std::string key;   // the channel, or the record's id as text; "" for none recorded
  std::string name;  // the company's or the contact's name (channels are translated later)
  std::int64_t applied = 0, replied = 0, interviewed = 0, offers = 0, quiet = 0;
};

// An application that ended: rejected, withdrawn or ghosted.
struct EndingRow {
  std::string key;  // the stage it had reached, or the reason; "" = not recorded
  std::int64_t rejected = 0, withdrawn = 0, ghosted = 0;
};

struct Count {
  std::string key;  // a status, a month "YYYY-MM", an interview kind, a company's name
  std::int64_t count = 0;
};

struct Insights {
  std::int64_t applied = 0;   // sent in the period (the denominator of every share)
  std::int64_t drafts = 0;    // started in the period and never sent
  std::int64_t open_now = 0;  // of those sent, still open
  std::vector<Count> funnel;  // applied, acknowledged … accepted: ever reached

  std::int64_t replied = 0;  // any reply, a rejection included
  std::int64_t waiting = 0;  // open, sent, no reply yet
  std::int64_t ghosted = 0;
  std::optional<double> median_reply_days;
  std::optional<std::int64_t> fastest_reply_days, slowest_reply_days;

  std::int64_t interviewed = 0;      // applications that reached an interview
  std::int64_t interviews_held = 0;  // interviews that took place
  std::int64_t interviews_ahead = 0;
  std::optional<double> median_interview_days;  // from sending to the first one held
  std::vector<Count> interview_kinds;           // held, by kind ("timeline": typed entries)

  std::vector<Tally> by_channel, by_company, by_contact;  // most applications first

  std::int64_t ended = 0, ended_explained = 0;  // explained: with a reason given
  std::vector<EndingRow> ending_stages, ending_reasons;

  std::vector<Count> by_month;  // every month from the first sent to the last, noughts kept

  std::int64_t quiet_now = 0;
  std::vector<Count> quiet_by_company;

  // Listings noted in the period and what became of them; absent with a tag
  // (listings carry none).
  std::optional<std::int64_t> listings_noted, listings_applied, listings_discarded;

  bool small_sample() const { return applied < kMeaningfulSample; }
};

// The statuses an application counts as a reply from the company.
const std::vector<std::string>& reply_statuses();

// SQL condition on a timeline entry aliased `e` that is a reply: an
// arrival at a reply status (an X→X entry only gives a reason afterwards), or
// an entry of a kind only a reply writes (an email received, an interview
// booked, a rejection, an offer).
std::string reply_condition(const std::string& e = "e");

// SQL condition on a timeline entry aliased `e` that is an interview typed
// onto the timeline and not also in the diary (a held diary interview of the
// same application within 12 hours is the same one).
std::string typed_interview_condition();

// What the timeline says of each application, kept on its row so that the
// pages read applications and not every entry: `reached` (bit i set when a
// status change ever arrived at funnel_statuses()[i]), the moments of the
// first reply, the first offer and the first rejection, and of the latest
// entry (`last_entry_at`, what "quiet" is measured from; NULL = none yet).
// Triggers on application_events keep them true whoever writes an entry (the
// app, an import, a restore from the trash or a backup); the migration fills
// them in for the entries already there.
std::vector<store::Migration> insight_migrations();

// applied, acknowledged, screening, interviewing, assessment, offer, accepted:
// the funnel's stages, bit i of applications.reached.
const std::vector<std::string>& funnel_statuses();

// The figures of `q`, in one read transaction; read_insights on a
// connection the caller holds.
Insights insights(store::Db& db, const InsightsQuery& q);
Insights read_insights(store::Conn& conn, const InsightsQuery& q);

// {applied, funnel: [{status, count, share}], replies: {...}, interviews: {...},
//  by_channel…, endings, by_month, quiet, listings, small_sample}; shares are
// percentages with one decimal, null when nothing was sent.
nlohmann::json to_json(const Insights& figures);

}  // namespace peto::domain
