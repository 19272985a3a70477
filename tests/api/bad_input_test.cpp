// Bad input to /api/v1 (docs/SPEC.md §7): every malformed body, wrong type, unknown
// field, oversized value, invalid date or time zone and bad query parameter
// is a 4xx problem document, and nothing is written.
#include <gtest/gtest.h>

#include "tests/support/api_fixture.h"

namespace peto::testing {
namespace {

using nlohmann::json;

class BadInputApiTest : public ApiTest {
 protected:
  void SetUp() override {
    ApiTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    ana_client_ = std::make_unique<ApiClient>(port(), token(ana_, {"write"}));
    ids_ = seed(*ana_client_);
    ASSERT_EQ(ids_.size(), seeded_count());
  }

  const ApiClient& ana() const { return *ana_client_; }
  std::string url(const std::string& kind) const { return std::string(kApi) + "/" + kind; }
  std::string url(const std::string& kind, std::int64_t id) const {
    return url(kind) + "/" + std::to_string(id);
  }
  std::string record(const std::string& kind) const { return url(kind, ids_.at(kind)); }
  // A valid create body for `kind` with `changes` merged in (null removes a field).
  json with(const std::string& kind, const json& changes) const {
    json body = create_body(kind, ids_, 50);
    body.merge_patch(changes);
    return body;
  }

  std::unique_ptr<ApiClient> ana_client_;
  std::map<std::string, std::int64_t> ids_;
};

TEST_P(BadInputApiTest, BodiesThatAreNotOneJsonObjectAre400) {
  std::string snap = snapshot();
  const HeaderList json_type = {{"Content-Type", "application/json"}};
  for (const std::string& body :
       {std::string("{"), std::string("{\"name\": }"), std::string("{\"name\":\"Acme\"} trailing"),
        std::string("[{\"name\":\"Acme\"}]"), std::string("\"Acme\""), std::string("null"),
        std::string("42"), std::string("{\"name\":\"\xff\xfe\"}"),
        std::string("{'name':'Acme'}")}) {
    SCOPED_TRACE(body);
    EXPECT_TRUE(is_problem(ana().raw("POST", url("companies"), body, json_type), 400));
    EXPECT_TRUE(is_problem(ana().raw("PATCH", record("companies"), body, json_type), 400));
  }
  // An empty PATCH body is no change, or a 400; never a 5xx.
  ApiReply empty = ana().raw("PATCH", record("companies"), "", json_type);
  EXPECT_TRUE(empty.status == 200 || is_problem(empty, 400)) << empty.text;
  EXPECT_EQ(snapshot(), snap);
}

TEST_P(BadInputApiTest, DeeplyNestedJsonIsRefusedNotFatal) {
  std::string snap = snapshot();
  std::string deep = std::string(100'000, '[') + std::string(100'000, ']');
  EXPECT_TRUE(is_problem(
      ana().raw("POST", url("companies"), deep, {{"Content-Type", "application/json"}}), 400));
  std::string deep_object = "{\"name\":" + deep + "}";
  ApiReply r =
      ana().raw("POST", url("companies"), deep_object, {{"Content-Type", "application/json"}});
  EXPECT_TRUE(is_problem(r, 400) || is_problem(r, 422)) << r.status;
  EXPECT_EQ(snapshot(), snap);
  EXPECT_EQ(ana().get(url("companies")).status, 200);  // still serving
}

TEST_P(BadInputApiTest, WrongTypesAre422NamingTheField) {
  std::string snap = snapshot();
  struct Case {
    std::string kind;
    json changes;
    std::string field;
  };
  std::vector<Case> cases = {
      {"companies", {{"name", 5}}, "name"},
      {"companies", {{"name", true}}, "name"},
      {"companies", {{"name", {{"first", "Acme"}}}}, "name"},
      {"companies", {{"name", json::array({"Acme"})}}, "name"},
      {"listings", {{"salary_min", "50000"}}, "salary_min"},
      {"listings", {{"salary_min", 50000.5}}, "salary_min"},
      {"listings", {{"company_id", "1"}}, "company_id"},
      {"listings", {{"company_id", -1}}, "company_id"},
      {"listings", {{"remote", "sometimes"}}, "remote"},
      {"applications", {{"priority", 7}}, "priority"},
      {"applications", {{"listing_id", nullptr}}, "listing_id"},
      {"reminders", {{"due_at", 1800000000000}}, "due_at"},
      {"reminders", {{"title", nullptr}}, "title"},
      {"reminders", {{"due_on", "2027-02-30"}}, "due_on"},
      {"reminders", {{"due_at", "2027-01-20T10:00:00Z"}, {"due_on", "2027-01-21"}}, "due_on"},
      {"offers", {{"base_pay", -5}}, "base_pay"},
      {"contacts", {{"email", "not an address"}}, "email"},
      {"companies", {{"website", "javascript:alert(1)"}}, "website"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.kind + " " + c.changes.dump());
    EXPECT_TRUE(names_field(ana().post(url(c.kind), with(c.kind, c.changes)), c.field));
    json patch = c.changes;
    if (!patch.begin()->is_null()) {
      EXPECT_TRUE(names_field(ana().patch(record(c.kind), patch), c.field));
    }
  }
  EXPECT_EQ(snapshot(), snap);
}

TEST_P(BadInputApiTest, UnknownAndReadOnlyFieldsAre422) {
  std::string snap = snapshot();
  EXPECT_TRUE(
      names_field(ana().post(url("companies"), with("companies", {{"colour", "red"}})), "colour"));
  EXPECT_TRUE(names_field(ana().patch(record("companies"), {{"Name", "Acme"}}), "Name"));
  EXPECT_TRUE(names_field(ana().patch(record("companies"), {{"owner_id", ben_}}), "owner_id"));
  EXPECT_TRUE(names_field(
      ana().patch(record("companies"), {{"created_at", "2020-01-01T00:00:00Z"}}), "created_at"));
  EXPECT_TRUE(names_field(ana().patch(record("applications"), {{"status", "applied"}}), "status"));
  EXPECT_TRUE(names_field(
      ana().patch(record("applications"), {{"applied_at", "2027-01-01T00:00:00Z"}}), "applied_at"));
  EXPECT_TRUE(names_field(ana().patch(record("reminders"), {{"done_at", "2027-01-01T00:00:00Z"}}),
                          "done_at"));
  EXPECT_TRUE(names_field(
      ana().post(url("reminders"), with("reminders", {{"done_at", "2027-01-01T00:00:00Z"}})),
      "done_at"));
  EXPECT_TRUE(names_field(ana().post(record("reminders") + "/done", {{"when", "now"}}), "when"));
  EXPECT_TRUE(names_field(
      ana().post(record("applications") + "/status", {{"status", "applied"}, {"mood", "good"}}),
      "mood"));
  EXPECT_TRUE(
      names_field(ana().patch(std::string(kApi) + "/me", {{"email", "x@example.com"}}), "email"));
  EXPECT_TRUE(
      names_field(ana().patch(std::string(kApi) + "/me", {{"is_admin", false}}), "is_admin"));
  EXPECT_EQ(snapshot(), snap);
}

TEST_P(BadInputApiTest, OversizedValuesAre422AndOversizedBodiesAre413) {
  std::string snap = snapshot();
  EXPECT_TRUE(names_field(
      ana().post(url("companies"), with("companies", {{"name", std::string(201, 'a')}})), "name"));
  // Characters, not bytes: 200 two-byte letters fit, 201 do not.
  std::string a_umlaut = "\xc3\xa4";
  std::string long_name;
  for (int i = 0; i < 201; ++i) long_name += a_umlaut;
  EXPECT_TRUE(names_field(ana().patch(record("companies"), {{"name", long_name}}), "name"));
  EXPECT_TRUE(
      names_field(ana().patch(record("notes"), {{"body", std::string(20001, 'b')}}), "body"));
  EXPECT_TRUE(names_field(ana().post(record("applications") + "/timeline",
                                     {{"kind", "note"}, {"summary", std::string(251, 's')}}),
                          "summary"));
  EXPECT_TRUE(names_field(ana().post(url("tags"), {{"name", std::string(51, 't')}}), "name"));
  EXPECT_EQ(snapshot(), snap);

  std::string huge(300 * 1024, 'x');
  EXPECT_TRUE(is_problem(ana().post(url("notes"), {{"body", huge}}), 413));
  EXPECT_TRUE(is_problem(ana().patch(record("notes"), {{"body", huge}}), 413));
  // Just over the limit, and not JSON at all: the size is checked first.
  EXPECT_TRUE(is_problem(ana().raw("POST", url("notes"), std::string(256 * 1024 + 1, ' '),
                                   {{"Content-Type", "application/json"}}),
                         413));
  EXPECT_EQ(snapshot(), snap);
}

TEST_P(BadInputApiTest, InvalidDatesTimesAndTimeZonesAre422) {
  std::string snap = snapshot();
  for (const char* date : {"2027-02-30", "2027-13-01", "2027-1-5", "01/02/2027",
                           "2027-02-01T00:00:00Z", "tomorrow", "2026-02-29"}) {
    SCOPED_TRACE(date);
    EXPECT_TRUE(names_field(ana().patch(record("listings"), {{"closes_on", date}}), "closes_on"));
  }
  for (const char* moment :
       {"2027-01-20 09:00", "2027-01-20T09:00", "2027-01-20T09:00:00", "2027-01-20T25:00:00Z",
        "2027-02-30T09:00:00Z", "2027-01-20", "next monday", "+2027-01-20T09:00:00Z"}) {
    SCOPED_TRACE(moment);
    EXPECT_TRUE(names_field(ana().patch(record("reminders"), {{"due_at", moment}}), "due_at"));
    EXPECT_TRUE(
        names_field(ana().post(url("interviews"),
                               with("interviews", {{"starts_at", moment}, {"ends_at", nullptr}})),
                    "starts_at"));
  }
  EXPECT_TRUE(
      names_field(ana().post(record("applications") + "/timeline",
                             {{"kind", "call"}, {"summary", "x"}, {"occurred_at", "yesterday"}}),
                  "occurred_at"));
  EXPECT_TRUE(
      names_field(ana().post(record("applications") + "/status",
                             {{"status", "applied"}, {"applied_at", "2027-02-30T00:00:00Z"}}),
                  "applied_at"));
  EXPECT_TRUE(names_field(ana().patch(record("interviews"), {{"ends_at", "2027-01-22T09:00:00Z"}}),
                          "ends_at"));  // before it starts

  const std::string me = std::string(kApi) + "/me";
  EXPECT_TRUE(names_field(ana().patch(me, {{"time_zone", "Mars/Olympus_Mons"}}), "time_zone"));
  EXPECT_TRUE(names_field(ana().patch(me, {{"time_zone", ""}}), "time_zone"));
  EXPECT_TRUE(names_field(ana().patch(me, {{"time_zone", "../../etc/passwd"}}), "time_zone"));
  EXPECT_TRUE(names_field(ana().patch(me, {{"time_zone", 1}}), "time_zone"));
  EXPECT_TRUE(names_field(ana().patch(me, {{"quiet_after_days", -1}}), "quiet_after_days"));
  EXPECT_TRUE(names_field(ana().patch(me, {{"quiet_after_days", "14"}}), "quiet_after_days"));
  EXPECT_TRUE(
      names_field(ana().patch(me, {{"closing_notice_days", 100000}}), "closing_notice_days"));
  EXPECT_TRUE(names_field(ana().patch(me, {{"language", "xx-nonsense"}}), "language"));
  // A valid field next to an invalid one is not written either.
  EXPECT_TRUE(names_field(ana().patch(me, {{"quiet_after_days", 10}, {"time_zone", "Nowhere"}}),
                          "time_zone"));
  EXPECT_EQ(snapshot(), snap);
}

TEST_P(BadInputApiTest, BadQueryParametersAre400) {
  std::string snap = snapshot();
  for (const char* query :
       {"limit=-1", "limit=0", "limit=201", "limit=abc", "limit=1.5", "limit=99999999999999999999",
        "cursor=garbage", "cursor=%00", "updated_since=yesterday", "updated_since=2027-01-15",
        "unknown=1", "company_id=abc"}) {
    SCOPED_TRACE(query);
    EXPECT_TRUE(is_problem(ana().get(url("listings") + "?" + query), 400));
  }
  EXPECT_TRUE(is_problem(ana().get(record("companies") + "?limit=5"), 400));
  EXPECT_TRUE(
      is_problem(ana().post(url("notes") + "?draft=1", with("notes", json::object())), 400));
  EXPECT_EQ(ana().get(url("listings") + "?limit=200").status, 200);
  EXPECT_EQ(ana().get(url("listings") + "?limit=1").status, 200);
  EXPECT_EQ(snapshot(), snap);
}

TEST_P(BadInputApiTest, IdsThatAreNotIdsAreNotFound) {
  std::string snap = snapshot();
  for (const char* id : {"abc", "-1", "0", "1.0", "99999999999999999999", "1%20"}) {
    SCOPED_TRACE(id);
    ApiReply r = ana().get(url("companies") + "/" + id);
    EXPECT_TRUE(is_problem(r, 404) || is_problem(r, 400)) << r.status << " " << r.text;
    ApiReply p = ana().patch(url("companies") + "/" + id, {{"name", "X"}});
    EXPECT_TRUE(is_problem(p, 404) || is_problem(p, 400)) << p.status << " " << p.text;
  }
  EXPECT_EQ(snapshot(), snap);
}

TEST_P(BadInputApiTest, WrongContentTypeIs415) {
  std::string snap = snapshot();
  const std::string body = R"({"name":"Typed"})";
  for (const HeaderList& headers :
       std::vector<HeaderList>{{{"Content-Type", "text/plain"}},
                               {{"Content-Type", "application/x-www-form-urlencoded"}},
                               {{"Content-Type", "multipart/form-data; boundary=x"}},
                               {{"Content-Type", "application/jsonp"}},
                               {}}) {
    SCOPED_TRACE(headers.empty() ? "none" : headers[0].second);
    EXPECT_TRUE(is_problem(ana().raw("POST", url("companies"), body, headers), 415));
    EXPECT_TRUE(is_problem(ana().raw("PATCH", record("companies"), body, headers), 415));
  }
  EXPECT_TRUE(is_problem(ana().raw("POST", url("companies"), "name=Typed",
                                   {{"Content-Type", "application/x-www-form-urlencoded"}}),
                         415));
  EXPECT_EQ(snapshot(), snap);
  // With its parameters it is still JSON.
  ApiReply ok = ana().raw("POST", url("companies"), body,
                          {{"Content-Type", "application/json; charset=utf-8"}});
  EXPECT_EQ(ok.status, 201) << ok.text;
}

PETO_BOTH_BACKENDS(BadInputApiTest);

}  // namespace
}  // namespace peto::testing
