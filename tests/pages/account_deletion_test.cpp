// Deleting an account deletes it (both backends): after Ana deletes hers, no
// row of any table names her — every column that refers to users, and every
// owner_id and user_id, found by walking the schema rather than from a list —
// and none of her files is left, while Ben keeps every row and file of his.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "capture/kept_pages.h"
#include "domain/api_tokens.h"
#include "engine/queue.h"
#include "media/exports.h"
#include "sync/feed.h"
#include "tests/support/factory.h"
#include "tests/support/signed_in_client.h"
#include "tests/support/site_fixture.h"
#include "tests/support/two_factor.h"

namespace peto::web {
namespace {

namespace fs = std::filesystem;
using peto::testing::ClientResponse;
using peto::testing::SignedInClient;

constexpr const char* kPage =
    "<html><head><title>Data Engineer</title></head><body><h1>Data Engineer</h1></body></html>";

// A column that may name an account: a reference to users, or by its name.
struct AccountColumn {
  std::string table;
  std::string column;
};

class AccountDeletionTest : public peto::testing::SiteTest {
 protected:
  std::vector<AccountColumn> account_columns() {
    std::vector<AccountColumn> out;
    if (GetParam() == "sqlite") {
      for (const auto& t :
           db().query("SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE"
                      " 'CREATE VIRTUAL TABLE%' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE"
                      " 'search_fts_%'")) {
        const std::string table = t.text("name");
        std::set<std::string> columns;
        for (const auto& fk : db().query(
                 "SELECT \"from\", \"table\" FROM pragma_foreign_key_list('" + table + "')")) {
          if (fk.text("table") == "users") columns.insert(fk.text("from"));
        }
        for (const auto& c : db().query("SELECT name FROM pragma_table_info('" + table + "')")) {
          if (c.text("name") == "owner_id" || c.text("name") == "user_id") {
            columns.insert(c.text("name"));
          }
        }
        for (const auto& c : columns) out.push_back({table, c});
      }
    } else {
      for (const auto& r :
           db().query("SELECT DISTINCT kcu.table_name AS t, kcu.column_name AS c"
                      " FROM information_schema.table_constraints tc"
                      " JOIN information_schema.key_column_usage kcu"
                      "   ON kcu.constraint_name = tc.constraint_name"
                      "  AND kcu.table_schema = tc.table_schema"
                      " JOIN information_schema.constraint_column_usage ccu"
                      "   ON ccu.constraint_name = tc.constraint_name"
                      "  AND ccu.table_schema = tc.table_schema"
                      " WHERE tc.constraint_type = 'FOREIGN KEY' AND ccu.table_name = 'users'"
                      "   AND tc.table_schema = current_schema()"
                      " UNION SELECT table_name, column_name FROM information_schema.columns"
                      " WHERE table_schema = current_schema() AND column_name IN ('owner_id', "
                      "'user_id')")) {
        out.push_back({r.text("t"), r.text("c")});
      }
    }
    return out;
  }

  // How many rows name `id`, table by table (only tables with some).
  std::map<std::string, std::int64_t> rows_naming(std::int64_t id) {
    std::map<std::string, std::int64_t> out;
    for (const auto& [table, column] : account_columns()) {
      auto n =
          db().query("SELECT COUNT(*) AS n FROM " + table + " WHERE " + column + " = ?", {id})[0]
              .int_at("n");
      if (n > 0) out[table + "." + column] += n;
    }
    if (GetParam() == "sqlite") {
      auto n = db().query("SELECT COUNT(*) AS n FROM search_fts WHERE owner = ?",
                          {"u" + std::to_string(id)})[0]
                   .int_at("n");
      if (n > 0) out["search_fts.owner"] = n;
    }
    return out;
  }

  // Every file under the data folder.
  std::set<std::string> files() {
    std::set<std::string> out;
    if (!fs::exists(config_.data_dir)) return out;
    for (const auto& e : fs::recursive_directory_iterator(config_.data_dir)) {
      if (e.is_regular_file()) out.insert(fs::relative(e.path(), config_.data_dir).string());
    }
    return out;
  }

  // A bit of everything an account can have: records (and their search
  // entries and timelines), a document's file, a kept page, an export
  // archive, a file in the local-folder store, a task, an API token, the
  // calendar feed, a recovery link, a session, a security event, two-step
  // sign-in with its codes, a trusted browser and a sign-in halfway.
  void fill(SignedInClient& who) {
    const std::int64_t id = who.account().id;
    peto::testing::Factory f(db(), clock_);
    auto company = f.company(id, "Nordvik " + std::to_string(id));
    auto listing = f.listing(id, company, "Site Reliability Engineer");
    f.application(id, listing);
    f.reminder(id, "Call back", clock_.now_ms() + 3600 * 1000);
    f.document(config_, id, "%PDF-1.7 a CV of " + std::to_string(id));
    ASSERT_EQ(who.post_form("/captures", {{"url", "https://jobs.example/" + std::to_string(id)},
                                          {"html", kPage}})
                  .status,
              303);
    fs::create_directories(config_.exports_dir());
    const std::string archive = "peto-export-" + std::to_string(id) + ".zip";
    std::ofstream(fs::path(config_.exports_dir()) / archive) << "zip";
    media::record_archive(db(), id, std::nullopt, archive, archive, 3, clock_.now_ms());
    fs::create_directories(fs::path(config_.local_store_root()) / std::to_string(id));
    std::ofstream(fs::path(config_.local_store_root()) / std::to_string(id) / "cv.pdf") << "%PDF";
    engine::EnqueueOptions errand;
    errand.owner = id;
    engine::Queue(db(), clock_).enqueue({"export", "{}", errand});
    domain::ApiTokens(db(), clock_).create(id, "Phone", {"read"});
    sync::CalendarFeeds(db(), clock_).create(id);
    accounts().create_recovery(id, 0);
    accounts().set_password(id, SignedInClient::kPassword, 0);  // ends the session
    who = SignedInClient(port(), accounts(), who.account().email);
    // Two-step sign-in on, a browser trusted, a sign-in halfway.
    auto& tf = site_->two_factor();
    ASSERT_EQ(peto::testing::turn_on_two_factor(tf, id, who.account().email, clock_).size(),
              domain::kRecoveryCodeCount);
    tf.trust_browser(id);
    tf.open_challenge(id);
  }

  domain::Accounts& accounts() { return site_->accounts(); }
};

TEST_P(AccountDeletionTest, NothingOfTheDeletedAccountIsLeftAndNothingOfAnothersGoes) {
  SignedInClient admin(port(), accounts(), "admin@example.com");
  SignedInClient ana(port(), accounts(), "ana@example.com");
  SignedInClient ben(port(), accounts(), "ben@example.com");
  const std::int64_t ana_id = ana.account().id;
  const std::int64_t ben_id = ben.account().id;
  const auto before_any = files();
  fill(ana);
  const auto with_ana = files();
  fill(ben);
  ASSERT_FALSE(HasFatalFailure());
  std::set<std::string> anas_files, bens_files;
  for (const auto& f : files()) (with_ana.count(f) ? anas_files : bens_files).insert(f);
  for (const auto& f : before_any) anas_files.erase(f);
  ASSERT_GE(anas_files.size(), 4u) << "a document, a kept page, an archive, a stored copy";
  const auto anas_rows = rows_naming(ana_id);
  const auto bens_rows = rows_naming(ben_id);
  for (const char* t :
       {"applications.owner_id", "uploads.owner_id", "captures.owner_id", "tasks.owner_id",
        "api_tokens.user_id", "calendar_feeds.owner_id", "sessions.user_id",
        "account_events.user_id", "two_factor.user_id", "recovery_codes.user_id",
        "trusted_browsers.user_id", "signin_challenges.user_id"}) {
    EXPECT_TRUE(anas_rows.count(t)) << "the test filled " << t;
  }

  // The password again and the box: without either, nothing goes.
  auto unticked =
      ana.post_form("/profile/delete", {{"delete_password", SignedInClient::kPassword}});
  EXPECT_EQ(unticked.status, 422);
  EXPECT_NE(unticked.body.find("Tick the box to confirm."), std::string::npos);
  auto wrong = ana.post_form("/profile/delete",
                             {{"delete_password", "not my password"}, {"confirm_delete", "yes"}});
  EXPECT_EQ(wrong.status, 422);
  EXPECT_NE(wrong.body.find("That is not your current password."), std::string::npos);
  EXPECT_EQ(rows_naming(ana_id), anas_rows);

  auto done = ana.post_form("/profile/delete", {{"delete_password", SignedInClient::kPassword},
                                                {"confirm_delete", "yes"}});
  ASSERT_EQ(done.status, 303) << done.body;
  EXPECT_EQ(done.header("Location"), "/signin?deleted=1");
  EXPECT_EQ(ana.get("/").status, 303) << "signed out";
  EXPECT_EQ(rows_naming(ana_id), (std::map<std::string, std::int64_t>{}));
  EXPECT_FALSE(accounts().find(ana_id));
  const auto left = files();
  for (const auto& f : anas_files) EXPECT_FALSE(left.count(f)) << f << " is left";
  for (const auto& f : bens_files) EXPECT_TRUE(left.count(f)) << f << " of Ben's went";
  EXPECT_EQ(rows_naming(ben_id), bens_rows);
  EXPECT_FALSE(
      fs::exists(capture::KeptPages(db(), clock_, config_.pages_dir()).owner_folder(ana_id)));
}

TEST_P(AccountDeletionTest, AnAdministratorDeletesSomeoneOnlyWithTheirAddressTypedAgain) {
  SignedInClient admin(port(), accounts(), "admin@example.com");
  SignedInClient ana(port(), accounts(), "ana@example.com");
  fill(ana);
  ASSERT_FALSE(HasFatalFailure());
  const std::string path = "/admin/people/" + std::to_string(ana.account().id) + "/delete";
  EXPECT_EQ(admin.post_form(path, {{"confirm_email", "someone@example.com"}}).status, 303);
  EXPECT_TRUE(accounts().find(ana.account().id)) << "the wrong address deletes nothing";
  EXPECT_EQ(admin
                .post_form("/admin/people/" + std::to_string(admin.account().id) + "/delete",
                           {{"confirm_email", "admin@example.com"}})
                .status,
            404)
      << "not oneself from here";
  EXPECT_EQ(ana.post_form("/admin/people/" + std::to_string(admin.account().id) + "/delete",
                          {{"confirm_email", "admin@example.com"}})
                .status,
            404)
      << "administrators only";
  EXPECT_EQ(admin.post_form(path, {{"confirm_email", " ANA@example.com "}}).status, 303);
  EXPECT_FALSE(accounts().find(ana.account().id));
  EXPECT_EQ(rows_naming(ana.account().id), (std::map<std::string, std::int64_t>{}));
  EXPECT_EQ(admin.post_form(path, {{"confirm_email", "ana@example.com"}}).status, 404);
}

PETO_BOTH_BACKENDS(AccountDeletionTest);

}  // namespace
}  // namespace peto::web
