// Insights and the period report on both backends, from a fixture search
// whose answers are worked out by hand below (each figure says which
// applications make it), written through the domain code at chosen moments.
#include "domain/insights.h"

#include <gtest/gtest.h>

#include "app/app.h"
#include "core/timezone.h"
#include "domain/applications.h"
#include "domain/report.h"
#include "store/migrate.h"
#include "tests/support/domain_fixture.h"

namespace peto::domain {
namespace {

using nlohmann::json;

Millis at(const std::string& rfc3339) { return *parse_time(rfc3339); }

// The search of ana (UTC), as of 2027-01-15 08:00 UTC:
//   A1 Acme Backend   job_board  sent 11-02; acknowledged 11-04, screening 11-06,
//                     video interview held 11-10 (→ interviewing), rejected 11-20
//                     (not a match)
//   A2 Acme Frontend  job_board  sent 11-03; nothing since: waiting, quiet
//   A3 Beta Data      referral by Carla (of Gamma)  sent 11-05; offer 11-25, accepted 12-01
//   A4 Beta Ops       recruiter Dan  sent 11-16; ghosted 12-20
//   A5 Delta QA       no channel  sent 12-02; withdrawn 12-05 (my choice)
//   A6 Delta Draft    a draft started 11-10
//   A7 Delta Typed    no channel  sent 12-10; an interview typed onto the timeline
//                     12-15 10:00, one booked for 2027-01-20 (so not quiet)
//   a listing noted and discarded
// and ben's application with an offer, which must never count for ana.
class InsightsTest : public peto::testing::TwoOwnersTest {
 protected:
  void SetUp() override {
    TwoOwnersTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    apps_ = std::make_unique<Applications>(*records_);
  }

  std::int64_t create(std::int64_t owner, const std::string& kind_name, json values) {
    Input in;
    in.values = std::move(values);
    in.from_form = false;
    auto w = records().create(owner, kind(kind_name), in);
    EXPECT_TRUE(std::holds_alternative<Record>(w)) << kind_name;
    return std::holds_alternative<Record>(w) ? std::get<Record>(w)["id"].get<std::int64_t>() : 0;
  }
  std::int64_t company(std::int64_t owner, const std::string& name) {
    return create(owner, "companies", {{"name", name}});
  }
  std::int64_t sent(std::int64_t owner, std::int64_t company_id, const std::string& role,
                    const std::string& when, json more = json::object(),
                    const std::string& status = "applied") {
    clock_.set(at(when));
    std::int64_t listing = create(owner, "listings", {{"role", role}, {"company_id", company_id}});
    auto w = apps_->apply(owner, listing, status);
    EXPECT_TRUE(std::holds_alternative<Record>(w));
    std::int64_t id = std::get<Record>(w)["id"].get<std::int64_t>();
    if (!more.empty()) {
      Input in;
      in.values = more;
      in.from_form = false;
      in.partial = true;
      EXPECT_TRUE(
          std::holds_alternative<Record>(records().update(owner, kind("applications"), id, in)));
    }
    return id;
  }
  void move(std::int64_t owner, std::int64_t id, const std::string& to, const std::string& when,
            const std::string& reason = "") {
    clock_.set(at(when));
    StatusChange change;
    change.to = to;
    change.end_reason = reason;
    EXPECT_TRUE(std::holds_alternative<Record>(apps_->change_status(owner, id, change))) << to;
  }

  void build_search() {
    const std::int64_t acme = company(owner_, "Acme");
    const std::int64_t beta = company(owner_, "Beta");
    const std::int64_t delta = company(owner_, "Delta");
    const std::int64_t gamma = company(owner_, "Gamma");
    const std::int64_t carla =
        create(owner_, "contacts", {{"name", "Carla"}, {"company_id", gamma}});
    const std::int64_t dan = create(owner_, "contacts", {{"name", "Dan"}});

    a1_ = sent(owner_, acme, "Backend", "2026-11-02T09:00:00Z", {{"channel", "job_board"}});
    move(owner_, a1_, "acknowledged", "2026-11-04T09:00:00Z");
    move(owner_, a1_, "screening", "2026-11-06T09:00:00Z");
    clock_.set(at("2026-11-07T09:00:00Z"));
    std::int64_t video = create(
        owner_, "interviews",
        {{"application_id", a1_}, {"kind", "video"}, {"starts_at", at("2026-11-10T10:00:00Z")}});
    clock_.set(at("2026-11-10T11:00:00Z"));
    EXPECT_TRUE(std::holds_alternative<Record>(apps_->set_outcome(owner_, video, "done")));
    move(owner_, a1_, "rejected", "2026-11-20T09:00:00Z", "not_a_match");

    a2_ = sent(owner_, acme, "Frontend", "2026-11-03T09:00:00Z", {{"channel", "job_board"}});
    a3_ = sent(owner_, beta, "Data", "2026-11-05T09:00:00Z",
               {{"channel", "referral"}, {"contact_id", carla}});
    move(owner_, a3_, "offer", "2026-11-25T09:00:00Z");
    move(owner_, a3_, "accepted", "2026-12-01T09:00:00Z");
    a4_ = sent(owner_, beta, "Ops", "2026-11-16T09:00:00Z",
               {{"channel", "recruiter"}, {"contact_id", dan}});
    move(owner_, a4_, "ghosted", "2026-12-20T09:00:00Z");
    a5_ = sent(owner_, delta, "QA", "2026-12-02T09:00:00Z");
    move(owner_, a5_, "withdrawn", "2026-12-05T09:00:00Z", "my_choice");
    sent(owner_, delta, "Draft", "2026-11-10T09:00:00Z", {}, "draft");
    a7_ = sent(owner_, delta, "Typed", "2026-12-10T09:00:00Z");
    clock_.set(at("2026-12-15T10:00:00Z"));
    NewEvent typed;
    typed.kind = "interview";
    typed.summary = "Interview with the team lead";
    EXPECT_TRUE(std::holds_alternative<std::int64_t>(apps_->add(owner_, a7_, typed)));
    clock_.set(at("2026-12-15T12:00:00Z"));
    create(owner_, "interviews",
           {{"application_id", a7_}, {"kind", "phone"}, {"starts_at", at("2027-01-20T09:00:00Z")}});
    create(owner_, "listings",
           {{"role", "Not for me"}, {"company_id", delta}, {"state", "discarded"}});

    const std::int64_t bens = company(other_, "Acme");
    std::int64_t theirs = sent(other_, bens, "Backend", "2026-11-05T09:00:00Z");
    move(other_, theirs, "offer", "2026-11-06T09:00:00Z");
    clock_.set(at("2027-01-15T08:00:00Z"));
  }

  InsightsQuery query(const std::string& from = "", const std::string& to = "") {
    InsightsQuery q;
    q.owner = owner_;
    q.now = clock_.now_ms();
    q.from = from;
    q.to = to;
    return q;
  }

  Period month(const std::string& on) {
    PeriodAsk ask;
    ask.kind = "month";
    ask.on = on;
    return std::get<Period>(period_from(ask, "2027-01-15"));
  }

  std::unique_ptr<Applications> apps_;
  std::int64_t a1_ = 0, a2_ = 0, a3_ = 0, a4_ = 0, a5_ = 0, a7_ = 0;
};

struct Facts {
  std::int64_t reached = 0;
  std::optional<std::int64_t> first_reply_at, first_offer_at, first_rejection_at, last_entry_at;
};

Facts fact_row(store::Db& db, std::int64_t id) {
  auto rows = db.query(
      "SELECT reached, first_reply_at, first_offer_at, first_rejection_at, last_entry_at"
      " FROM applications WHERE id = ?",
      {id});
  Facts f;
  if (rows.empty()) return f;
  auto moment = [&](int i) {
    return rows[0].is_null(i) ? std::nullopt : std::optional<std::int64_t>(rows[0].int_at(i));
  };
  f.reached = rows[0].int_at(0);
  f.first_reply_at = moment(1);
  f.first_offer_at = moment(2);
  f.first_rejection_at = moment(3);
  f.last_entry_at = moment(4);
  return f;
}

std::vector<std::pair<std::string, std::int64_t>> pairs(const std::vector<Count>& counts) {
  std::vector<std::pair<std::string, std::int64_t>> out;
  for (const Count& c : counts) out.emplace_back(c.key, c.count);
  return out;
}

TEST_P(InsightsTest, EveryFigureIsWhatTheTimelineSays) {
  build_search();
  Insights f = insights(db(), query());
  EXPECT_EQ(f.applied, 6) << "A1–A5 and A7";
  EXPECT_EQ(f.drafts, 1) << "A6";
  EXPECT_EQ(f.open_now, 2) << "A2 and A7";
  EXPECT_FALSE(f.small_sample());
  using P = std::vector<std::pair<std::string, std::int64_t>>;
  EXPECT_EQ(pairs(f.funnel), (P{{"applied", 6},
                                {"acknowledged", 1},
                                {"screening", 1},
                                {"interviewing", 1},
                                {"assessment", 0},
                                {"offer", 1},
                                {"accepted", 1}}))
      << "A1 reached interviewing although it ended rejected";

  EXPECT_EQ(f.replied, 3) << "A1 (acknowledged), A3 (offer), A7 (the typed interview)";
  EXPECT_EQ(f.waiting, 1) << "A2: open, no reply";
  EXPECT_EQ(f.ghosted, 1) << "A4";
  ASSERT_TRUE(f.median_reply_days && f.fastest_reply_days && f.slowest_reply_days);
  EXPECT_DOUBLE_EQ(*f.median_reply_days, 5) << "2 (A1), 5 (A7), 20 (A3)";
  EXPECT_EQ(*f.fastest_reply_days, 2);
  EXPECT_EQ(*f.slowest_reply_days, 20);

  EXPECT_EQ(f.interviewed, 2) << "A1 (held in the diary) and A7 (typed)";
  EXPECT_EQ(f.interviews_held, 2);
  EXPECT_EQ(f.interviews_ahead, 1) << "A7's, on 2027-01-20";
  ASSERT_TRUE(f.median_interview_days);
  EXPECT_DOUBLE_EQ(*f.median_interview_days, 6.5) << "8 days (A1) and 5 (A7)";
  EXPECT_EQ(pairs(f.interview_kinds), (P{{"timeline", 1}, {"video", 1}}));

  ASSERT_EQ(f.by_channel.size(), 4u);
  EXPECT_EQ(f.by_channel[0].key, "job_board");
  EXPECT_EQ(f.by_channel[0].applied, 2);
  EXPECT_EQ(f.by_channel[0].replied, 1);
  EXPECT_EQ(f.by_channel[0].interviewed, 1);
  EXPECT_EQ(f.by_channel[0].offers, 0);
  EXPECT_EQ(f.by_channel[0].quiet, 1) << "A2";
  EXPECT_EQ(f.by_channel[1].key, "recruiter") << "one each: in the order of their names";
  EXPECT_EQ(f.by_channel[2].key, "referral");
  EXPECT_EQ(f.by_channel[2].offers, 1);
  EXPECT_EQ(f.by_channel[3].key, "") << "none recorded goes last";
  EXPECT_EQ(f.by_channel[3].applied, 2) << "A5 and A7";
  EXPECT_EQ(f.by_channel[3].interviewed, 1);

  ASSERT_EQ(f.by_company.size(), 3u);
  EXPECT_EQ(f.by_company[0].name, "Acme");
  EXPECT_EQ(f.by_company[1].name, "Beta");
  EXPECT_EQ(f.by_company[1].offers, 1);
  EXPECT_EQ(f.by_company[2].name, "Delta");
  ASSERT_EQ(f.by_contact.size(), 2u);
  EXPECT_EQ(f.by_contact[0].name, "Carla · Gamma");
  EXPECT_EQ(f.by_contact[0].offers, 1);
  EXPECT_EQ(f.by_contact[1].name, "Dan");
  EXPECT_EQ(f.by_contact[1].replied, 0);

  EXPECT_EQ(f.ended, 3) << "A1 rejected, A4 ghosted, A5 withdrawn";
  EXPECT_EQ(f.ended_explained, 2);
  ASSERT_EQ(f.ending_stages.size(), 2u);
  EXPECT_EQ(f.ending_stages[0].key, "applied");
  EXPECT_EQ(f.ending_stages[0].ghosted, 1);
  EXPECT_EQ(f.ending_stages[0].withdrawn, 1);
  EXPECT_EQ(f.ending_stages[1].key, "interviewing");
  EXPECT_EQ(f.ending_stages[1].rejected, 1);
  ASSERT_EQ(f.ending_reasons.size(), 3u);
  EXPECT_EQ(f.ending_reasons[0].key, "my_choice");
  EXPECT_EQ(f.ending_reasons[1].key, "not_a_match");
  EXPECT_EQ(f.ending_reasons[2].key, "") << "no reason given, last";
  EXPECT_EQ(f.ending_reasons[2].ghosted, 1);

  EXPECT_EQ(pairs(f.by_month), (P{{"2026-11", 4}, {"2026-12", 2}, {"2027-01", 0}}))
      << "a month with nothing sent is kept";
  EXPECT_EQ(f.quiet_now, 1) << "A2; A7 has an interview ahead";
  EXPECT_EQ(pairs(f.quiet_by_company), (P{{"Acme", 1}}));
  ASSERT_TRUE(f.listings_noted);
  EXPECT_EQ(*f.listings_noted, 8);
  EXPECT_EQ(*f.listings_applied, 6) << "A6's listing has only a draft";
  EXPECT_EQ(*f.listings_discarded, 1);

  json j = to_json(f);
  EXPECT_EQ(j["replies"]["reply_rate"], 50.0);
  EXPECT_EQ(j["funnel"][1]["share"], 16.7) << "1 of 6";
  EXPECT_EQ(j["listings"]["selectivity"], 75.0);
}

TEST_P(InsightsTest, APeriodATagAndASmallSample) {
  build_search();
  Insights december = insights(db(), query("2026-12-01", "2026-12-31"));
  EXPECT_EQ(december.applied, 2) << "A5 and A7";
  EXPECT_TRUE(december.small_sample());
  EXPECT_TRUE(to_json(december)["small_sample"].get<bool>());
  EXPECT_EQ(december.drafts, 0) << "A6 was started in November";
  EXPECT_EQ(december.replied, 1) << "A7";
  EXPECT_EQ(*december.listings_noted, 3) << "A5's, A7's and the discarded one";

  const std::int64_t tag = create(owner_, "tags", {{"name", "remote"}});
  ASSERT_TRUE(std::holds_alternative<bool>(apps_->set_tags(owner_, a1_, {tag})));
  ASSERT_TRUE(std::holds_alternative<bool>(apps_->set_tags(owner_, a3_, {tag})));
  InsightsQuery q = query();
  q.tag_id = tag;
  Insights tagged = insights(db(), q);
  EXPECT_EQ(tagged.applied, 2);
  EXPECT_EQ(tagged.replied, 2);
  EXPECT_FALSE(tagged.listings_noted) << "listings carry no tags";
  EXPECT_TRUE(to_json(tagged)["listings"].is_null());

  Insights nothing = insights(db(), query("2025-01-01", "2025-01-31"));
  EXPECT_EQ(nothing.applied, 0);
  EXPECT_TRUE(nothing.by_month.empty());
  EXPECT_TRUE(to_json(nothing)["funnel"][0]["share"].is_null()) << "no share of nothing";
}

TEST_P(InsightsTest, TheReportOfAMonth) {
  build_search();
  Report r = report(db(), owner_, month("2026-11"), "UTC", clock_.now_ms());
  ASSERT_EQ(r.evidence.size(), 4u) << "A1–A4; the draft is left out";
  EXPECT_EQ(r.sent, 4);
  EXPECT_EQ(r.drafts, 1);
  EXPECT_EQ(r.evidence[0].company, "Acme");
  EXPECT_EQ(r.evidence[0].role, "Backend");
  EXPECT_EQ(r.evidence[0].sent_on, "2026-11-02");
  EXPECT_EQ(r.evidence[0].status, "rejected");
  EXPECT_EQ(r.evidence[0].channel, "job_board");
  EXPECT_EQ(r.evidence[0].last_activity_on, "2026-11-20");
  EXPECT_EQ(r.evidence[3].role, "Ops");

  std::vector<std::int64_t> bars;
  for (const ReportWeek& w : r.weeks) bars.push_back(w.sent);
  EXPECT_EQ(bars, (std::vector<std::int64_t>{0, 3, 0, 1, 0, 0}))
      << "Mondays 10-26 (holds only 11-01) … 11-30 (holds only 11-30)";
  EXPECT_TRUE(r.weeks.front().partial);
  EXPECT_FALSE(r.weeks[1].partial);
  EXPECT_TRUE(r.weeks.back().partial);
  EXPECT_EQ(r.weeks.front().from, "2026-10-26");
  EXPECT_EQ(r.longest_gap_days, 14) << "11-17 to 11-30";
  EXPECT_NEAR(r.per_week, 4.0 * 7 / 30, 1e-9);
  EXPECT_EQ(r.longest_run, 1);
  EXPECT_EQ(r.current_run, 0);
  EXPECT_EQ(r.happened.replies, 2) << "A1's first on 11-04 and A3's on 11-25";
  EXPECT_EQ(r.happened.interviews, 1) << "A1's, held 11-10";
  EXPECT_EQ(r.happened.offers, 1);
  EXPECT_EQ(r.happened.rejections, 1);

  Report dec = report(db(), owner_, month("2026-12"), "UTC", clock_.now_ms());
  EXPECT_EQ(dec.sent, 2);
  EXPECT_EQ(dec.happened.replies, 1) << "A7's first; A3's acceptance is not a first reply";
  EXPECT_EQ(dec.happened.interviews, 1) << "the typed one";
  EXPECT_EQ(dec.happened.offers, 0);
  EXPECT_EQ(dec.happened.rejections, 0);
  json j = to_json(dec);
  EXPECT_EQ(j["period"]["days"], 31);
  EXPECT_EQ(j["evidence"].size(), 2u);
}

TEST_P(InsightsTest, AnEmptyPeriodAndAnEmptyAccount) {
  build_search();
  Report empty = report(db(), owner_, month("2025-02"), "UTC", clock_.now_ms());
  EXPECT_EQ(empty.sent, 0);
  EXPECT_EQ(empty.longest_gap_days, 28);
  EXPECT_EQ(empty.weeks.size(), 5u) << "February 2025 runs from a Saturday to a Friday";
  EXPECT_TRUE(empty.evidence.empty());

  const std::int64_t cy = account("cy@example.com");
  Report theirs = report(db(), cy, month("2026-11"), "UTC", clock_.now_ms());
  EXPECT_EQ(theirs.sent, 0) << "another account's applications never count";
  EXPECT_EQ(theirs.happened.replies + theirs.happened.interviews + theirs.happened.offers +
                theirs.happened.rejections,
            0);
  InsightsQuery q = query();
  q.owner = cy;
  Insights none = insights(db(), q);
  EXPECT_EQ(none.applied, 0);
  EXPECT_EQ(*none.listings_noted, 0);
  EXPECT_EQ(none.interviews_ahead, 0);

  InsightsQuery bens = query();
  bens.owner = other_;
  EXPECT_EQ(insights(db(), bens).applied, 1) << "ben sees his own";
}

TEST_P(InsightsTest, ADayIsTheDayWhereThePersonLives) {
  peto::testing::Factory make(db(), clock_);
  const std::int64_t kiri = make.account("kiri@example.com", {.time_zone = "Pacific/Auckland"});
  const std::int64_t acme = company(kiri, "Acme");
  // 23:30 on 30 November in Auckland (UTC+13 in summer), and an hour later.
  const std::int64_t late = sent(kiri, acme, "Late", "2026-11-30T10:30:00Z");
  sent(kiri, acme, "Next day", "2026-11-30T11:30:00Z");
  clock_.set(at("2027-01-15T08:00:00Z"));

  Report nov = report(db(), kiri, month("2026-11"), "Pacific/Auckland", clock_.now_ms());
  ASSERT_EQ(nov.evidence.size(), 1u);
  EXPECT_EQ(nov.evidence[0].application_id, late);
  EXPECT_EQ(nov.evidence[0].sent_on, "2026-11-30");
  Report utc = report(db(), kiri, month("2026-11"), "UTC", clock_.now_ms());
  EXPECT_EQ(utc.sent, 2) << "both are 30 November in UTC";

  InsightsQuery q;
  q.owner = kiri;
  q.now = clock_.now_ms();
  q.time_zone = "Pacific/Auckland";
  using P = std::vector<std::pair<std::string, std::int64_t>>;
  EXPECT_EQ(pairs(insights(db(), q).by_month), (P{{"2026-11", 1}, {"2026-12", 1}, {"2027-01", 0}}));
  q.to = "2026-11-30";
  EXPECT_EQ(insights(db(), q).applied, 1);
}

TEST_P(InsightsTest, TheStatementsAreTheSameForTenApplicationsAsForFifty) {
  const std::int64_t acme = company(owner_, "Acme");
  auto statements = [&] {
    clock_.set(at("2027-01-15T08:00:00Z"));
    const auto before = db().statements_run();
    insights(db(), query());
    report(db(), owner_, month("2026-11"), "UTC", clock_.now_ms());
    return db().statements_run() - before;
  };
  auto add = [&](int n) {
    for (int i = 0; i < n; ++i) {
      std::int64_t id = sent(owner_, acme, "Role " + std::to_string(i),
                             "2026-11-0" + std::to_string(1 + i % 9) + "T09:00:00Z");
      if (i % 2 == 0)
        move(owner_, id, "rejected", "2026-11-2" + std::to_string(i % 9) + "T09:00:00Z");
    }
  };
  add(10);
  const auto ten = statements();
  add(40);
  EXPECT_EQ(statements(), ten) << "no statement per application";
}

// The facts kept on each application's row (insight_migrations) are what its
// entries say, whoever wrote, changed or removed an entry.
TEST_P(InsightsTest, WhatTheTimelineSaysIsKeptOnEachApplication) {
  build_search();
  auto facts = [&](std::int64_t id) { return fact_row(db(), id); };
  constexpr std::int64_t applied = 1, acknowledged = 2, screening = 4, interviewing = 8, offer = 32,
                         accepted = 64;
  Facts a1 = facts(a1_);
  EXPECT_EQ(a1.reached, applied | acknowledged | screening | interviewing);
  EXPECT_EQ(a1.first_reply_at, at("2026-11-04T09:00:00Z"));
  EXPECT_EQ(a1.first_offer_at, std::nullopt);
  EXPECT_EQ(a1.first_rejection_at, at("2026-11-20T09:00:00Z"));
  EXPECT_EQ(a1.last_entry_at, at("2026-11-20T09:00:00Z"));
  Facts a3 = facts(a3_);
  EXPECT_EQ(a3.reached, applied | offer | accepted);
  EXPECT_EQ(a3.first_offer_at, at("2026-11-25T09:00:00Z"));
  EXPECT_EQ(facts(a7_).first_reply_at, at("2026-12-15T10:00:00Z")) << "the typed interview";
  EXPECT_EQ(facts(a2_).first_reply_at, std::nullopt);

  db().query(
      "DELETE FROM application_events WHERE application_id = ? AND to_status = 'acknowledged'",
      {a1_});
  a1 = facts(a1_);
  EXPECT_EQ(a1.reached, applied | screening | interviewing) << "an entry taken away";
  EXPECT_EQ(a1.first_reply_at, at("2026-11-06T09:00:00Z")) << "the screening is now the first";
  db().query(
      "UPDATE application_events SET occurred_at = ? WHERE application_id = ?"
      " AND to_status = 'rejected'",
      {at("2026-11-21T09:00:00Z"), a1_});
  a1 = facts(a1_);
  EXPECT_EQ(a1.first_rejection_at, at("2026-11-21T09:00:00Z")) << "an entry moved";
  EXPECT_EQ(a1.last_entry_at, at("2026-11-21T09:00:00Z"));
  db().query(
      "UPDATE application_events SET application_id = ? WHERE application_id = ?"
      " AND to_status = 'offer'",
      {a2_, a3_});
  EXPECT_EQ(facts(a3_).first_offer_at, std::nullopt) << "an entry moved to another application";
  EXPECT_EQ(facts(a2_).first_offer_at, at("2026-11-25T09:00:00Z"));
}

PETO_BOTH_BACKENDS(InsightsTest);

// A database made before the facts were kept: migrating fills them in from
// the entries already there.
class FactsMigrationTest : public peto::testing::BackendTest {};

TEST_P(FactsMigrationTest, TheEntriesAlreadyThereAreRead) {
  std::vector<store::Migration> before = app::migrations();
  std::erase_if(before, [](const store::Migration& m) { return m.version >= 26; });
  ASSERT_TRUE(store::Migrator(db(), before).apply());
  set_password_cost(PasswordCost::test);
  FakeClock clock;
  const std::int64_t owner = peto::testing::Factory(db(), clock).account("ana@example.com");
  Records records(db(), clock);
  Applications apps(records);
  Input in;
  in.values = {{"name", "Acme"}};
  in.from_form = false;
  auto company = std::get<Record>(records.create(owner, kind("companies"), in));
  in.values = {{"role", "Backend"}, {"company_id", company["id"]}};
  auto listing = std::get<Record>(records.create(owner, kind("listings"), in));
  clock.set(at("2026-11-02T09:00:00Z"));
  auto w = apps.apply(owner, listing["id"].get<std::int64_t>(), "applied");
  ASSERT_TRUE(std::holds_alternative<Record>(w));
  const std::int64_t id = std::get<Record>(w)["id"].get<std::int64_t>();
  for (const auto& [status, when] :
       {std::pair("screening", "2026-11-05T09:00:00Z"), {"rejected", "2026-11-09T09:00:00Z"}}) {
    clock.set(at(when));
    StatusChange change;
    change.to = status;
    ASSERT_TRUE(std::holds_alternative<Record>(apps.change_status(owner, id, change)));
  }

  ASSERT_TRUE(store::Migrator(db(), app::migrations()).apply());
  Facts f = fact_row(db(), id);
  EXPECT_EQ(f.reached, 1 | 4) << "applied and screening";
  EXPECT_EQ(f.first_reply_at, at("2026-11-05T09:00:00Z"));
  EXPECT_EQ(f.first_rejection_at, at("2026-11-09T09:00:00Z"));
  EXPECT_EQ(f.first_offer_at, std::nullopt);
  EXPECT_EQ(f.last_entry_at, at("2026-11-09T09:00:00Z"));
}

PETO_BOTH_BACKENDS(FactsMigrationTest);

// The periods an address can ask for, and what is refused.
TEST(ReportPeriod, EveryKindAndItsRefusals) {
  auto period = [](PeriodAsk ask) { return period_from(ask, "2026-12-09"); };
  auto ok = [&](PeriodAsk ask) { return std::get<Period>(period(std::move(ask))); };
  auto refused = [&](PeriodAsk ask) { return std::get<FieldErrors>(period(std::move(ask))); };

  Period now = ok({});
  EXPECT_EQ(now.kind, "month");
  EXPECT_EQ(now.from, "2026-12-01");
  EXPECT_EQ(now.to, "2026-12-31");
  EXPECT_EQ(ok({.kind = "month", .on = "2024-02"}).to, "2024-02-29");
  Period q = ok({.kind = "quarter", .on = "2026-Q4"});
  EXPECT_EQ(q.from, "2026-10-01");
  EXPECT_EQ(q.to, "2026-12-31");
  EXPECT_EQ(q.query(), "period=quarter&on=2026-Q4");
  EXPECT_EQ(ok({.kind = "quarter", .on = "2026-05"}).from, "2026-04-01");
  Period weeks = ok({.kind = "weeks", .weeks = "2"});
  EXPECT_EQ(weeks.from, "2026-11-30") << "2026-12-09 is a Wednesday";
  EXPECT_EQ(weeks.to, "2026-12-13");
  EXPECT_EQ(weeks.query(), "period=weeks&weeks=2");
  Period custom = ok({.from = "2026-01-01", .to = "2026-03-31"});
  EXPECT_EQ(custom.kind, "custom");
  EXPECT_EQ(custom.days(), 90);

  EXPECT_TRUE(refused({.kind = "month", .on = "2026-13"}).has("on"));
  EXPECT_TRUE(refused({.kind = "quarter", .on = "2026-Q5"}).has("on"));
  EXPECT_TRUE(refused({.kind = "weeks", .weeks = "0"}).has("weeks"));
  EXPECT_TRUE(refused({.kind = "weeks", .weeks = "four"}).has("weeks"));
  EXPECT_TRUE(refused({.kind = "year"}).has("period"));
  EXPECT_TRUE(refused({.from = "2026-02-30", .to = "2026-03-01"}).has("from"));
  EXPECT_TRUE(refused({.from = "2026-03-01", .to = "2026-02-01"}).has("to"));
  EXPECT_TRUE(refused({.from = "2024-01-01", .to = "2026-01-02"}).has("to")) << "over 731 days";
  EXPECT_TRUE(refused({.kind = "custom", .from = "2026-01-01"}).has("to"));
  EXPECT_EQ(monday_of("2026-12-06"), "2026-11-30") << "a Sunday";
  EXPECT_EQ(monday_of("2026-11-30"), "2026-11-30");
}

}  // namespace
}  // namespace peto::domain
