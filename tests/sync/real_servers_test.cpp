// Sync against CalDAV and CardDAV servers no one here wrote: Radicale and
// Xandikos (Debian's radicale and xandikos), each started by the test on a
// free loopback port with a folder of its own, on both peto backends. They
// differ where it matters: asked for the changes since a token, Radicale
// reports a member made and removed since then as removed, and Xandikos
// leaves it out. The in-test server (tests/support/dav_server.h) stays for
// the faults a real server will not make on demand.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "connections/connections.h"
#include "core/timezone.h"
#include "domain/accounts.h"
#include "domain/records.h"
#include "net/http.h"
#include "store/cache.h"
#include "sync/syncs.h"
#include "tests/support/engine_fixture.h"
#include "tests/support/external_server.h"
#include "tests/support/factory.h"
#include "tests/support/http_client.h"

namespace peto {
namespace {

using nlohmann::json;
using testing::ExternalServer;

constexpr Millis kMinute = 60'000;
constexpr const char* kAuth = "Basic YWRhOnMzY3IzdA==";  // ada:s3cr3t

// One of the two servers, running, with a calendar and an address book.
struct Served {
  std::string name;
  std::unique_ptr<ExternalServer> server;
  std::string calendar;  // the collections' paths
  std::string book;
};

Served radicale(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  const fs::path root = dir / "collections";
  for (const auto& [path, tag] : {std::pair{"cal", "VCALENDAR"}, {"book", "VADDRESSBOOK"}}) {
    fs::create_directories(root / "collection-root" / "ada" / path);
    std::ofstream(root / "collection-root" / "ada" / path / ".Radicale.props")
        << R"({"tag": ")" << tag << R"("})";
  }
  // No configuration file but these options; any user name and password
  // ("none"), each user in the collections under their own name.
  return {
      "radicale",
      std::make_unique<ExternalServer>(
          std::vector<std::string>{"/usr/bin/radicale", "--config", "", "--server-hosts",
                                   "127.0.0.1:{port}", "--storage-filesystem-folder", root.string(),
                                   "--auth-type", "none", "--logging-level", "warning"},
          dir),
      "/ada/cal/", "/ada/book/"};
}

Served xandikos(const std::filesystem::path& dir) {
  // --defaults makes a calendar and an address book; no authentication.
  return {"xandikos",
          std::make_unique<ExternalServer>(
              std::vector<std::string>{"/usr/bin/xandikos", "-d", (dir / "store").string(),
                                       "--defaults", "-l", "127.0.0.1", "-p", "{port}"},
              dir),
          "/user/calendars/calendar/", "/user/contacts/addressbook/"};
}

// A task as another app writes it; `due` is its DUE line ("" for none).
std::string vtodo(const std::string& uid, const std::string& summary, const std::string& extra,
                  const std::string& due = "DUE:20270105T090000Z") {
  return "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//other app//EN\r\nBEGIN:VTODO\r\nUID:" + uid +
         "\r\nDTSTAMP:20270101T000000Z\r\nSUMMARY:" + summary + "\r\n" +
         (due.empty() ? "" : due + "\r\n") + extra + "END:VTODO\r\nEND:VCALENDAR\r\n";
}

class RealServersTest : public testing::EngineTest {
 protected:
  void SetUp() override {
    EngineTest::SetUp();
    if (IsSkipped()) return;
    config_.secret_key = "sync-test-secret-key-0123456789abcdef01";
    config_.allow_private_destinations = true;  // the servers are on 127.0.0.1
    cache_.emplace(db(), clock_);
  }

  // Both servers in turn, each with an account of its own here.
  template <typename Fn>
  void on_each_server(Fn&& fn) {
    for (auto start : {&radicale, &xandikos}) {
      const std::filesystem::path folder = dir() / (start == &radicale ? "radicale" : "xandikos");
      std::filesystem::create_directories(folder);
      Served served = start(folder);
      SCOPED_TRACE(served.name);
      owner_ = testing::Factory(db(), clock_).account("ada@" + served.name + ".example");
      fn(served);
      if (HasFailure()) ADD_FAILURE() << served.name << "'s log:\n" << served.server->log();
    }
  }

  std::int64_t connect(const std::string& plugin, const Served& s, const std::string& path) {
    auto made = connections::Connections(db(), clock_, config_)
                    .create(owner_, plugin, plugin,
                            {{"url", url(s, path)},
                             {"username", "ada"},
                             {"password", "s3cr3t"},
                             {"interval", "60"}});
    if (auto* e = std::get_if<notify::ConfigErrors>(&made)) {
      ADD_FAILURE() << plugin << " refused: " << e->begin()->first << " " << e->begin()->second;
      return 0;
    }
    return std::get<connections::Connection>(made).id;
  }
  static std::string url(const Served& s, const std::string& path) {
    return "http://127.0.0.1:" + std::to_string(s.server->port()) + path;
  }

  sync::SyncReport run_now(std::int64_t id) {
    auto report = sync::Syncs(db(), *cache_, clock_, config_, http_).run_now(owner_, id);
    EXPECT_TRUE(report.has_value());
    EXPECT_EQ(report ? report->error : "", "");
    return report.value_or(sync::SyncReport{});
  }

  domain::Records records() { return domain::Records(db(), clock_); }
  json create(const std::string& kind, json values) {
    domain::Input in;
    in.values = std::move(values);
    in.from_form = false;
    auto written = records().create(owner_, domain::kind(kind), in);
    EXPECT_TRUE(std::holds_alternative<domain::Record>(written)) << kind;
    return std::holds_alternative<domain::Record>(written) ? std::get<domain::Record>(written)
                                                           : json();
  }
  void update(const std::string& kind, std::int64_t id, json values) {
    domain::Input in;
    in.values = std::move(values);
    in.from_form = false;
    in.partial = true;
    EXPECT_TRUE(std::holds_alternative<domain::Record>(
        records().update(owner_, domain::kind(kind), id, in)));
  }
  void zone(const std::string& z) {
    domain::Accounts accounts(db(), clock_);
    domain::Account wanted = *accounts.find(owner_);
    wanted.time_zone = z;
    ASSERT_TRUE(accounts.update_profile(owner_, wanted).empty());
  }
  json one(const std::string& kind, const std::string& field, const std::string& value) {
    for (const json& r : all(kind))
      if (r[field] == value) return r;
    ADD_FAILURE() << "no " << kind << " with " << field << " " << value;
    return json::object();
  }
  static Millis midnight(const std::string& day, const std::string& z) {
    return parse_local(day + " 00:00", z).value();
  }
  std::vector<json> all(const std::string& kind) {
    domain::ListQuery q;
    q.tab = "all";
    q.limit = 200;
    return records().list(owner_, domain::kind(kind), q).items;
  }

  // The other side, as a calendar app would write it.
  static testing::ClientResponse there(const Served& s, const std::string& method,
                                       const std::string& path, const std::string& body = "",
                                       const std::string& type = "text/calendar; charset=utf-8") {
    std::vector<std::pair<std::string, std::string>> headers = {{"Authorization", kAuth}};
    if (!body.empty()) headers.emplace_back("Content-Type", type);
    if (method == "PROPFIND") headers.emplace_back("Depth", "1");
    return testing::http_request(static_cast<std::uint16_t>(s.server->port()), method, path, body,
                                 headers);
  }
  // The paths of the members of `collection` (the ones ending in `ext`).
  static std::vector<std::string> members(const Served& s, const std::string& collection,
                                          const std::string& ext) {
    std::vector<std::string> out;
    const std::string text = there(s, "PROPFIND", collection).body;
    for (auto at = text.find(collection); at != std::string::npos;
         at = text.find(collection, at + 1)) {
      const std::string href = text.substr(at, text.find('<', at) - at);
      if (href.ends_with(ext)) out.push_back(href);
    }
    return out;
  }
  // The path of the member whose text holds `needle`.
  static std::string member_with(const Served& s, const std::string& collection,
                                 const std::string& ext, const std::string& needle) {
    for (const std::string& path : members(s, collection, ext))
      if (there(s, "GET", path).body.find(needle) != std::string::npos) return path;
    ADD_FAILURE() << "no member holds " << needle;
    return "";
  }

  std::int64_t owner_ = 0;
  std::optional<store::Cache> cache_;
  net::HttpClient http_;
};

// Made, changed and deleted on both sides, tasks and reminders meet.
TEST_P(RealServersTest, TasksAndRemindersConvergeBothWays) {
  on_each_server([&](const Served& s) {
    auto id = connect("caldav", s, s.calendar);
    auto call = create("reminders", {{"title", "Call Bea"}, {"due_at", clock_.now_ms() + kMinute}});
    ASSERT_EQ(
        there(s, "PUT", s.calendar + "task-1.ics", vtodo("task-1", "Send portfolio", "")).status /
            100,
        2);
    auto first = run_now(id);
    EXPECT_EQ(first.counts["uploaded"], 1);
    EXPECT_EQ(first.counts["created"], 1);
    EXPECT_EQ(all("reminders").size(), 2u);
    EXPECT_EQ(members(s, s.calendar, ".ics").size(), 2u);
    EXPECT_TRUE(run_now(id).counts.empty()) << "an idle run changes nothing";

    update("reminders", call["id"].get<std::int64_t>(), {{"title", "Call Bea on Monday"}});
    const std::string task = s.calendar + "task-1.ics";
    ASSERT_EQ(there(s, "PUT", task, vtodo("task-1", "Send the portfolio", "")).status / 100, 2);
    auto second = run_now(id);
    EXPECT_EQ(second.counts["pushed"], 1);
    EXPECT_EQ(second.counts["pulled"], 1);
    std::string mine = member_with(s, s.calendar, ".ics", "Call Bea");
    EXPECT_NE(there(s, "GET", mine).body.find("SUMMARY:Call Bea on Monday"), std::string::npos);
    std::set<std::string> titles;
    for (const json& r : all("reminders")) titles.insert(r["title"].get<std::string>());
    EXPECT_EQ(titles, (std::set<std::string>{"Call Bea on Monday", "Send the portfolio"}));

    ASSERT_EQ(there(s, "DELETE", task).status / 100, 2);
    EXPECT_TRUE(
        records().remove(owner_, domain::kind("reminders"), call["id"].get<std::int64_t>()));
    auto third = run_now(id);
    EXPECT_EQ(third.counts["deleted_here"], 1);
    EXPECT_EQ(third.counts["deleted_there"], 1);
    EXPECT_TRUE(all("reminders").empty());
    EXPECT_TRUE(members(s, s.calendar, ".ics").empty());
  });
}

// The issue's data loss: a member peto made and the app removed before the
// next sync. Xandikos leaves such a member out of the changes since a token
// read before peto wrote it; peto's token is read after its own writes, so
// both servers tell of the deletion.
TEST_P(RealServersTest, AMemberPetoMadeAndTheAppRemovedIsDeletedHere) {
  on_each_server([&](const Served& s) {
    auto id = connect("caldav", s, s.calendar);
    run_now(id);
    create("reminders", {{"title", "Call Bea"}, {"due_at", clock_.now_ms() + kMinute}});
    EXPECT_EQ(run_now(id).counts["uploaded"], 1);
    ASSERT_EQ(there(s, "DELETE", member_with(s, s.calendar, ".ics", "Call Bea")).status / 100, 2);
    EXPECT_EQ(run_now(id).counts["deleted_here"], 1);
    EXPECT_TRUE(all("reminders").empty());
  });
}

// A task completed in the app keeps the app's COMPLETED time.
TEST_P(RealServersTest, ATaskCompletedThereKeepsItsCompletionTime) {
  on_each_server([&](const Served& s) {
    auto id = connect("caldav", s, s.calendar);
    const std::string task = s.calendar + "task-2.ics";
    ASSERT_EQ(there(s, "PUT", task, vtodo("task-2", "Send portfolio", "")).status / 100, 2);
    run_now(id);
    ASSERT_EQ(there(s, "PUT", task,
                    vtodo("task-2", "Send portfolio",
                          "STATUS:COMPLETED\r\nCOMPLETED:20270110T080000Z\r\n"))
                      .status /
                  100,
              2);
    run_now(id);
    auto reminders = all("reminders");
    ASSERT_EQ(reminders.size(), 1u);
    EXPECT_EQ(reminders[0]["done_at"], 1799568000000) << "2027-01-10T08:00:00Z";
  });
}

// A contact's card carries the name in its parts, so the app sorts by the
// family name; the name reads back whole.
TEST_P(RealServersTest, ACardHoldsTheNameInItsParts) {
  on_each_server([&](const Served& s) {
    auto id = connect("carddav", s, s.book);
    create("contacts", {{"name", "Ada King Lovelace"}, {"email", "ada@example.org"}});
    EXPECT_EQ(run_now(id).counts["uploaded"], 1);
    const std::string card = there(s, "GET", member_with(s, s.book, ".vcf", "Lovelace")).body;
    EXPECT_NE(card.find("N:Lovelace;Ada;King;;"), std::string::npos) << card;
    EXPECT_NE(card.find("FN:Ada King Lovelace"), std::string::npos) << card;
    EXPECT_TRUE(run_now(id).counts.empty());
    EXPECT_EQ(all("contacts")[0]["name"], "Ada King Lovelace");
  });
}

// A task due on a day stays due on that day, both ways, west and east of
// UTC: the day is written as a DATE, and the reminder falls at the start of
// it where the person is.
TEST_P(RealServersTest, AllDayTasksAndInterviewsStayAllDayWestAndEast) {
  on_each_server([&](const Served& s) {
    auto id = connect("caldav", s, s.calendar);
    zone("America/Los_Angeles");
    const std::string task = s.calendar + "task-day.ics";
    ASSERT_EQ(
        there(s, "PUT", task, vtodo("task-day", "Send portfolio", "", "DUE;VALUE=DATE:20270120"))
                .status /
            100,
        2);
    create("reminders", {{"title", "Forms due"}, {"due_on", "2027-01-21"}});
    auto company = testing::Factory(db(), clock_).company(owner_, "Acme");
    auto listing = testing::Factory(db(), clock_).listing(owner_, company, "SRE");
    auto application = testing::Factory(db(), clock_).application(owner_, listing, "applied");
    create("interviews", {{"application_id", application}, {"starts_on", "2027-01-22"}});
    auto first = run_now(id);
    EXPECT_EQ(first.counts["created"], 1);
    EXPECT_EQ(first.counts["uploaded"], 2);

    json pulled = one("reminders", "title", "Send portfolio");
    EXPECT_EQ(pulled["due_on"], "2027-01-20");
    EXPECT_EQ(pulled["due_at"], midnight("2027-01-20", "America/Los_Angeles"));
    std::string ours = there(s, "GET", member_with(s, s.calendar, ".ics", "Forms due")).body;
    EXPECT_NE(ours.find("DUE;VALUE=DATE:20270121"), std::string::npos) << ours;
    EXPECT_EQ(ours.find("DUE:"), std::string::npos) << "never a time in UTC: " << ours;
    std::string event = there(s, "GET", member_with(s, s.calendar, ".ics", "VEVENT")).body;
    EXPECT_NE(event.find("DTSTART;VALUE=DATE:20270122"), std::string::npos) << event;
    EXPECT_TRUE(run_now(id).counts.empty()) << "an idle run changes nothing";

    // The person moves east; the app moves the task two days on.
    zone("Asia/Tokyo");
    EXPECT_EQ(one("reminders", "title", "Forms due")["due_at"],
              midnight("2027-01-21", "Asia/Tokyo"));
    ASSERT_EQ(
        there(s, "PUT", task, vtodo("task-day", "Send portfolio", "", "DUE;VALUE=DATE:20270122"))
                .status /
            100,
        2);
    EXPECT_EQ(run_now(id).counts["pulled"], 1);
    pulled = one("reminders", "title", "Send portfolio");
    EXPECT_EQ(pulled["due_on"], "2027-01-22");
    EXPECT_EQ(pulled["due_at"], midnight("2027-01-22", "Asia/Tokyo"));
    EXPECT_NE(there(s, "GET", task).body.find("DUE;VALUE=DATE:20270122"), std::string::npos);
    ours = there(s, "GET", member_with(s, s.calendar, ".ics", "Forms due")).body;
    EXPECT_NE(ours.find("DUE;VALUE=DATE:20270121"), std::string::npos) << ours;
  });
}

// A task without a date comes in as a reminder without one, and one made
// here goes out without DUE; giving it a date there dates it here.
TEST_P(RealServersTest, TasksWithoutADateComeAndGo) {
  on_each_server([&](const Served& s) {
    auto id = connect("caldav", s, s.calendar);
    const std::string task = s.calendar + "someday.ics";
    ASSERT_EQ(there(s, "PUT", task, vtodo("someday", "Read about Acme", "", "")).status / 100, 2);
    create("reminders", {{"title", "Update the CV"}});
    auto first = run_now(id);
    EXPECT_EQ(first.counts["created"], 1);
    EXPECT_EQ(first.counts["uploaded"], 1);
    EXPECT_EQ(first.notes.size(), 0u) << "nothing skipped";
    json pulled = one("reminders", "title", "Read about Acme");
    EXPECT_TRUE(pulled["due_at"].is_null());
    EXPECT_TRUE(pulled["due_on"].is_null());
    std::string ours = there(s, "GET", member_with(s, s.calendar, ".ics", "Update the CV")).body;
    EXPECT_EQ(ours.find("DUE"), std::string::npos) << ours;
    EXPECT_TRUE(run_now(id).counts.empty());

    ASSERT_EQ(there(s, "PUT", task, vtodo("someday", "Read about Acme", "", "DUE:20270120T170000Z"))
                      .status /
                  100,
              2);
    run_now(id);
    EXPECT_EQ(one("reminders", "title", "Read about Acme")["due_at"], 1800464400000)
        << "2027-01-20T17:00:00Z";
  });
}

PETO_BOTH_BACKENDS(RealServersTest);

}  // namespace
}  // namespace peto
