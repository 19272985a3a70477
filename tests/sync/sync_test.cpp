// Sync connections on both backends, against the loopback CalDAV/CardDAV
// server: both sides converge, nothing is duplicated, deletions cross over,
// a connection never runs twice at once (docs/RULES.md #576), and the sync budget. Time
// only moves when the test moves the fake clock.
#include <set>
#include <thread>

#include "connections/connections.h"
#include "domain/applications.h"
#include "domain/cards.h"
#include "domain/records.h"
#include "engine/gate.h"
#include "formats/ical.h"
#include "steps/syncs.h"
#include "sync/syncs.h"
#include "tests/support/dav_server.h"
#include "tests/support/engine_fixture.h"
#include "tests/support/factory.h"

namespace peto {
namespace {

using nlohmann::json;
using testing::DavServer;

constexpr Millis kMinute = 60'000;
constexpr const char* kCal = "/dav/cal/";
constexpr const char* kBook = "/dav/book/";

std::string vtodo(const std::string& uid, const std::string& summary, const std::string& due) {
  return "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//other app//EN\r\nBEGIN:VTODO\r\nUID:" + uid +
         "\r\nDTSTAMP:20270101T000000Z\r\nSUMMARY:" + summary + "\r\nDUE:" + due +
         "\r\nEND:VTODO\r\nEND:VCALENDAR\r\n";
}

std::string vevent(const std::string& uid, const std::string& summary) {
  return "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//other app//EN\r\nBEGIN:VEVENT\r\nUID:" + uid +
         "\r\nDTSTAMP:20270101T000000Z\r\nDTSTART:20270110T090000Z\r\nDTEND:20270110T100000Z\r\n"
         "SUMMARY:" +
         summary + "\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";
}

std::string vcard(const std::string& uid, const std::string& name, const std::string& email) {
  return "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:" + uid + "\r\nFN:" + name + "\r\nEMAIL:" + email +
         "\r\nEND:VCARD\r\n";
}

class SyncTest : public testing::EngineTest {
 protected:
  void SetUp() override {
    EngineTest::SetUp();
    if (IsSkipped()) return;
    config_.secret_key = "sync-test-secret-key-0123456789abcdef01";
    config_.allow_private_destinations = true;  // the server is on 127.0.0.1
    owner_ = account("ada@example.com");
    cache_.emplace(db(), clock_);
  }

  Millis now() const { return clock_.now_ms(); }

  std::int64_t account(const std::string& email) {
    return testing::Factory(db(), clock_).account(email);
  }

  std::int64_t connect(const std::string& plugin, const std::string& url,
                       const std::string& interval = "60", std::int64_t owner = 0) {
    auto made = connections::Connections(db(), clock_, config_)
                    .create(owner ? owner : owner_, plugin, plugin,
                            {{"url", url},
                             {"username", "ada"},
                             {"password", "s3cr3t"},
                             {"interval", interval}});
    if (auto* e = std::get_if<notify::ConfigErrors>(&made)) {
      ADD_FAILURE() << plugin << " refused: " << e->begin()->first << " " << e->begin()->second;
      return 0;
    }
    return std::get<connections::Connection>(made).id;
  }

  domain::Records records() { return domain::Records(db(), clock_); }

  json create(const std::string& kind, json values, std::int64_t owner = 0) {
    domain::Input in;
    in.values = std::move(values);
    in.from_form = false;
    auto written = records().create(owner ? owner : owner_, domain::kind(kind), in);
    if (!std::holds_alternative<domain::Record>(written)) {
      ADD_FAILURE() << "could not create a record of " << kind;
      return nullptr;
    }
    return std::get<domain::Record>(written);
  }
  json update(const std::string& kind, std::int64_t id, json values) {
    domain::Input in;
    in.values = std::move(values);
    in.from_form = false;
    in.partial = true;
    auto written = records().update(owner_, domain::kind(kind), id, in);
    EXPECT_TRUE(std::holds_alternative<domain::Record>(written));
    return std::holds_alternative<domain::Record>(written) ? std::get<domain::Record>(written)
                                                           : json();
  }
  std::int64_t application(std::int64_t owner = 0) {
    auto company = create("companies", {{"name", "Acme"}}, owner);
    auto listing =
        create("listings", {{"role", "Backend engineer"}, {"company_id", company["id"]}}, owner);
    return create("applications", {{"listing_id", listing["id"]}}, owner)["id"].get<std::int64_t>();
  }
  std::vector<json> all(const std::string& kind) {
    domain::ListQuery q;
    q.tab = "all";
    q.limit = 200;
    return records().list(owner_, domain::kind(kind), q).items;
  }

  sync::Syncs syncs() { return sync::Syncs(db(), *cache_, clock_, config_, http_); }
  sync::SyncReport run_now(std::int64_t id) {
    auto report = syncs().run_now(owner_, id);
    EXPECT_TRUE(report.has_value());
    return report.value_or(sync::SyncReport{});
  }
  engine::StepResult pass(std::chrono::milliseconds budget = std::chrono::seconds(120)) {
    steps::Syncs step;
    engine::PassContext ctx{db(), *cache_, clock_, config_, budget, "test"};
    return step.run(ctx);
  }
  json connection(std::int64_t id) {
    auto r = db().query(
        "SELECT enabled, last_ok_at, last_error, synced_at, last_report FROM connections"
        " WHERE id = ?",
        {id})[0];
    return {{"enabled", r.int_at(0) == 1},
            {"ok", !r.is_null(1)},
            {"error", r.text(2)},
            {"synced_at", r.opt_int(3) ? json(*r.opt_int(3)) : json(nullptr)},
            {"report", json::parse(r.text(4).empty() ? "{}" : r.text(4))}};
  }
  std::int64_t links(std::int64_t connection) {
    return db()
        .query("SELECT COUNT(*) FROM sync_links WHERE connection_id = ?", {connection})[0]
        .int_at(0);
  }

  std::int64_t owner_ = 0;
  std::optional<store::Cache> cache_;
  net::HttpClient http_;

  // Reads a member's text as an item (the server's copy of what peto wrote).
  static formats::CalItem item(const std::string& text) {
    auto read = formats::read_calendar(text, "UTC");
    EXPECT_TRUE(std::holds_alternative<formats::CalItem>(read)) << text;
    return std::holds_alternative<formats::CalItem>(read) ? std::get<formats::CalItem>(read)
                                                          : formats::CalItem{};
  }
  // The decoded path of the member with `uid`.
  static std::string path_of(DavServer& dav, const std::string& collection,
                             const std::string& uid) {
    for (const auto& [path, member] : dav.members(collection))
      if (member.body.find("UID:" + uid + "\r\n") != std::string::npos) return path;
    ADD_FAILURE() << "no member with UID " << uid;
    return "";
  }
  // The server's members of `collection` by UID; a UID twice fails the test.
  static std::map<std::string, std::string> by_uid(DavServer& dav, const std::string& collection) {
    std::map<std::string, std::string> out;
    for (const auto& [path, member] : dav.members(collection)) {
      std::string uid;
      auto at = member.body.find("UID:");
      if (at != std::string::npos)
        uid = member.body.substr(at + 4, member.body.find("\r\n", at) - at - 4);
      EXPECT_TRUE(out.emplace(uid, member.body).second) << "UID " << uid << " twice";
    }
    return out;
  }
};

// The docs/RULES.md #576 scenario's counterpart for syncs, and the convergence test:
// records made, changed and deleted on both sides meet after two syncs, and
// nothing is ever there twice.
TEST_P(SyncTest, CalendarCreatesChangesAndDeletionsConvergeOnBothSides) {
  DavServer dav;
  dav.expect_basic("ada", "s3cr3t");
  auto id = connect("caldav", dav.url(kCal));
  auto app = application();
  auto interview = create(
      "interviews",
      {{"application_id", app}, {"starts_at", now() + 3 * 24 * 60 * kMinute}, {"place", "Room 4"}});
  interview["uid"] = db().query("SELECT uid FROM interviews WHERE id = ?",
                                {interview["id"].get<std::int64_t>()})[0]
                         .text(0);
  auto call = create("reminders", {{"title", "Call Bea"}, {"due_at", now() + 60 * kMinute}});
  // The other side: a task from another app, and an event of the person's
  // own that peto has no record for.
  dav.put_member(std::string(kCal) + "task-1.ics",
                 vtodo("task-1", "Send portfolio", "20270105T090000Z"));
  dav.put_member(std::string(kCal) + "dentist.ics", vevent("dentist", "Dentist"));

  auto first = run_now(id);
  EXPECT_EQ(first.error, "");
  EXPECT_EQ(first.counts["uploaded"], 2);
  EXPECT_EQ(first.counts["created"], 1);
  EXPECT_EQ(first.counts["skipped"], 1);
  auto there = by_uid(dav, kCal);
  ASSERT_EQ(there.size(), 4u);
  const std::string interview_uid = domain::record_uid("interviews", interview);
  ASSERT_TRUE(there.count(interview_uid)) << "the interview under its own uid";
  EXPECT_EQ(item(there[interview_uid]).location, "Room 4");
  EXPECT_EQ(item(there[domain::record_uid("reminders", call)]).summary, "Call Bea");
  auto reminders = all("reminders");
  ASSERT_EQ(reminders.size(), 2u);
  std::int64_t portfolio = 0;
  for (const auto& r : reminders)
    if (r["title"] == "Send portfolio") portfolio = r["id"].get<std::int64_t>();
  ASSERT_NE(portfolio, 0) << "the task became a reminder";
  EXPECT_EQ(connection(id)["ok"], true);
  EXPECT_EQ(connection(id)["report"]["counts"]["uploaded"], 2);

  // Nothing changed: the second run changes nothing.
  auto idle = run_now(id);
  EXPECT_EQ(idle.error, "");
  EXPECT_TRUE(idle.counts.empty()) << json(idle.counts).dump();

  // Both sides change: here the interview's place and the portfolio task is
  // deleted; there the reminder is renamed, a new task appears and the
  // dentist goes.
  update("interviews", interview["id"].get<std::int64_t>(), {{"place", "Room 9"}});
  records().remove(owner_, domain::kind("reminders"), portfolio);
  dav.put_member(path_of(dav, kCal, domain::record_uid("reminders", call)),
                 vtodo(domain::record_uid("reminders", call), "Call Bea back", "20270102T100000Z"));
  dav.put_member(std::string(kCal) + "task-2.ics",
                 vtodo("task-2", "Book a train", "20270106T090000Z"));
  dav.delete_member(std::string(kCal) + "dentist.ics");

  auto second = run_now(id);
  EXPECT_EQ(second.error, "");
  EXPECT_EQ(second.counts["pushed"], 1);
  EXPECT_EQ(second.counts["pulled"], 1);
  EXPECT_EQ(second.counts["created"], 1);
  EXPECT_EQ(second.counts["deleted_there"], 1);
  auto third = run_now(id);
  EXPECT_TRUE(third.counts.empty()) << json(third.counts).dump();

  there = by_uid(dav, kCal);
  EXPECT_EQ(there.size(), 3u) << "interview, the renamed call, the train";
  EXPECT_EQ(item(there[interview_uid]).location, "Room 9");
  EXPECT_FALSE(there.count("task-1"));
  EXPECT_FALSE(there.count("dentist"));
  std::set<std::string> titles;
  for (const auto& r : all("reminders")) titles.insert(r["title"].get<std::string>());
  EXPECT_EQ(titles, (std::set<std::string>{"Call Bea back", "Book a train"}));
  EXPECT_EQ(all("interviews").size(), 1u);

  // A deletion there removes the record here; one here removes it there.
  EXPECT_EQ(links(id), 3);
  dav.delete_member(path_of(dav, kCal, interview_uid));
  records().remove(owner_, domain::kind("reminders"), call["id"].get<std::int64_t>());
  auto fourth = run_now(id);
  EXPECT_EQ(fourth.counts["deleted_here"], 1);
  EXPECT_EQ(fourth.counts["deleted_there"], 1);
  EXPECT_TRUE(all("interviews").empty());
  there = by_uid(dav, kCal);
  EXPECT_EQ(there.size(), 1u);
  EXPECT_TRUE(there.count("task-2"));
  EXPECT_EQ(all("reminders").size(), 1u);
  EXPECT_EQ(links(id), 1);
  EXPECT_TRUE(run_now(id).counts.empty());
}

// A member peto made and the calendar app then removed is deleted here,
// whether the server's sync report tells of members made and removed since
// a token or leaves them out (RFC 6578 allows both): peto's token is taken
// after its own writes, so its members are never in the gap.
TEST_P(SyncTest, AMemberPetoMadeAndTheServerRemovedIsDeletedHereEitherWayTheServerReports) {
  for (bool elide : {false, true}) {
    SCOPED_TRACE(elide ? "short-lived members left out" : "every removal reported");
    DavServer dav;
    dav.expect_basic("ada", "s3cr3t");
    dav.set_elide_short_lived(elide);
    auto id = connect("caldav", dav.url(kCal));
    EXPECT_EQ(run_now(id).error, "");  // the first token
    auto call = create("reminders", {{"title", "Call Bea"}, {"due_at", now() + 60 * kMinute}});
    EXPECT_EQ(run_now(id).counts["uploaded"], 1);
    const std::string uid = db().query("SELECT uid FROM sync_links WHERE record_id = ?",
                                       {call["id"].get<std::int64_t>()})[0]
                                .text(0);
    dav.delete_member(path_of(dav, kCal, uid));
    auto after = run_now(id);
    EXPECT_EQ(after.error, "");
    EXPECT_EQ(after.counts["deleted_here"], 1);
    EXPECT_TRUE(all("reminders").empty());
    db().query("DELETE FROM connections WHERE id = ?", {id});
  }
}

// A link already in such a gap (a token kept from before peto's write): the
// member answering 404 when peto would push a change is a deletion there,
// which wins, rather than a push that fails on every run.
TEST_P(SyncTest, AChangeToARecordWhoseMemberIsGoneDeletesItInsteadOfFailingEveryRun) {
  DavServer dav;
  dav.expect_basic("ada", "s3cr3t");
  dav.set_elide_short_lived(true);
  auto id = connect("caldav", dav.url(kCal));
  EXPECT_EQ(run_now(id).error, "");
  const std::string before_write =
      db().query("SELECT sync_token FROM connections WHERE id = ?", {id})[0].text(0);
  auto call = create("reminders", {{"title", "Call Bea"}, {"due_at", now() + 60 * kMinute}});
  EXPECT_EQ(run_now(id).counts["uploaded"], 1);
  db().query("UPDATE connections SET sync_token = ? WHERE id = ?", {before_write, id});
  const std::string uid = db().query("SELECT uid FROM sync_links WHERE record_id = ?",
                                     {call["id"].get<std::int64_t>()})[0]
                              .text(0);
  dav.delete_member(path_of(dav, kCal, uid));
  update("reminders", call["id"].get<std::int64_t>(), {{"title", "Call Bea on Monday"}});
  auto after = run_now(id);
  EXPECT_EQ(after.error, "");
  EXPECT_EQ(after.counts["deleted_here"], 1);
  EXPECT_EQ(after.counts["conflicts"], 1);
  EXPECT_TRUE(all("reminders").empty());
  EXPECT_TRUE(run_now(id).counts.empty()) << "and nothing left to do";
}

// A task done in the calendar app keeps the app's completion time, not the
// time peto heard of it.
TEST_P(SyncTest, ATaskDoneThereKeepsItsCompletionTime) {
  DavServer dav;
  dav.expect_basic("ada", "s3cr3t");
  auto id = connect("caldav", dav.url(kCal));
  dav.put_member(std::string(kCal) + "task-1.ics",
                 vtodo("task-1", "Send portfolio", "20270105T090000Z"));
  EXPECT_EQ(run_now(id).error, "");
  std::string done = vtodo("task-1", "Send portfolio", "20270105T090000Z");
  done.insert(done.find("END:VTODO"), "STATUS:COMPLETED\r\nCOMPLETED:20270110T080000Z\r\n");
  dav.put_member(std::string(kCal) + "task-1.ics", done);
  EXPECT_EQ(run_now(id).error, "");
  auto reminders = all("reminders");
  ASSERT_EQ(reminders.size(), 1u);
  EXPECT_EQ(reminders[0]["done_at"], 1799568000000) << "2027-01-10T08:00:00Z, as the app said";
}

TEST_P(SyncTest, ContactsGoBothWaysAndDeletionsCrossOver) {
  DavServer dav;
  dav.expect_basic("ada", "s3cr3t");
  auto id = connect("carddav", dav.url(kBook));
  auto bea = create("contacts", {{"name", "Bea Lind"}, {"email", "bea@acme.example"}});
  dav.put_member(std::string(kBook) + "carl.vcf", vcard("carl", "Carl Berg", "carl@b.example"));

  auto first = run_now(id);
  EXPECT_EQ(first.error, "");
  EXPECT_EQ(first.counts["uploaded"], 1);
  EXPECT_EQ(first.counts["created"], 1);
  auto there = by_uid(dav, kBook);
  ASSERT_EQ(there.size(), 2u);
  EXPECT_NE(there[domain::record_uid("contacts", bea)].find("FN:Bea Lind"), std::string::npos);
  ASSERT_EQ(all("contacts").size(), 2u);

  // Changed on both sides at once: the server's version is kept.
  update("contacts", bea["id"].get<std::int64_t>(), {{"phone", "+46 70 000 00 00"}});
  dav.put_member(path_of(dav, kBook, domain::record_uid("contacts", bea)),
                 vcard(domain::record_uid("contacts", bea), "Bea Lindqvist", "bea@acme.example"));
  auto second = run_now(id);
  EXPECT_EQ(second.counts["conflicts"], 1);
  EXPECT_EQ(
      records().get(owner_, domain::kind("contacts"), bea["id"].get<std::int64_t>())->at("name"),
      "Bea Lindqvist");
  EXPECT_TRUE(run_now(id).counts.empty());

  dav.delete_member(std::string(kBook) + "carl.vcf");
  auto third = run_now(id);
  EXPECT_EQ(third.counts["deleted_here"], 1);
  EXPECT_EQ(all("contacts").size(), 1u);
  EXPECT_EQ(by_uid(dav, kBook).size(), 1u);
}

// RFC 6578: once a run saved the collection's sync-token, the next asks for
// the changes since it instead of listing everything; a server without it
// is listed every time, with the same outcome.
TEST_P(SyncTest, TheSyncTokenIsUsedWhereTheServerHasIt) {
  for (bool support : {true, false}) {
    owner_ = account(support ? "ann@example.com" : "bob@example.com");  // records of their own
    DavServer dav;
    dav.set_sync_support(support);
    auto id = connect("carddav", dav.url(kBook));
    create("contacts", {{"name", "Bea " + std::to_string(support)}});
    run_now(id);
    dav.put_member(std::string(kBook) + "carl.vcf", vcard("carl", "Carl", "carl@b.example"));
    auto second = run_now(id);
    EXPECT_EQ(second.counts["created"], 1);
    // One after the first run's upload (the token past peto's own write),
    // one for the second run's changes.
    EXPECT_EQ(dav.count("REPORT"), support ? 2u : 0u);
    EXPECT_EQ(dav.count("PROPFIND"), support ? 1u : 2u);
    // A token the server forgot: listed again, nothing duplicated.
    dav.forget_history();
    EXPECT_TRUE(run_now(id).counts.empty());
    EXPECT_EQ(by_uid(dav, kBook).size(), 2u);
  }
}

// A run that died after its PUT and before its link: the member is already
// there under the record's uid; the next run takes it as its own.
TEST_P(SyncTest, AMemberLeftByARunThatDiedIsAdoptedNotDuplicated) {
  DavServer dav;
  auto id = connect("carddav", dav.url(kBook));
  auto bea = create("contacts", {{"name", "Bea"}});
  const std::string uid = domain::record_uid("contacts", bea);
  dav.put_member(std::string(kBook) + uid + ".vcf", vcard(uid, "Bea (old)", "bea@a.example"));
  auto report = run_now(id);
  EXPECT_EQ(report.error, "");
  auto there = by_uid(dav, kBook);
  ASSERT_EQ(there.size(), 1u);
  EXPECT_NE(there[uid].find("FN:Bea\r\n"), std::string::npos) << there[uid];
  EXPECT_EQ(all("contacts").size(), 1u);
}

// A server that refuses the credentials retires the connection; a failing
// one keeps it, with the error recorded and last_ok_at untouched.
TEST_P(SyncTest, RefusedCredentialsRetireAndFailuresAreRecorded) {
  DavServer dav;
  dav.expect_basic("ada", "another password");
  auto id = connect("caldav", dav.url(kCal));
  auto refused = run_now(id);
  EXPECT_NE(refused.error, "");
  EXPECT_EQ(connection(id)["enabled"], false);
  EXPECT_NE(connection(id)["error"].get<std::string>(), "");

  DavServer broken;
  broken.set_status(500);
  auto other = connect("caldav", broken.url(kCal));
  auto failed = run_now(other);
  EXPECT_NE(failed.error, "");
  EXPECT_EQ(connection(other)["enabled"], true);
  EXPECT_EQ(connection(other)["ok"], false);
  EXPECT_EQ(connection(other)["report"]["error"], failed.error);
}

// Due: never run, or its interval elapsed (15/60/240/1440, anything else
// 60); a run stamps synced_at with its start.
TEST_P(SyncTest, AConnectionIsDueWhenItsIntervalHasElapsed) {
  DavServer dav;
  auto quarter = connect("carddav", dav.url(kBook), "15");
  connect("carddav", dav.url(kBook), "1440");
  EXPECT_EQ(pass()["ran"], 2);
  EXPECT_EQ(connection(quarter)["synced_at"], now());
  clock_.advance(std::chrono::minutes(14));
  EXPECT_EQ(pass()["ran"], 0);
  clock_.advance(std::chrono::minutes(1));
  EXPECT_EQ(pass()["ran"], 1);
  clock_.advance(std::chrono::hours(24));
  EXPECT_EQ(pass()["ran"], 2);
  EXPECT_EQ(sync::interval_minutes(json::parse("{\"interval\":\"7\"}")), 60);
  EXPECT_EQ(sync::interval_minutes(json::parse("{\"interval\":240}")), 240);
  EXPECT_EQ(sync::interval_minutes(json::object()), 60);
}

// docs/RULES.md #576: two passes that both read the connection as due, and a "Sync now",
// while the first run is still talking to the server: the plugin runs once.
TEST_P(SyncTest, OverlappingPassesAndSyncNowRunTheConnectionOnce) {
  DavServer dav;
  auto id = connect("carddav", dav.url(kBook));
  create("contacts", {{"name", "Bea"}});
  auto seen_by_a = syncs().due();
  auto seen_by_b = syncs().due();
  ASSERT_EQ(seen_by_a.size(), 1u);
  ASSERT_EQ(seen_by_b.size(), 1u);

  dav.hold();
  sync::Syncs::Turn a_turn{};
  std::thread a([&] { a_turn = syncs().run_turn(seen_by_a[0]); });
  ASSERT_TRUE(dav.wait_held(1));  // A is inside the plugin, at the server
  EXPECT_EQ(syncs().run_turn(seen_by_b[0]), sync::Syncs::Turn::claimed_elsewhere);
  auto now_report = syncs().run_now(owner_, id);
  ASSERT_TRUE(now_report);
  EXPECT_TRUE(now_report->already_running);
  EXPECT_EQ(pass()["ran"], 0) << "a third pass finds it claimed";
  dav.release();
  a.join();
  EXPECT_EQ(a_turn, sync::Syncs::Turn::ran);
  // One listing, and one read of the token past its own upload.
  EXPECT_EQ(dav.count("PROPFIND") + dav.count("REPORT"), 2u);
  EXPECT_EQ(dav.count("PUT"), 1u);

  // The other way round: "Sync now" runs; a pass that claims the turn finds
  // the lease held and calls nothing.
  clock_.advance(std::chrono::hours(2));
  auto due = syncs().due();
  ASSERT_EQ(due.size(), 1u);
  dav.hold();
  std::thread b([&] { syncs().run_now(owner_, id); });
  ASSERT_TRUE(dav.wait_held(1));
  EXPECT_EQ(syncs().run_turn(due[0]), sync::Syncs::Turn::already_running);
  dav.release();
  b.join();
  EXPECT_EQ(dav.count("PROPFIND") + dav.count("REPORT"), 3u);
}

// The budget is checked before each sync starts: once spent, the rest wait
// and run first next pass. Each listing "takes" 100 s of the fake clock.
TEST_P(SyncTest, APassWhoseBudgetIsSpentLeavesTheRestForTheNext) {
  DavServer dav;
  dav.on_request([&](const testing::DavRequest& r) {
    if (r.method == "PROPFIND" || r.method == "REPORT") clock_.advance(std::chrono::seconds(100));
  });
  std::vector<std::int64_t> ids;
  for (int i = 0; i < 3; ++i) ids.push_back(connect("carddav", dav.url(kBook)));
  auto first = pass(std::chrono::seconds(120));
  EXPECT_EQ(first["ran"], 2) << "100 s, then 200 s ≥ 120 s: the third waits";
  EXPECT_EQ(first["left"], 1);
  EXPECT_TRUE(connection(ids[2])["synced_at"].is_null());
  auto second = pass(std::chrono::seconds(120));
  EXPECT_EQ(second["ran"], 1);
  EXPECT_FALSE(connection(ids[2])["synced_at"].is_null());
  // A budget of 0 never runs out.
  clock_.advance(std::chrono::hours(2));
  EXPECT_EQ(pass(std::chrono::seconds(0))["ran"], 3);
}

// Pointed at another collection, a connection starts afresh: nothing here is
// taken as deleted because the new collection does not hold it.
TEST_P(SyncTest, ANewAddressStartsAfreshInsteadOfDeletingEverything) {
  DavServer first, second;
  auto id = connect("carddav", first.url(kBook));
  create("contacts", {{"name", "Bea"}});
  EXPECT_EQ(run_now(id).counts["uploaded"], 1);
  auto change_url = [&](const std::string& url) {
    return connections::Connections(db(), clock_, config_)
        .update(owner_, id, std::nullopt, {{"url", url}}, std::nullopt);
  };
  // The same collection written another way keeps its links.
  std::string same = first.url(kBook);
  same.pop_back();                                 // no final '/'
  same.replace(same.find("/dav/"), 5, "/%64av/");  // an escaped 'd'
  auto rewritten = change_url(same);
  ASSERT_TRUE(rewritten && std::holds_alternative<connections::Connection>(*rewritten));
  EXPECT_EQ(links(id), 1);
  EXPECT_TRUE(run_now(id).counts.empty());
  // Another collection, while a run holds the connection: refused.
  {
    auto held =
        engine::KeyLease::take(*cache_, "sync:" + std::to_string(id), std::chrono::minutes(15));
    ASSERT_TRUE(held);
    auto busy = change_url(second.url(kBook));
    ASSERT_TRUE(busy && std::holds_alternative<notify::ConfigErrors>(*busy));
    EXPECT_EQ(std::get<notify::ConfigErrors>(*busy).at("url"), "sync_error_running");
    EXPECT_EQ(links(id), 1);
  }
  auto changed = change_url(second.url(kBook));
  ASSERT_TRUE(changed && std::holds_alternative<connections::Connection>(*changed));
  EXPECT_EQ(links(id), 0);
  auto report = run_now(id);
  EXPECT_EQ(report.counts["uploaded"], 1);
  EXPECT_EQ(report.counts["deleted_here"], 0);
  EXPECT_EQ(all("contacts").size(), 1u);
  EXPECT_EQ(by_uid(second, kBook).size(), 1u);
}

// A member missing from a listing is deleted here only when the server
// says it is gone; two cards with one UID make one contact; a bad answer
// for one entry does not stop the others.
TEST_P(SyncTest, OnlyAMemberThatIsGoneDeletesARecordAndDuplicateUidsAreLeftAlone) {
  DavServer dav;
  auto id = connect("carddav", dav.url(kBook));
  dav.put_member(std::string(kBook) + "a.vcf", vcard("same", "Carl", "carl@b.example"));
  dav.put_member(std::string(kBook) + "b.vcf", vcard("same", "Carl (copy)", "carl@b.example"));
  auto first = run_now(id);
  EXPECT_EQ(first.error, "");
  EXPECT_EQ(first.counts["created"], 1);
  EXPECT_EQ(first.counts["skipped"], 1);
  EXPECT_EQ(all("contacts").size(), 1u);
  auto again = run_now(id);
  EXPECT_EQ(again.error, "");
  EXPECT_TRUE(again.counts.empty()) << json(again.counts).dump();
  EXPECT_EQ(all("contacts").size(), 1u);
}

// Pushing a change keeps what peto does not keep on the server's copy (an
// address, a second e-mail), and a pulled change that leaves a reminder's
// due time alone keeps its announcement.
TEST_P(SyncTest, APushKeepsTheServersOtherPropertiesAndAPullKeepsAnnouncements) {
  DavServer dav;
  auto id = connect("carddav", dav.url(kBook));
  dav.put_member(std::string(kBook) + "carl.vcf",
                 "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:carl\r\nFN:Carl Berg\r\n"
                 "EMAIL;TYPE=work:carl@b.example\r\nEMAIL;TYPE=home:carl@home.example\r\n"
                 "ADR;TYPE=home:;;Storgatan 1;Lund;;22100;Sweden\r\nEND:VCARD\r\n");
  run_now(id);
  auto carl = all("contacts").at(0);
  update("contacts", carl["id"].get<std::int64_t>(), {{"role", "Recruiter"}});
  EXPECT_EQ(run_now(id).counts["pushed"], 1);
  const std::string pushed = dav.member(std::string(kBook) + "carl.vcf")->body;
  EXPECT_NE(pushed.find("Storgatan 1"), std::string::npos) << pushed;
  EXPECT_NE(pushed.find("carl@home.example"), std::string::npos) << pushed;
  EXPECT_NE(pushed.find("Recruiter"), std::string::npos) << pushed;
  EXPECT_TRUE(run_now(id).counts.empty());

  auto cal = connect("caldav", dav.url(kCal));
  auto call = create("reminders", {{"title", "Call Bea"}, {"due_at", now() + 1234}});
  run_now(cal);
  db().query("UPDATE reminders SET notified_at = ? WHERE id = ?",
             {now(), call["id"].get<std::int64_t>()});
  const std::string uid = domain::record_uid("reminders", call);
  std::string body = dav.member(path_of(dav, kCal, uid))->body;
  body.replace(body.find("SUMMARY:Call Bea"), 16, "SUMMARY:Call Bea today");
  dav.put_member(path_of(dav, kCal, uid), body);
  EXPECT_EQ(run_now(cal).counts["pulled"], 1);
  auto row = db().query("SELECT title, notified_at FROM reminders WHERE id = ?",
                        {call["id"].get<std::int64_t>()})[0];
  EXPECT_EQ(row.text(0), "Call Bea today");
  EXPECT_FALSE(row.is_null(1)) << "the announcement is kept";
}

// A run starts no entry after its work limit (well inside its lease): the
// rest, and the sync-token, wait for the next run.
TEST_P(SyncTest, ARunStopsStartingEntriesBeforeItsLeaseRunsOut) {
  DavServer dav;
  auto id = connect("carddav", dav.url(kBook));
  for (int i = 0; i < 3; ++i) create("contacts", {{"name", "Person " + std::to_string(i)}});
  dav.on_request([&](const testing::DavRequest& r) {
    if (r.method == "PUT") clock_.advance(sync::Syncs::kWorkLimit);
  });
  auto first = run_now(id);
  EXPECT_EQ(first.counts["uploaded"], 1);
  EXPECT_EQ(first.notes.size(), 1u);
  EXPECT_EQ(db().query("SELECT sync_token FROM connections WHERE id = ?", {id})[0].text(0), "");
  dav.on_request(nullptr);
  EXPECT_EQ(run_now(id).counts["uploaded"], 2);
  EXPECT_EQ(by_uid(dav, kBook).size(), 3u);
}

TEST_P(SyncTest, PlainHttpIsForPrivateServersOnly) {
  config_.allow_private_destinations = false;
  auto made = connections::Connections(db(), clock_, config_)
                  .create(owner_, "caldav", "Cal", {{"url", "http://dav.example/cal/"}});
  ASSERT_TRUE(std::holds_alternative<notify::ConfigErrors>(made));
  EXPECT_EQ(std::get<notify::ConfigErrors>(made).at("url"), "sync_error_http");
  EXPECT_TRUE(std::holds_alternative<connections::Connection>(
      connections::Connections(db(), clock_, config_)
          .create(owner_, "caldav", "Cal", {{"url", "https://dav.example/cal/"}})));
}

PETO_BOTH_BACKENDS(SyncTest);

}  // namespace
}  // namespace peto
