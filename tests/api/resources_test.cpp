// Every resource of /api/v1 end to end on both backends: create → get → list
// (pagination, updated_since, filters) → patch → delete, and the routes that
// are more than plain records (status, timeline, done, outcome, /me).
#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <map>
#include <set>

#include "tests/support/api_fixture.h"

namespace peto::testing {
namespace {

using nlohmann::json;

class ResourcesApiTest : public ApiTest {
 protected:
  // A change PATCH makes to a fresh record of `kind`.
  static json patch_body(const std::string& kind) {
    if (kind == "companies") return {{"location", "Porto"}, {"website", nullptr}};
    if (kind == "contacts") return {{"role", "Hiring manager"}};
    if (kind == "listings") return {{"state", "shortlisted"}, {"salary_max", 60000}};
    if (kind == "applications") return {{"priority", 3}, {"deadline", "2027-02-10"}};
    if (kind == "reminders") return {{"title", "Call again"}, {"due_at", "2027-01-21T09:30:00Z"}};
    if (kind == "interviews") return {{"place", "Room 4"}};
    if (kind == "offers") return {{"base_pay", 55000}, {"answer_by", "2027-02-01"}};
    if (kind == "notes") return {{"body", "Very nice team"}};
    if (kind == "career") return {{"ended_on", "2024-06-30"}, {"level", "Lead"}};
    if (kind == "cvs") return {{"page_size", "letter"}, {"with_street", "yes"}};
    if (kind == "letters") return {{"purpose", "follow_up"}, {"body", "Following up on {role}."}};
    return {{"colour", "green"}};  // tags
  }

  // Follows next_cursor from ?limit=1 to the end; the ids seen, in order.
  std::vector<std::int64_t> walk(const ApiClient& c, const std::string& kind,
                                 const std::string& extra_query) {
    std::vector<std::int64_t> ids;
    std::string cursor;
    for (int page = 0; page < 100; ++page) {
      std::string target = std::string(kApi) + "/" + kind + "?limit=1" + extra_query;
      if (!cursor.empty()) target += "&cursor=" + cursor;
      ApiReply r = c.get(target);
      EXPECT_EQ(r.status, 200) << target << ": " << r.text;
      if (r.status != 200) break;
      EXPECT_LE(r.body["items"].size(), 1u);
      for (const auto& item : r.body["items"]) ids.push_back(item["id"].get<std::int64_t>());
      if (r.body["next_cursor"].is_null()) break;
      cursor = r.body["next_cursor"].get<std::string>();
    }
    return ids;
  }

  static bool has_id(const json& list, std::int64_t id) {
    for (const auto& item : list["items"])
      if (item["id"] == id) return true;
    return false;
  }
};

TEST_P(ResourcesApiTest, EveryKindCreateGetListPatchDelete) {
  ApiClient ana = client(ana_, {"write"});
  auto parents = seed(ana, 1);
  ASSERT_EQ(parents.size(), seeded_count());
  seed(ana, 2);  // a second of each, so lists and pages have more than one
  // An application per listing: the fresh one below needs a listing of its own.
  ApiReply listing = ana.post(std::string(kApi) + "/listings", create_body("listings", parents, 3));
  ASSERT_EQ(listing.status, 201) << listing.text;
  parents["listings"] = listing.body["id"].get<std::int64_t>();

  for (const std::string& kind : api_kinds()) {
    SCOPED_TRACE(kind);
    const domain::Kind& k = domain::kind(kind);
    const std::string base = std::string(kApi) + "/" + kind;
    clock_.advance(std::chrono::minutes(1));
    const std::string created_at = format_time_s(clock_.now_ms());

    // Create: 201 with every field (null when empty) and the times.
    json sent = create_body(kind, parents, 9);
    ApiReply made = ana.post(base, sent);
    ASSERT_EQ(made.status, 201) << made.text;
    EXPECT_EQ(made.media_type(), "application/json");
    ASSERT_TRUE(made.body["id"].is_number_integer()) << made.text;
    std::int64_t id = made.body["id"].get<std::int64_t>();
    for (const auto& [name, value] : sent.items()) EXPECT_EQ(made.body[name], value) << name;
    for (const domain::Field& f : k.fields) EXPECT_TRUE(made.body.contains(f.name)) << f.name;
    EXPECT_EQ(made.body["created_at"], created_at);
    EXPECT_EQ(made.body["updated_at"], created_at);

    // Get: the same record.
    ApiReply got = ana.get(base + "/" + std::to_string(id));
    ASSERT_EQ(got.status, 200) << got.text;
    EXPECT_EQ(got.body, made.body);

    // List: present (in the widest tab), and ?limit=1 pages walk every record once.
    std::string all_tab = k.tabs.empty() ? "" : "&tab=all";
    ApiReply list = ana.get(base + "?limit=200" + all_tab);
    ASSERT_EQ(list.status, 200) << list.text;
    EXPECT_TRUE(has_id(list.body, id));
    EXPECT_TRUE(list.body.contains("next_cursor"));
    std::vector<std::int64_t> walked = walk(ana, kind, all_tab);
    std::set<std::int64_t> unique(walked.begin(), walked.end());
    EXPECT_EQ(unique.size(), walked.size()) << "a record came twice";
    EXPECT_EQ(static_cast<std::int64_t>(walked.size()), count(kind));
    EXPECT_TRUE(unique.count(id));

    // Patch: only what was sent changes; updated_at moves.
    clock_.advance(std::chrono::minutes(1));
    const std::string patched_at = format_time_s(clock_.now_ms());
    json change = patch_body(kind);
    ApiReply patched = ana.patch(base + "/" + std::to_string(id), change);
    ASSERT_EQ(patched.status, 200) << patched.text;
    for (const auto& [name, value] : change.items()) EXPECT_EQ(patched.body[name], value) << name;
    for (const auto& [name, value] : sent.items())
      if (!change.contains(name)) {
        EXPECT_EQ(patched.body[name], value) << name;
      }
    EXPECT_EQ(patched.body["created_at"], created_at);
    EXPECT_EQ(patched.body["updated_at"], patched_at);
    EXPECT_EQ(ana.get(base + "/" + std::to_string(id)).body, patched.body);

    // updated_since: only the record changed after that moment.
    std::string since = format_time_s(clock_.now_ms() - 30'000);
    ApiReply recent = ana.get(base + "?updated_since=" + since + all_tab);
    ASSERT_EQ(recent.status, 200) << recent.text;
    ASSERT_EQ(recent.body["items"].size(), 1u) << recent.text;
    EXPECT_EQ(recent.body["items"][0]["id"], id);

    // Each filterable field finds it by its own value and not by another.
    for (const std::string& field : k.filterable) {
      const json& value = patched.body[field];
      if (value.is_null()) continue;
      std::string text = value.is_string() ? value.get<std::string>() : value.dump();
      ApiReply hit = ana.get(base + "?limit=200&" + field + "=" + text + all_tab);
      ASSERT_EQ(hit.status, 200) << field << ": " << hit.text;
      EXPECT_TRUE(has_id(hit.body, id)) << field;
      for (const auto& item : hit.body["items"]) EXPECT_EQ(item[field], value) << field;
    }
    // ?q= finds it by a word of its title (where the kind is searchable).
    if (!k.search.empty() && patched.body[k.search.front()].is_string()) {
      std::string word = patched.body[k.search.front()].get<std::string>();
      word = word.substr(0, word.find(' '));
      ApiReply hit = ana.get(base + "?limit=200&q=" + word + all_tab);
      ASSERT_EQ(hit.status, 200) << hit.text;
      EXPECT_TRUE(has_id(hit.body, id));
    }

    // Delete: 204 without a body; afterwards 404 for every verb.
    ApiReply gone = ana.del(base + "/" + std::to_string(id));
    EXPECT_EQ(gone.status, 204) << gone.text;
    EXPECT_TRUE(gone.text.empty());
    EXPECT_TRUE(is_problem(ana.get(base + "/" + std::to_string(id)), 404));
    EXPECT_TRUE(is_problem(ana.patch(base + "/" + std::to_string(id), change), 404));
    EXPECT_TRUE(is_problem(ana.del(base + "/" + std::to_string(id)), 404));
  }
}

TEST_P(ResourcesApiTest, ListsPageFiftyByDefaultNewestFirst) {
  ApiClient ana = client(ana_, {"write"});
  for (int i = 0; i < 55; ++i)
    ASSERT_EQ(ana.post(std::string(kApi) + "/tags", {{"name", "tag " + std::to_string(i)}}).status,
              201);
  ApiReply first = ana.get(std::string(kApi) + "/tags");
  ASSERT_EQ(first.status, 200) << first.text;
  ASSERT_EQ(first.body["items"].size(), 50u);
  EXPECT_EQ(first.body["items"][0]["name"], "tag 54");
  ASSERT_TRUE(first.body["next_cursor"].is_string()) << first.text;
  ApiReply rest =
      ana.get(std::string(kApi) + "/tags?cursor=" + first.body["next_cursor"].get<std::string>());
  ASSERT_EQ(rest.status, 200) << rest.text;
  ASSERT_EQ(rest.body["items"].size(), 5u);
  EXPECT_EQ(rest.body["items"][4]["name"], "tag 0");
  EXPECT_TRUE(rest.body["next_cursor"].is_null());
  // Another account's cursor shows nothing of hers.
  ApiClient ben = client(ben_, {"read"});
  ApiReply his =
      ben.get(std::string(kApi) + "/tags?cursor=" + first.body["next_cursor"].get<std::string>());
  ASSERT_EQ(his.status, 200);
  EXPECT_TRUE(his.body["items"].empty());
}

TEST_P(ResourcesApiTest, ASortedListWalksEveryRecordOnceInItsOrder) {
  ApiClient ana = client(ana_, {"write"});
  std::map<std::string, std::int64_t> id;
  for (const char* name : {"Delta", "alpha", "Charlie", "bravo"}) {
    ApiReply made = ana.post(std::string(kApi) + "/companies", {{"name", name}});
    ASSERT_EQ(made.status, 201) << made.text;
    id[name] = made.body["id"].get<std::int64_t>();
  }
  // A sorted page's cursor is text: it goes into the next URL encoded.
  auto walk_sorted = [&](const std::string& query) {
    std::vector<std::int64_t> ids;
    std::string cursor;
    for (int page = 0; page < 10; ++page) {
      std::string target = std::string(kApi) + "/companies?limit=1&" + query;
      if (!cursor.empty()) {
        target += "&cursor=";
        for (unsigned char c : cursor) {
          char hex[4];
          std::snprintf(hex, sizeof hex, "%%%02X", c);
          target += std::isalnum(c) ? std::string(1, static_cast<char>(c)) : std::string(hex);
        }
      }
      ApiReply r = ana.get(target);
      EXPECT_EQ(r.status, 200) << target << ": " << r.text;
      if (r.status != 200) break;
      for (const auto& item : r.body["items"]) ids.push_back(item["id"].get<std::int64_t>());
      if (r.body["next_cursor"].is_null()) break;
      cursor = r.body["next_cursor"].get<std::string>();
    }
    return ids;
  };
  EXPECT_EQ(walk_sorted("sort=name"),
            (std::vector<std::int64_t>{id["alpha"], id["bravo"], id["Charlie"], id["Delta"]}));
  EXPECT_EQ(walk_sorted("sort=name&order=desc"),
            (std::vector<std::int64_t>{id["Delta"], id["Charlie"], id["bravo"], id["alpha"]}));
  const std::string base = std::string(kApi) + "/companies?";
  for (const char* bad : {"sort=password", "order=desc", "sort=name&order=up",
                          "sort=name&cursor=12", "cursor=4.salpha"})
    EXPECT_TRUE(is_problem(ana.get(base + bad), 400)) << bad;
}

TEST_P(ResourcesApiTest, ListingFiltersAndTabsMatchThePages) {
  ApiClient ana = client(ana_, {"write"});
  auto ids = seed(ana);
  ASSERT_EQ(ids.size(), seeded_count());
  const std::string base = std::string(kApi) + "/listings";
  ApiReply other = ana.post(base, create_body("listings", ids, 5));
  ASSERT_EQ(other.status, 201);
  std::int64_t fresh = other.body["id"].get<std::int64_t>();
  ASSERT_EQ(ana.patch(base + "/" + std::to_string(fresh), {{"state", "discarded"}}).status, 200);

  // The seeded listing has a draft application: tab "shortlisted" until it is
  // sent, then "applied"; the fresh one "discarded".
  EXPECT_TRUE(has_id(ana.get(base + "?tab=shortlisted").body, ids["listings"]));
  EXPECT_FALSE(has_id(ana.get(base + "?tab=applied").body, ids["listings"]));
  const std::string app =
      std::string(kApi) + "/applications/" + std::to_string(ids["applications"]);
  ASSERT_EQ(ana.post(app + "/status", {{"status", "applied"}}).status, 200);
  ApiReply applied = ana.get(base + "?tab=applied");
  ASSERT_EQ(applied.status, 200) << applied.text;
  EXPECT_TRUE(has_id(applied.body, ids["listings"]));
  EXPECT_FALSE(has_id(applied.body, fresh));
  EXPECT_FALSE(has_id(ana.get(base + "?tab=shortlisted").body, ids["listings"]));
  ApiReply discarded = ana.get(base + "?state=discarded&tab=all");
  ASSERT_EQ(discarded.status, 200);
  ASSERT_EQ(discarded.body["items"].size(), 1u);
  EXPECT_EQ(discarded.body["items"][0]["id"], fresh);
  EXPECT_TRUE(is_problem(ana.get(base + "?tab=nonsense"), 400) ||
              is_problem(ana.get(base + "?tab=nonsense"), 422));
}

TEST_P(ResourcesApiTest, StatusChangeWritesTheTimeline) {
  ApiClient ana = client(ana_, {"write"});
  auto ids = seed(ana);
  ASSERT_EQ(ids.size(), seeded_count());
  std::string app = std::string(kApi) + "/applications/" + std::to_string(ids["applications"]);
  ApiReply before = ana.get(app);
  ASSERT_EQ(before.status, 200);
  EXPECT_EQ(before.body["status"], "draft");
  EXPECT_TRUE(before.body["applied_at"].is_null());

  clock_.advance(std::chrono::hours(1));
  ApiReply moved = ana.post(app + "/status", {{"status", "applied"}, {"note", "Sent on the site"}});
  ASSERT_EQ(moved.status, 200) << moved.text;
  EXPECT_EQ(moved.body["status"], "applied");
  EXPECT_EQ(moved.body["applied_at"], format_time_s(clock_.now_ms()));

  ApiReply timeline = ana.get(app + "/timeline");
  ASSERT_EQ(timeline.status, 200) << timeline.text;
  ASSERT_TRUE(timeline.body["items"].is_array());
  EXPECT_TRUE(timeline.body["next_cursor"].is_null());
  ASSERT_GE(timeline.body["items"].size(), 2u);  // "Application created" and this one
  const json& newest = timeline.body["items"][0];
  EXPECT_EQ(newest["kind"], "status_change");
  EXPECT_EQ(newest["from_status"], "draft");
  EXPECT_EQ(newest["to_status"], "applied");
  EXPECT_EQ(newest["body"], "Sent on the site");
  EXPECT_EQ(newest["occurred_at"], format_time_s(clock_.now_ms()));

  // An end status with its reason closes the application.
  ApiReply ended = ana.post(app + "/status", {{"status", "rejected"}, {"end_reason", "pay"}});
  ASSERT_EQ(ended.status, 200) << ended.text;
  EXPECT_EQ(ended.body["status"], "rejected");
  EXPECT_FALSE(ended.body["closed_at"].is_null());
  EXPECT_EQ(ana.get(app + "/timeline").body["items"][0]["end_reason"], "pay");

  // An unknown status is 422 naming the field, and changes nothing.
  std::string snap = snapshot();
  EXPECT_TRUE(names_field(ana.post(app + "/status", {{"status", "hired"}}), "status"));
  EXPECT_TRUE(names_field(ana.post(app + "/status", {{"status", "applied"}, {"end_reason", "pay"}}),
                          "end_reason"));
  EXPECT_EQ(snapshot(), snap);
}

// A record that others hang on is not deleted by surprise: 409 names what
// would go; ?cascade=true moves it all to the trash.
TEST_P(ResourcesApiTest, DeletingARecordWithDependentsNeedsCascade) {
  ApiClient ana = client(ana_, {"write"});
  const std::string api = kApi;
  ApiReply company = ana.post(api + "/companies", {{"name", "Acme"}});
  ASSERT_EQ(company.status, 201) << company.text;
  ApiReply listing =
      ana.post(api + "/listings", {{"role", "SRE"}, {"company_id", company.body["id"]}});
  ASSERT_EQ(listing.status, 201) << listing.text;
  const std::string path = api + "/listings/" + listing.body["id"].dump();
  ApiReply app = ana.post(api + "/applications", {{"listing_id", listing.body["id"]}});
  ASSERT_EQ(app.status, 201) << app.text;
  ASSERT_EQ(ana.post(api + "/reminders", {{"title", "Call back"},
                                          {"due_at", "2027-01-20T09:00:00Z"},
                                          {"application_id", app.body["id"]}})
                .status,
            201);

  ApiReply refused = ana.del(path);
  ASSERT_TRUE(is_problem(refused, 409)) << refused.text;
  EXPECT_EQ(refused.body["dependents"]["applications"], 1);
  EXPECT_EQ(refused.body["dependents"]["reminders"], 1);
  EXPECT_GE(refused.body["dependents"]["application_events"].get<int>(), 1);
  EXPECT_NE(refused.body["detail"].get<std::string>().find("1 application"), std::string::npos)
      << refused.text;
  EXPECT_EQ(ana.get(path).status, 200) << "nothing deleted";
  EXPECT_TRUE(is_problem(ana.del(path + "?cascade=maybe"), 422));

  ApiReply gone = ana.del(path + "?cascade=true");
  EXPECT_EQ(gone.status, 204) << gone.text;
  EXPECT_TRUE(is_problem(ana.get(path), 404));
  EXPECT_TRUE(is_problem(ana.get(api + "/applications/" + app.body["id"].dump()), 404));
  // Nothing hangs on the company now: it goes without asking.
  EXPECT_EQ(ana.del(api + "/companies/" + company.body["id"].dump()).status, 204);
}

TEST_P(ResourcesApiTest, ApplicationCreatedWithAStatus) {
  ApiClient ana = client(ana_, {"write"});
  auto ids = seed(ana);
  ASSERT_EQ(ids.size(), seeded_count());
  ApiReply made = ana.post(std::string(kApi) + "/applications",
                           {{"listing_id", ids["listings"]}, {"status", "applied"}});
  ASSERT_EQ(made.status, 201) << made.text;
  EXPECT_EQ(made.body["status"], "applied");
  EXPECT_EQ(made.body["applied_at"], format_time_s(clock_.now_ms()));
  EXPECT_EQ(made.body["listing_role"], "Engineer 0");
  ApiReply timeline =
      ana.get(std::string(kApi) + "/applications/" + made.body["id"].dump() + "/timeline");
  ASSERT_EQ(timeline.status, 200);
  EXPECT_EQ(timeline.body["items"].size(), 2u) << timeline.text;
}

TEST_P(ResourcesApiTest, TimelineAddsAPersonsEvent) {
  ApiClient ana = client(ana_, {"write"});
  auto ids = seed(ana);
  ASSERT_EQ(ids.size(), seeded_count());
  std::string timeline =
      std::string(kApi) + "/applications/" + std::to_string(ids["applications"]) + "/timeline";
  const std::string now = format_time_s(clock_.now_ms());
  ApiReply added = ana.post(timeline, {{"kind", "call"},
                                       {"summary", "Phoned HR"},
                                       {"body", "They will write back"},
                                       {"occurred_at", now}});
  ASSERT_EQ(added.status, 201) << added.text;
  EXPECT_EQ(added.body["kind"], "call");
  EXPECT_EQ(added.body["summary"], "Phoned HR");
  EXPECT_EQ(added.body["occurred_at"], now);
  ApiReply list = ana.get(timeline);
  ASSERT_EQ(list.status, 200);
  ASSERT_FALSE(list.body["items"].empty());
  EXPECT_EQ(list.body["items"][0]["id"], added.body["id"]);  // the newest by occurred_at

  std::string snap = snapshot();
  EXPECT_TRUE(
      names_field(ana.post(timeline, {{"kind", "status_change"}, {"summary", "x"}}), "kind"));
  EXPECT_TRUE(names_field(ana.post(timeline, {{"kind", "call"}, {"summary", "   "}}), "summary"));
  // The timeline is what happened: tomorrow has not.
  EXPECT_TRUE(names_field(
      ana.post(timeline, {{"kind", "call"},
                          {"summary", "Tomorrow"},
                          {"occurred_at", format_time_s(clock_.now_ms() + 24 * 3600 * 1000)}}),
      "occurred_at"));
  EXPECT_EQ(snapshot(), snap);
}

TEST_P(ResourcesApiTest, ApplicationTagsAreReplacedAsASet) {
  ApiClient ana = client(ana_, {"write"});
  auto ids = seed(ana);
  ASSERT_EQ(ids.size(), seeded_count());
  ApiReply second = ana.post(std::string(kApi) + "/tags", {{"name", "Dream job"}});
  ASSERT_EQ(second.status, 201) << second.text;
  std::string tags =
      std::string(kApi) + "/applications/" + std::to_string(ids["applications"]) + "/tags";
  EXPECT_TRUE(ana.get(tags).body["items"].empty());

  ApiReply set = ana.post(tags, {{"tag_ids", {ids["tags"], second.body["id"]}}});
  ASSERT_EQ(set.status, 200) << set.text;
  EXPECT_EQ(set.body["items"].size(), 2u);
  ApiReply one = ana.post(tags, {{"tag_ids", {second.body["id"]}}});
  ASSERT_EQ(one.status, 200) << one.text;
  ASSERT_EQ(one.body["items"].size(), 1u);
  EXPECT_EQ(one.body["items"][0]["name"], "Dream job");
  EXPECT_EQ(ana.get(tags).body, one.body);

  // Somebody else's tag, a wrong type, a missing list: 422 and nothing changes.
  ApiClient ben = client(ben_, {"write"});
  ApiReply bens = ben.post(std::string(kApi) + "/tags", {{"name", "Ben's"}});
  ASSERT_EQ(bens.status, 201) << bens.text;
  std::string snap = snapshot();
  EXPECT_TRUE(names_field(ana.post(tags, {{"tag_ids", {bens.body["id"]}}}), "tag_ids"));
  EXPECT_TRUE(names_field(ana.post(tags, {{"tag_ids", {"1"}}}), "tag_ids"));
  EXPECT_TRUE(names_field(ana.post(tags, json::object()), "tag_ids"));
  EXPECT_EQ(snapshot(), snap);
}

TEST_P(ResourcesApiTest, EventsWrittenThroughTheApiNameTheToken) {
  ApiClient ana = client(ana_, {"write"});
  auto ids = seed(ana);
  ASSERT_EQ(ids.size(), seeded_count());
  ApiReply events = ana.get(std::string(kApi) + "/applications/" +
                            std::to_string(ids["applications"]) + "/timeline");
  ASSERT_EQ(events.status, 200) << events.text;
  ASSERT_FALSE(events.body["items"].empty());
  std::set<std::string> kinds;
  for (const auto& e : events.body["items"]) {
    kinds.insert(e["kind"].get<std::string>());
    EXPECT_TRUE(e["actor"].get<std::string>().starts_with("API token ")) << e.dump();
  }
  EXPECT_TRUE(kinds.count("interview_scheduled")) << events.body.dump();
  EXPECT_TRUE(kinds.count("offer")) << events.body.dump();
}

TEST_P(ResourcesApiTest, ReminderDoneAndUndone) {
  ApiClient ana = client(ana_, {"write"});
  auto ids = seed(ana);
  ASSERT_EQ(ids.size(), seeded_count());
  std::string reminder = std::string(kApi) + "/reminders/" + std::to_string(ids["reminders"]);
  clock_.advance(std::chrono::minutes(5));
  ApiReply done = ana.post(reminder + "/done");
  ASSERT_EQ(done.status, 200) << done.text;
  EXPECT_EQ(done.body["done_at"], format_time_s(clock_.now_ms()));
  ApiReply outstanding = ana.get(std::string(kApi) + "/reminders?tab=outstanding");
  ASSERT_EQ(outstanding.status, 200);
  EXPECT_FALSE(has_id(outstanding.body, ids["reminders"]));

  ApiReply undone = ana.post(reminder + "/done", {{"done", false}});
  ASSERT_EQ(undone.status, 200) << undone.text;
  EXPECT_TRUE(undone.body["done_at"].is_null());
  EXPECT_TRUE(names_field(ana.post(reminder + "/done", {{"done", "yes"}}), "done"));
}

TEST_P(ResourcesApiTest, InterviewOutcomeMovesTheApplication) {
  ApiClient ana = client(ana_, {"write"});
  auto ids = seed(ana);
  ASSERT_EQ(ids.size(), seeded_count());
  std::string app = std::string(kApi) + "/applications/" + std::to_string(ids["applications"]);
  ASSERT_EQ(ana.post(app + "/status", {{"status", "applied"}}).status, 200);
  std::string interview = std::string(kApi) + "/interviews/" + std::to_string(ids["interviews"]);
  ApiReply held = ana.post(interview + "/outcome", {{"outcome", "done"}});
  ASSERT_EQ(held.status, 200) << held.text;
  EXPECT_EQ(held.body["outcome"], "done");
  EXPECT_EQ(ana.get(app).body["status"], "interviewing");
  EXPECT_TRUE(names_field(ana.post(interview + "/outcome", {{"outcome", "great"}}), "outcome"));
  // The outcome is read-only in PATCH: it moves only through /outcome.
  EXPECT_TRUE(names_field(ana.patch(interview, {{"outcome", "cancelled"}}), "outcome"));
}

TEST_P(ResourcesApiTest, MeShowsAndChangesTheProfile) {
  ApiClient ana(port(), token(ana_, {"profile:write"}, "Phone shortcut"));
  ApiReply me = ana.get(std::string(kApi) + "/me");
  ASSERT_EQ(me.status, 200) << me.text;
  EXPECT_EQ(me.body["id"], ana_);
  EXPECT_EQ(me.body["email"], "ana@example.com");
  EXPECT_EQ(me.body["is_admin"], true);
  EXPECT_EQ(me.body["time_zone"], "UTC");
  EXPECT_EQ(me.body["quiet_after_days"], 21);
  EXPECT_EQ(me.body["closing_notice_days"], 3);
  EXPECT_EQ(me.body["follow_up_days"], 7);
  EXPECT_EQ(me.body["remind_interviews"], true);
  EXPECT_EQ(me.body["remind_answer_by"], true);
  EXPECT_EQ(me.body["remind_closing"], false);
  EXPECT_EQ(me.body["token"]["name"], "Phone shortcut");
  EXPECT_EQ(me.body["token"]["scopes"], json::array({"profile:write"}));

  ApiReply changed = ana.patch(std::string(kApi) + "/me",
                               {{"time_zone", "Europe/Lisbon"}, {"quiet_after_days", 14}});
  ASSERT_EQ(changed.status, 200) << changed.text;
  EXPECT_EQ(changed.body["time_zone"], "Europe/Lisbon");
  EXPECT_EQ(changed.body["quiet_after_days"], 14);
  EXPECT_EQ(changed.body["closing_notice_days"], 3);
  ApiReply again = ana.get(std::string(kApi) + "/me");
  EXPECT_EQ(again.body["time_zone"], "Europe/Lisbon");
  ApiReply switched =
      ana.patch(std::string(kApi) + "/me", {{"follow_up_days", 0}, {"remind_closing", true}});
  ASSERT_EQ(switched.status, 200) << switched.text;
  EXPECT_EQ(switched.body["follow_up_days"], 0);
  EXPECT_EQ(switched.body["remind_closing"], true);
  EXPECT_EQ(switched.body["remind_interviews"], true) << "what is left out stays";
  EXPECT_TRUE(names_field(ana.patch(std::string(kApi) + "/me", {{"remind_closing", "yes"}}),
                          "remind_closing"));
  EXPECT_TRUE(names_field(ana.patch(std::string(kApi) + "/me", {{"follow_up_days", 91}}),
                          "follow_up_days"));
  EXPECT_EQ(ana.get(std::string(kApi) + "/me").body["follow_up_days"], 0) << "nothing changed";

  // Any valid token reads who it acts for; the settings need profile:read,
  // and changing them profile:write.
  ApiClient reader = client(ana_, {"listings:read"});
  ApiReply who = reader.get(std::string(kApi) + "/me");
  ASSERT_EQ(who.status, 200) << who.text;
  EXPECT_EQ(who.body["email"], "ana@example.com");
  for (const char* setting : {"language", "time_zone", "quiet_after_days", "closing_notice_days",
                              "follow_up_days", "remind_closing"})
    EXPECT_FALSE(who.body.contains(setting)) << setting;
  EXPECT_TRUE(
      client(ana_, {"profile:read"}).get(std::string(kApi) + "/me").body.contains("time_zone"));
  EXPECT_TRUE(is_problem(reader.patch(std::string(kApi) + "/me", {{"quiet_after_days", 10}}), 403));
}

TEST_P(ResourcesApiTest, OpenApiDocumentListsEveryApiRoute) {
  ApiClient anonymous(port(), "");
  ApiReply doc = anonymous.get(std::string(kApi) + "/openapi.json");
  ASSERT_EQ(doc.status, 200) << doc.text;
  EXPECT_EQ(doc.body["openapi"].get<std::string>().substr(0, 4), "3.1.");
  int routes = 0;
  for (const web::Route& route : router_.routes()) {
    if (route.pattern.rfind("/api/v1/", 0) != 0) continue;
    ++routes;
    std::string path = route.pattern.substr(std::string(kApi).size());
    std::string method = route.method;
    std::transform(method.begin(), method.end(), method.begin(), ::tolower);
    bool listed = doc.body["paths"].contains(route.pattern) &&
                  doc.body["paths"][route.pattern].contains(method);
    bool listed_relative =
        doc.body["paths"].contains(path) && doc.body["paths"][path].contains(method);
    EXPECT_TRUE(listed || listed_relative) << route.method << " " << route.pattern;
    EXPECT_FALSE(route.operation.is_null()) << route.method << " " << route.pattern;
    // Every operation states who may call it; the public ones with [].
    const auto& op = doc.body["paths"][route.pattern][method];
    EXPECT_TRUE(op.contains("security") && op["security"].is_array())
        << route.method << " " << route.pattern;
  }
  EXPECT_GE(routes, 9 * 5 + 6);
  EXPECT_EQ(doc.body["paths"]["/api/v1/openapi.json"]["get"]["security"], nlohmann::json::array());
  ASSERT_TRUE(doc.body["servers"].is_array());
  EXPECT_EQ(doc.body["servers"][0]["url"], "/");
  // Applying takes what the server accepts: the listing, a starting status,
  // the channel and the priority among them.
  const auto& apply = doc.body["paths"]["/api/v1/applications"]["post"]["requestBody"];
  EXPECT_EQ(apply["content"]["application/json"]["schema"]["$ref"],
            "#/components/schemas/ApplicationInput");
  const auto& input = doc.body["components"]["schemas"]["ApplicationInput"]["properties"];
  for (const char* field : {"listing_id", "status", "channel", "priority"})
    EXPECT_TRUE(input.contains(field)) << field;
}

PETO_BOTH_BACKENDS(ResourcesApiTest);

}  // namespace
}  // namespace peto::testing
