// Document copies on both backends: planning, the three stores against real
// files and loopback servers, the retry schedule, the claim, and docs/RULES.md #1172's
// budget. Time only moves when the test moves the fake clock.
#include <sodium.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "connections/connections.h"
#include "core/token.h"
#include "media/copies.h"
#include "media/sigv4.h"
#include "media/stores.h"
#include "steps/copies.h"
#include "tests/support/engine_fixture.h"
#include "tests/support/factory.h"
#include "tests/support/store_servers.h"

namespace peto {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::StoreServer;

constexpr Millis kMinute = 60'000;

class CopiesTest : public testing::EngineTest {
 protected:
  void SetUp() override {
    EngineTest::SetUp();
    if (IsSkipped()) return;
    config_.secret_key = "copies-test-secret-key-0123456789abcdef";
    config_.allow_private_destinations = true;  // the servers are on 127.0.0.1
    owner_ = account("ada@example.com");
  }

  Millis now() const { return clock_.now_ms(); }
  // Where a local-folder store of `owner` (default ada) writes.
  fs::path account_root(std::int64_t owner = 0) const {
    return fs::path(config_.local_store_root()) / std::to_string(owner ? owner : owner_);
  }

  std::int64_t account(const std::string& email) {
    return testing::Factory(db(), clock_).account(email);
  }

  std::variant<connections::Connection, notify::ConfigErrors> make(const std::string& plugin,
                                                                   json values,
                                                                   std::int64_t owner = 0) {
    return connections::Connections(db(), clock_, config_)
        .create(owner ? owner : owner_, plugin, plugin, values);
  }
  std::int64_t store(const std::string& plugin, json values, std::int64_t owner = 0) {
    auto made = make(plugin, std::move(values), owner);
    if (auto* e = std::get_if<notify::ConfigErrors>(&made)) {
      ADD_FAILURE() << plugin << " refused: " << e->begin()->first << " " << e->begin()->second;
      return 0;
    }
    return std::get<connections::Connection>(made).id;
  }
  std::int64_t dav(StoreServer& server, const std::string& folder = "peto/docs") {
    server.expect_authorization("Basic YWRhOnMzY3IzdA==");  // ada:s3cr3t
    return store("webdav", {{"url", server.url("/dav")},
                            {"folder", folder},
                            {"username", "ada"},
                            {"password", "s3cr3t"}});
  }

  // A document uploaded through the Documents service: the file under the
  // media folder, its uploads row and its copies planned. The type is sniffed
  // from `bytes`: "%PDF-1.7 …" is a PDF, other short text text/plain.
  std::int64_t document(const std::string& bytes, const std::string& filename = "cv.pdf") {
    return testing::Factory(db(), clock_)
        .document(config_, owner_, bytes, {.filename = filename, .title = filename});
  }

  engine::StepResult run_step() {
    steps::Copies step;
    store::Cache cache(db(), clock_);
    engine::PassContext ctx{db(), cache, clock_, config_, std::chrono::milliseconds(0), "test"};
    return step.run(ctx);
  }
  json copy(std::int64_t upload, std::int64_t connection) {
    auto rows = db().query(
        "SELECT status, attempts, next_attempt_at, claimed_until, last_error, external_id,"
        " external_url, sent_at FROM document_copies WHERE upload_id = ? AND connection_id = ?",
        {upload, connection});
    if (rows.empty()) return nullptr;
    const auto& r = rows[0];
    return {{"status", r.text(0)},
            {"attempts", r.int_at(1)},
            {"next_in", r.int_at(2) == 0 ? json(nullptr) : json(r.int_at(2) - now())},
            {"claimed", !r.is_null(3)},
            {"last_error", r.text(4)},
            {"external_id", r.text(5)},
            {"external_url", r.text(6)},
            {"sent", !r.is_null(7)}};
  }
  std::int64_t copy_id(std::int64_t upload, std::int64_t connection) {
    return db()
        .query("SELECT id FROM document_copies WHERE upload_id = ? AND connection_id = ?",
               {upload, connection})[0]
        .int_at(0);
  }
  std::int64_t count(const std::string& sql, const store::Params& p = {}) {
    return db().query(sql, p)[0].int_at(0);
  }
  media::Copies copies() { return media::Copies(db(), clock_, config_, http_); }

  std::int64_t owner_ = 0;
  net::HttpClient http_;
};

TEST_P(CopiesTest, OneCopyIsPlannedPerEnabledStoreAndPlanningAgainAddsNothing) {
  auto local = store("local", {{"folder", "ada"}});
  auto off = store("local", {{"folder", "off"}});
  connections::Connections(db(), clock_, config_)
      .update(owner_, off, std::nullopt, json::object(), false);
  auto other = account("bob@example.com");
  store("local", {{"folder", "bob"}}, other);
  auto doc = document("%PDF-1.7 one");
  {
    auto conn = db().acquire();
    media::plan_copies_in(*conn, owner_, doc, now());
    media::plan_copies_in(*conn, owner_, doc, now() + kMinute);
  }
  EXPECT_EQ(count("SELECT COUNT(*) FROM document_copies"), 1);
  EXPECT_EQ(copy(doc, local)["status"], "pending");
  EXPECT_EQ(copy(doc, local)["attempts"], 0);

  auto conn = db().acquire();
  auto views = media::list_copies(*conn, owner_, doc);
  ASSERT_EQ(views.size(), 1u);
  EXPECT_EQ(views[0].plugin, "local");
  EXPECT_EQ(views[0].status, "pending");
  EXPECT_TRUE(media::list_copies(*conn, other, doc).empty());  // somebody else's: nothing
}

TEST_P(CopiesTest, TheLocalStoreWritesTheSameBytesBelowItsRootOnly) {
  auto local = store("local", {{"folder", "ada/cv"}});
  const std::string bytes = std::string("%PDF-1.7\n\0binary\xff", 18);
  auto doc = document(bytes, "My CV (final).pdf");
  auto counts = run_step();
  EXPECT_EQ(counts["sent"], 1);
  auto c = copy(doc, local);
  EXPECT_EQ(c["status"], "sent");
  EXPECT_EQ(c["attempts"], 1);
  EXPECT_FALSE(c["claimed"]);
  EXPECT_TRUE(c["sent"]);
  std::string name = std::to_string(doc) + "-My_CV__final_.pdf";
  EXPECT_EQ(c["external_id"], "ada/cv/" + name);
  fs::path written = account_root() / "ada/cv" / name;
  std::ifstream in(written, std::ios::binary);
  std::string got((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(got, bytes);
  // Only the file: no temporary left beside it.
  EXPECT_EQ(std::distance(fs::directory_iterator(written.parent_path()), fs::directory_iterator()),
            1);
  // The connection is marked working.
  EXPECT_EQ(
      count("SELECT COUNT(*) FROM connections WHERE id = ? AND last_ok_at IS NOT NULL", {local}),
      1);

  // Nothing that leads out of the root is accepted, and nothing is written.
  auto before = count("SELECT COUNT(*) FROM connections");
  for (std::string folder : {"../outside", "/etc", "a/../../b", "a/./b"}) {
    auto made = make("local", {{"folder", folder}});
    ASSERT_TRUE(std::holds_alternative<notify::ConfigErrors>(made)) << folder;
    EXPECT_TRUE(std::get<notify::ConfigErrors>(made).count("folder")) << folder;
  }
  // Nor through a link inside the root that points elsewhere.
  fs::path outside = dir() / "outside";
  fs::create_directories(outside);
  fs::create_directory_symlink(outside, fs::path(config_.local_store_root()) / "link");
  auto made = make("local", {{"folder", "link/x"}});
  ASSERT_TRUE(std::holds_alternative<notify::ConfigErrors>(made));
  EXPECT_EQ(count("SELECT COUNT(*) FROM connections"), before);

  // A link put in place after the connection was saved: refused before the
  // copy, no attempt spent, nothing written outside.
  auto later = store("local", {{"folder", "later"}});
  fs::create_directory_symlink(outside, account_root() / "later");
  auto doc2 = document("second");
  counts = run_step();
  EXPECT_EQ(counts["failed"], 1);
  EXPECT_EQ(copy(doc2, later)["attempts"], 0);
  EXPECT_EQ(copy(doc2, later)["status"], "pending");
  EXPECT_EQ(copy(doc2, later)["next_in"], 5 * kMinute);
  EXPECT_NE(copy(doc2, later)["last_error"].get<std::string>().find("leads out"),
            std::string::npos);
  EXPECT_TRUE(fs::is_empty(outside));
}

// One server, several accounts: each local-folder store writes below its own
// account's folder, so the same folder name is two folders, and one account
// cannot put files into another's.
TEST_P(CopiesTest, EachAccountsLocalFolderIsItsOwn) {
  auto ben = account("ben@example.com");
  auto adas = store("local", {{"folder", "shared"}});
  auto bens = store("local", {{"folder", "shared"}}, ben);
  auto doc = document("%PDF-1.7 ada's");
  auto other = testing::Factory(db(), clock_)
                   .document(config_, ben, "%PDF-1.7 ben's", {.filename = "cv.pdf", .title = "cv"});
  EXPECT_EQ(run_step()["sent"], 2);
  EXPECT_EQ(copy(doc, adas)["status"], "sent");
  EXPECT_EQ(copy(other, bens)["status"], "sent");
  EXPECT_TRUE(fs::exists(account_root() / "shared" / (std::to_string(doc) + "-cv.pdf")));
  EXPECT_TRUE(fs::exists(account_root(ben) / "shared" / (std::to_string(other) + "-cv.pdf")));
  EXPECT_FALSE(fs::exists(account_root(ben) / "shared" / (std::to_string(doc) + "-cv.pdf")));
  EXPECT_EQ(copy(doc, adas)["external_id"], "shared/" + std::to_string(doc) + "-cv.pdf")
      << "named within the account's folder";
}

TEST_P(CopiesTest, WebDavMakesTheFolderThenPutsTheFile) {
  StoreServer server;
  auto conn_id = dav(server);
  auto doc = document("%PDF-1.7 dav bytes", "cv.pdf");
  EXPECT_EQ(run_step()["sent"], 1);
  auto c = copy(doc, conn_id);
  EXPECT_EQ(c["status"], "sent");
  const std::string path = "/dav/peto/docs/" + std::to_string(doc) + "-cv.pdf";
  EXPECT_EQ(c["external_url"], server.url(path));
  EXPECT_EQ(c["external_id"], "peto/docs/" + std::to_string(doc) + "-cv.pdf");
  EXPECT_EQ(server.files().at(path), "%PDF-1.7 dav bytes");
  // PUT (409: no folder), MKCOL peto, MKCOL peto/docs, PUT again.
  auto got = server.received();
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0].method, "PUT");
  EXPECT_EQ(got[1].method, "MKCOL");
  EXPECT_EQ(got[1].path, "/dav/peto/");
  EXPECT_EQ(got[2].path, "/dav/peto/docs/");
  EXPECT_EQ(got[3].method, "PUT");
  EXPECT_EQ(got[3].headers["content-type"], "application/pdf");

  // The next document goes straight in: the folder is there.
  auto doc2 = document("second");
  EXPECT_EQ(run_step()["sent"], 1);
  EXPECT_EQ(server.received().size(), 5u);
  EXPECT_EQ(copy(doc2, conn_id)["status"], "sent");
}

TEST_P(CopiesTest, AWebDavAddressThatDoesNotExistFailsNamingTheFolder) {
  StoreServer server;
  server.expect_authorization("Basic YWRhOnMzY3IzdA==");
  auto conn_id = store("webdav", {{"url", server.url("/nowhere/")},
                                  {"folder", "peto"},
                                  {"username", "ada"},
                                  {"password", "s3cr3t"}});
  auto doc = document("x doc");
  EXPECT_EQ(run_step()["failed"], 1);
  auto c = copy(doc, conn_id);
  EXPECT_EQ(c["status"], "failed");
  EXPECT_NE(c["last_error"].get<std::string>().find("/nowhere/peto/"), std::string::npos)
      << c["last_error"];
}

TEST_P(CopiesTest, S3SignsThePutAndSendsTheBodyItsHashNames) {
  StoreServer server;
  auto conn_id = store("s3", {{"endpoint", server.url("")},
                              {"region", "eu-west-1"},
                              {"bucket", "bucket"},
                              {"prefix", "peto/"},
                              {"path_style", true},
                              {"access_key_id", "AKIDPETOTEST"},
                              {"secret_access_key", "secret/key+example"}});
  const std::string bytes = "%PDF s3 bytes";
  auto doc = document(bytes, "cv.pdf");
  EXPECT_EQ(run_step()["sent"], 1);
  auto puts = server.puts();
  ASSERT_EQ(puts.size(), 1u);
  auto& put = puts[0];
  const std::string key_path = "/bucket/peto/" + std::to_string(doc) + "-cv.pdf";
  EXPECT_EQ(put.path, key_path);
  EXPECT_EQ(put.body, bytes);
  EXPECT_EQ(put.headers["x-amz-content-sha256"], sha256_hex(put.body));
  const std::string date = media::sigv4::amz_date(now());
  EXPECT_EQ(put.headers["x-amz-date"], date);
  // The Authorization header has the SigV4 shape, and its signature is the
  // one the server computes from what it received.
  const std::string& auth = put.headers["authorization"];
  const std::string scope = date.substr(0, 8) + "/eu-west-1/s3/aws4_request";
  EXPECT_EQ(auth.rfind("AWS4-HMAC-SHA256 Credential=AKIDPETOTEST/" + scope +
                           ", SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date, "
                           "Signature=",
                       0),
            0u)
      << auth;
  media::sigv4::Request seen{"PUT",
                             put.target,
                             "",
                             {{"content-type", put.headers["content-type"]},
                              {"host", put.headers["host"]},
                              {"x-amz-content-sha256", put.headers["x-amz-content-sha256"]},
                              {"x-amz-date", put.headers["x-amz-date"]}},
                             put.headers["x-amz-content-sha256"]};
  EXPECT_EQ(auth, media::sigv4::authorization(
                      seen, {"AKIDPETOTEST", "secret/key+example", "eu-west-1", "s3"}, date));
  auto c = copy(doc, conn_id);
  EXPECT_EQ(c["status"], "sent");
  EXPECT_EQ(c["external_id"], "peto/" + std::to_string(doc) + "-cv.pdf");
  EXPECT_EQ(c["external_url"], server.url(key_path));
}

TEST_P(CopiesTest, AFailingStoreIsTriedSixTimesOnADoublingScheduleThenLeftUntilSendNow) {
  StoreServer server;
  auto conn_id = dav(server);
  server.set_status(503);
  auto doc = document("retry me");
  const std::vector<Millis> waits = {5, 10, 20, 40, 80};
  for (int attempt = 1; attempt <= 6; ++attempt) {
    EXPECT_EQ(run_step()["failed"], 1) << attempt;
    auto c = copy(doc, conn_id);
    EXPECT_EQ(c["status"], "failed");
    EXPECT_EQ(c["attempts"], attempt);
    EXPECT_FALSE(c["claimed"]);
    EXPECT_NE(c["last_error"].get<std::string>().find("503"), std::string::npos);
    if (attempt < 6) {
      EXPECT_EQ(c["next_in"], waits[attempt - 1] * kMinute) << attempt;
      clock_.advance(std::chrono::milliseconds(waits[attempt - 1] * kMinute - 1));
      EXPECT_TRUE(run_step().all_zero()) << "not due a millisecond early";
      clock_.advance(std::chrono::milliseconds(1));
    }
  }
  EXPECT_EQ(server.puts().size(), 6u);
  // After the sixth failure it is never due again.
  clock_.advance(std::chrono::hours(24 * 30));
  EXPECT_TRUE(copies().due().empty());
  EXPECT_TRUE(run_step().all_zero());
  EXPECT_EQ(server.puts().size(), 6u);

  // "Send now" resets the attempts and tries at once.
  server.set_status(0);
  auto outcome = copies().send_now(owner_, copy_id(doc, conn_id));
  ASSERT_TRUE(outcome);
  EXPECT_EQ(*outcome, media::CopyOutcome::sent);
  auto c = copy(doc, conn_id);
  EXPECT_EQ(c["status"], "sent");
  EXPECT_EQ(c["attempts"], 1);
  EXPECT_EQ(c["last_error"], "");
  // Not somebody else's, and not one already sent.
  EXPECT_FALSE(copies().send_now(account("eve@example.com"), copy_id(doc, conn_id)));
  EXPECT_EQ(copies().send_now(owner_, copy_id(doc, conn_id)), media::CopyOutcome::busy);
}

TEST_P(CopiesTest, AClaimTakesOnlyACopyThatIsStillDue) {
  StoreServer server;
  auto conn_id = dav(server);
  server.set_status(503);
  auto doc = document("still due?");
  auto ids = copies().due();  // one sender reads the copy...
  ASSERT_EQ(ids.size(), 1u);
  EXPECT_EQ(run_step()["failed"], 1);  // ...another tries it first: it waits 5 minutes now
  EXPECT_FALSE(copies().claim(ids[0]));
  EXPECT_EQ(copy(doc, conn_id)["attempts"], 1);
  // Declined, or its owner made inactive: not claimed either.
  clock_.advance(std::chrono::minutes(5));
  db().query("UPDATE users SET active = 0 WHERE id = ?", {owner_});
  EXPECT_FALSE(copies().claim(ids[0]));
  db().query("UPDATE users SET active = 1 WHERE id = ?", {owner_});
  db().query("UPDATE document_copies SET status = 'declined' WHERE id = ?", {ids[0]});
  EXPECT_FALSE(copies().claim(ids[0]));
  db().query("UPDATE document_copies SET status = 'failed' WHERE id = ?", {ids[0]});
  EXPECT_TRUE(copies().claim(ids[0]));
  EXPECT_EQ(server.puts().size(), 1u);
}

TEST_P(CopiesTest, ACopyWhoseRowVanishedWhileSendingIsNotCountedAsSent) {
  StoreServer server;
  server.make_collection("/dav/peto/");
  auto conn_id = dav(server, "peto");
  auto doc = document("deleted mid-send");
  auto id = copy_id(doc, conn_id);
  server.on_put([&](const testing::StoreRequest&) {
    db().query("DELETE FROM document_copies WHERE id = ?", {id});
    return 0;
  });
  auto counts = run_step();
  EXPECT_EQ(server.puts().size(), 1u);
  EXPECT_EQ(counts["sent"], 0);
  EXPECT_EQ(counts["failed"], 0);
}

TEST_P(CopiesTest, TwoDocumentsWithALongNameKeepTheirOwnNames) {
  store("local", {{"folder", "long"}});
  const std::string name = std::string(126, 'n') + ".pdf";  // 130 characters
  auto first = document("first version", name);
  auto second = document("second version", name);
  EXPECT_EQ(run_step()["sent"], 2);
  const std::string kept = std::string(96, 'n') + ".pdf";
  fs::path folder = account_root() / "long";
  for (auto [doc, bytes] : {std::pair{first, std::string("first version")},
                            std::pair{second, std::string("second version")}}) {
    std::ifstream in(folder / (std::to_string(doc) + "-" + kept), std::ios::binary);
    std::string got((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(got, bytes) << doc;
  }
}

TEST_P(CopiesTest, ADeclinedCopyIsNotTriedAgain) {
  StoreServer server;
  auto conn_id = dav(server);
  server.set_status(413);
  auto doc = document("too large");
  EXPECT_EQ(run_step()["failed"], 1);  // counted with the failures, as Postulo counts
  auto c = copy(doc, conn_id);
  EXPECT_EQ(c["status"], "declined");
  EXPECT_EQ(c["attempts"], 1);
  EXPECT_NE(c["last_error"].get<std::string>().find("413"), std::string::npos);
  clock_.advance(std::chrono::hours(24));
  EXPECT_TRUE(run_step().all_zero());
  EXPECT_EQ(server.puts().size(), 1u);
}

TEST_P(CopiesTest, RefusedCredentialsRetireTheConnection) {
  StoreServer server;
  auto conn_id = dav(server);
  server.expect_authorization("Basic c29tZWJvZHk6ZWxzZQ==");  // not ada's
  auto doc = document("x doc");
  auto doc2 = document("y doc");
  // The second copy was already due: it fails without a request (its
  // connection is off now), as docs/SPEC.md §6 (Stores) says.
  EXPECT_EQ(run_step()["failed"], 2);
  EXPECT_EQ(server.puts().size(), 1u);
  EXPECT_EQ(copy(doc, conn_id)["status"], "failed");
  auto row = db().query(
      "SELECT enabled, last_error, secrets_encrypted FROM connections"
      " WHERE id = ?",
      {conn_id})[0];
  EXPECT_EQ(row.int_at(0), 0);
  EXPECT_NE(row.text(1).find("401"), std::string::npos);
  EXPECT_EQ(row.text(2), "");  // its secrets are wiped
  clock_.advance(std::chrono::hours(1));
  EXPECT_TRUE(run_step().all_zero());
  EXPECT_EQ(copy(doc2, conn_id)["attempts"], 1);
  EXPECT_EQ(server.puts().size(), 1u);
}

TEST_P(CopiesTest, TwoStepsAtOnceNeverSendACopyTwice) {
  StoreServer server;
  server.make_collection("/dav/peto/");
  dav(server, "peto");
  std::vector<std::int64_t> docs;
  for (int i = 0; i < 20; ++i) docs.push_back(document("doc " + std::to_string(i)));
  engine::StepResult a, b;
  std::thread other([&] { b = run_step(); });
  a = run_step();
  other.join();
  EXPECT_EQ(a["sent"] + b["sent"], 20);
  std::map<std::string, int> per_path;
  for (const auto& put : server.puts()) ++per_path[put.path];
  EXPECT_EQ(per_path.size(), 20u);
  for (const auto& [path, n] : per_path) EXPECT_EQ(n, 1) << path;
  EXPECT_EQ(count("SELECT COUNT(*) FROM document_copies WHERE status = 'sent'"), 20);
}

TEST_P(CopiesTest, AHangingStoreStopsNewCopiesAfterSixtySecondsAndTheRestGoFirstNextPass) {
  StoreServer server;
  server.make_collection("/dav/peto/");
  auto conn_id = dav(server, "peto");
  // Every upload takes the store 25 s.
  server.on_put([&](const testing::StoreRequest&) {
    clock_.advance(std::chrono::seconds(25));
    return 0;
  });
  std::vector<std::int64_t> docs;
  for (int i = 0; i < 5; ++i) docs.push_back(document("doc " + std::to_string(i)));
  // A copy that failed earlier and is due again now: it waits behind the ones left.
  auto waiting = document("failed before", "old.pdf");
  db().query(
      "UPDATE document_copies SET status = 'failed', attempts = 2,"
      " next_attempt_at = ? WHERE upload_id = ?",
      {now() + 30 * kMinute, waiting});

  auto counts = run_step();
  // Started at 0 s, 25 s and 50 s; at 75 s the budget is spent.
  EXPECT_EQ(counts["sent"], 3);
  EXPECT_EQ(counts["left"], 2);
  EXPECT_EQ(counts.summary(), std::vector<std::string>{"3 document copies sent"})
      << "what is left is counted, not summarised";
  for (int i = 0; i < 3; ++i) EXPECT_EQ(copy(docs[i], conn_id)["status"], "sent");
  for (int i = 3; i < 5; ++i) {
    auto c = copy(docs[i], conn_id);
    EXPECT_EQ(c["status"], "pending");
    EXPECT_EQ(c["attempts"], 0);  // neither tried
    EXPECT_FALSE(c["claimed"]);   // nor claimed
  }

  clock_.advance(std::chrono::minutes(30));
  counts = run_step();
  EXPECT_EQ(counts["sent"], 3);
  auto puts = server.puts();
  ASSERT_EQ(puts.size(), 6u);
  // The two left over go first, then the one that waited for its retry.
  EXPECT_EQ(puts[3].path, "/dav/peto/" + std::to_string(docs[3]) + "-cv.pdf");
  EXPECT_EQ(puts[4].path, "/dav/peto/" + std::to_string(docs[4]) + "-cv.pdf");
  EXPECT_EQ(puts[5].path, "/dav/peto/" + std::to_string(waiting) + "-old.pdf");
}

TEST_P(CopiesTest, AnInactiveOwnersCopiesWaitAndADamagedFileIsNotSent) {
  auto local = store("local", {{"folder", "ada"}});
  auto doc = document("original");
  db().query("UPDATE users SET active = 0 WHERE id = ?", {owner_});
  EXPECT_TRUE(run_step().all_zero());
  db().query("UPDATE users SET active = 1 WHERE id = ?", {owner_});
  auto file = db().query("SELECT file FROM uploads WHERE id = ?", {doc})[0].text(0);
  std::ofstream(fs::path(config_.media_dir()) / file, std::ios::binary) << "tampered";
  EXPECT_EQ(run_step()["failed"], 1);
  auto c = copy(doc, local);
  EXPECT_EQ(c["status"], "failed");
  EXPECT_NE(c["last_error"].get<std::string>().find("checksum"), std::string::npos);
  fs::path folder = account_root() / "ada";
  EXPECT_TRUE(!fs::exists(folder) || fs::is_empty(folder));
}

PETO_BOTH_BACKENDS(CopiesTest);

}  // namespace
}  // namespace peto
