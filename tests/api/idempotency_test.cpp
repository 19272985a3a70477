// Idempotency-Key on POST: a repeated request answers the first response
// without acting again, for 24 hours, per account; a different request under
// the same key is 422; a failed request does not use the key up.
#include <gtest/gtest.h>

#include <functional>
#include <latch>
#include <set>
#include <thread>

#include "tests/support/api_fixture.h"

namespace peto::testing {
namespace {

using nlohmann::json;

class IdempotencyApiTest : public ApiTest {
 protected:
  static HeaderList key(const std::string& k) { return {{"Idempotency-Key", k}}; }
  const std::string notes_ = std::string(kApi) + "/notes";

  // `n` threads send `post` together (released by one latch); their answers.
  // A thread whose request threw keeps status 0 and the error as its text.
  static std::vector<ApiReply> at_once(int n, const std::function<ApiReply()>& post) {
    std::vector<ApiReply> replies(n);
    std::latch start(n);
    std::vector<std::thread> threads;
    for (int i = 0; i < n; ++i) {
      threads.emplace_back([&, i] {
        start.arrive_and_wait();
        try {
          replies[i] = post();
        } catch (const std::exception& e) {
          replies[i].text = e.what();
        }
      });
    }
    for (auto& t : threads) t.join();
    return replies;
  }
};

TEST_P(IdempotencyApiTest, TwentyConcurrentPostsWithOneKeyCreateOneRecord) {
  ApiClient ana = client(ana_, {"write"});
  std::vector<ApiReply> replies = at_once(20, [&] {
    return ana.post(notes_, {{"body", "Only once"}}, key("concurrent-1"));
  });

  EXPECT_EQ(count("notes"), 1);
  std::set<json> ids;
  int created = 0;
  int replayed = 0;
  for (const ApiReply& r : replies) {
    ASSERT_NE(r.status, 0) << "no answer: " << r.text;
    EXPECT_LT(r.status, 500) << r.text;
    if (r.status >= 200 && r.status < 300) {
      EXPECT_EQ(r.status, 201);
      ids.insert(r.body["id"]);
      (r.header("Idempotent-Replayed") == "true" ? replayed : created) += 1;
    } else {
      // A request that lost the race may be told to retry (409), never more.
      EXPECT_TRUE(is_problem(r, r.status)) << r.text;
      EXPECT_EQ(r.status, 409) << r.text;
    }
  }
  EXPECT_EQ(ids.size(), 1u);
  EXPECT_EQ(created, 1);
  EXPECT_GE(created + replayed, 1);
}

// Without a key, twenty racing creates of one company name make one company;
// the others are told why (422 name taken, or 409 retry), never a 500.
TEST_P(IdempotencyApiTest, RacingCreatesOfOneNameNeverFail) {
  ApiClient ana = client(ana_, {"write"});
  std::vector<ApiReply> replies = at_once(20, [&] {
    return ana.post(std::string(kApi) + "/companies", {{"name", "Racing Ltd"}});
  });
  EXPECT_EQ(count("companies"), 1);
  int created = 0;
  for (const ApiReply& r : replies) {
    ASSERT_NE(r.status, 0) << "no answer: " << r.text;
    if (r.status == 201) {
      ++created;
    } else {
      EXPECT_TRUE(r.status == 409 || r.status == 422) << r.status << " " << r.text;
      EXPECT_TRUE(is_problem(r, r.status));
    }
  }
  EXPECT_EQ(created, 1);
}

TEST_P(IdempotencyApiTest, ReplayAnswersTheFirstResponseWithoutActing) {
  ApiClient ana = client(ana_, {"write"});
  ApiReply first = ana.post(notes_, {{"body", "Hello"}}, key("replay-1"));
  ASSERT_EQ(first.status, 201) << first.text;
  EXPECT_TRUE(first.header("Idempotent-Replayed").empty());
  std::string snap = snapshot();

  clock_.advance(std::chrono::hours(23));
  ApiReply again = ana.post(notes_, {{"body", "Hello"}}, key("replay-1"));
  EXPECT_EQ(again.status, 201);
  EXPECT_EQ(again.body, first.body);  // created_at is the first one's, not now
  EXPECT_EQ(again.header("Idempotent-Replayed"), "true");
  EXPECT_EQ(again.media_type(), "application/json");
  EXPECT_EQ(snapshot(), snap);

  // The same body with other whitespace or key order is the same request.
  ApiReply spaced =
      ana.raw("POST", notes_, "{ \"body\" : \"Hello\" }",
              {{"Content-Type", "application/json"}, {"Idempotency-Key", "replay-1"}});
  EXPECT_TRUE(spaced.status == 201 || spaced.status == 422) << spaced.text;
  EXPECT_EQ(snapshot(), snap);

  // A status change replays too, and does not write a second event.
  ApiReply company = ana.post(std::string(kApi) + "/companies", {{"name", "Acme"}});
  ASSERT_EQ(company.status, 201);
  ApiReply listing = ana.post(std::string(kApi) + "/listings",
                              {{"role", "Engineer"}, {"company_id", company.body["id"]}});
  ASSERT_EQ(listing.status, 201);
  ApiReply app =
      ana.post(std::string(kApi) + "/applications", {{"listing_id", listing.body["id"]}});
  ASSERT_EQ(app.status, 201);
  std::string status = std::string(kApi) + "/applications/" + app.body["id"].dump() + "/status";
  ASSERT_EQ(ana.post(status, {{"status", "applied"}}, key("status-1")).status, 200);
  std::int64_t events = count("application_events");
  ApiReply moved_again = ana.post(status, {{"status", "applied"}}, key("status-1"));
  EXPECT_EQ(moved_again.status, 200);
  EXPECT_EQ(moved_again.header("Idempotent-Replayed"), "true");
  EXPECT_EQ(count("application_events"), events);
}

TEST_P(IdempotencyApiTest, SameKeyOtherRequestIs422) {
  ApiClient ana = client(ana_, {"write"});
  ASSERT_EQ(ana.post(notes_, {{"body", "First"}}, key("k-2")).status, 201);
  std::string snap = snapshot();
  EXPECT_TRUE(is_problem(ana.post(notes_, {{"body", "Second"}}, key("k-2")), 422));
  EXPECT_TRUE(
      is_problem(ana.post(std::string(kApi) + "/tags", {{"name", "First"}}, key("k-2")), 422));
  EXPECT_EQ(snapshot(), snap);
}

TEST_P(IdempotencyApiTest, KeysBelongToOneAccount) {
  ApiClient ana = client(ana_, {"write"});
  ApiClient ben = client(ben_, {"write"});
  ApiReply hers = ana.post(notes_, {{"body", "Mine"}}, key("shared-key"));
  ASSERT_EQ(hers.status, 201);
  ApiReply his = ben.post(notes_, {{"body", "Mine"}}, key("shared-key"));
  ASSERT_EQ(his.status, 201) << his.text;
  EXPECT_NE(his.body["id"], hers.body["id"]);
  EXPECT_TRUE(his.header("Idempotent-Replayed").empty());
  EXPECT_EQ(count("notes"), 2);
}

TEST_P(IdempotencyApiTest, AfterADayTheKeyIsNewAgain) {
  ApiClient ana = client(ana_, {"write"});
  ApiReply first = ana.post(notes_, {{"body", "Daily"}}, key("daily"));
  ASSERT_EQ(first.status, 201);
  clock_.advance(std::chrono::hours(24) + std::chrono::minutes(1));
  ApiReply next = ana.post(notes_, {{"body", "Daily"}}, key("daily"));
  ASSERT_EQ(next.status, 201) << next.text;
  EXPECT_TRUE(next.header("Idempotent-Replayed").empty());
  EXPECT_NE(next.body["id"], first.body["id"]);
  EXPECT_EQ(count("notes"), 2);
}

TEST_P(IdempotencyApiTest, AFailedPostDoesNotUseTheKeyUp) {
  ApiClient ana = client(ana_, {"write"});
  std::string snap = snapshot();
  EXPECT_TRUE(names_field(ana.post(notes_, {{"body", ""}}, key("retry-me")), "body"));
  EXPECT_EQ(snapshot(), snap);
  ApiReply fixed = ana.post(notes_, {{"body", "Now right"}}, key("retry-me"));
  ASSERT_EQ(fixed.status, 201) << fixed.text;
  EXPECT_TRUE(fixed.header("Idempotent-Replayed").empty());
  EXPECT_EQ(count("notes"), 1);
}

TEST_P(IdempotencyApiTest, MalformedKeysAreRefused) {
  ApiClient ana = client(ana_, {"write"});
  std::string snap = snapshot();
  for (const std::string& bad :
       {std::string(256, 'k'), std::string("two words"), std::string("caf\xc3\xa9")}) {
    SCOPED_TRACE("key '" + bad + "'");
    ApiReply r = ana.post(notes_, {{"body", "Keyed"}}, key(bad));
    EXPECT_TRUE(is_problem(r, 400) || is_problem(r, 422)) << r.status << " " << r.text;
  }
  EXPECT_EQ(snapshot(), snap);
  EXPECT_EQ(ana.post(notes_, {{"body", "Keyed"}}, key(std::string(255, 'k'))).status, 201);
}

PETO_BOTH_BACKENDS(IdempotencyApiTest);

}  // namespace
}  // namespace peto::testing
