// `peto work --once`, the real binary, runs the tries the pages queue ("Send
// a test", "Sync now", a copy's "Send now"): each kind is one the worker
// knows, and the page then reads the outcome.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <variant>

#include "connections/connections.h"
#include "connections/tries.h"
#include "media/documents.h"
#include "net/http.h"
#include "tests/support/domain_fixture.h"

namespace peto {
namespace {

namespace fs = std::filesystem;

class WorkCommandTest : public testing::MigratedTest {
 protected:
  // The tasks are written at the database's own time, as the worker reads it.
  SystemClock now_;
  net::HttpClient http_;
};

TEST_P(WorkCommandTest, TheWorkerRunsEveryKindOfTry) {
  Config config;
  config.data_dir = dir().string();
  config.store_local_root = (dir() / "stores").string();
  config.allow_private_destinations = true;  // the sync's server would be on 127.0.0.1
  const std::int64_t ana = account("ana@example.com");
  fs::create_directories(config.store_local_root + "/" + std::to_string(ana) + "/ana");
  auto made = connections::Connections(db(), now_, config)
                  .create(ana, "local", "Archive", {{"folder", "ana"}});
  ASSERT_TRUE(std::holds_alternative<connections::Connection>(made));
  const std::int64_t store = std::get<connections::Connection>(made).id;

  auto sync = connections::Connections(db(), now_, config)
                  .create(ana, "carddav", "Contacts",
                          {{"url", "http://127.0.0.1:9/dav/"},
                           {"username", "ana"},
                           {"password", "app-password"},
                           {"interval", "15"}});
  ASSERT_TRUE(std::holds_alternative<connections::Connection>(sync))
      << nlohmann::json(std::get<notify::ConfigErrors>(sync)).dump();
  std::istringstream pdf("%PDF-1.4\n%%EOF\n");
  ASSERT_TRUE(std::holds_alternative<media::Document>(
      media::Documents(db(), now_, config).create_from(ana, {.title = "CV"}, pdf)));
  const std::int64_t copy = db().query("SELECT id FROM document_copies")[0].int_at(0);

  connections::Tries tries(db(), now_, config, http_);
  auto started = [&](connections::Try kind, std::int64_t subject) -> std::int64_t {
    auto s = tries.start(ana, kind, subject, "en");
    if (!std::holds_alternative<connections::Started>(s)) return 0;
    return std::get<connections::Started>(s).task_id;
  };
  const std::int64_t task = started(connections::Try::test, store);
  const std::int64_t synced =
      started(connections::Try::sync, std::get<connections::Connection>(sync).id);
  const std::int64_t sent = started(connections::Try::copy, copy);
  ASSERT_TRUE(task != 0 && synced != 0 && sent != 0);
  ASSERT_TRUE(tries.seen(ana, task)->working);

  auto ran = testing::run_peto(url(), dir().string(), "work --once", dir(),
                               "PETO_ALLOW_PRIVATE_DESTINATIONS=true PETO_STORE_LOCAL_ROOT='" +
                                   config.store_local_root + "' ");
  ASSERT_EQ(ran.code, 0) << ran.err;
  auto seen = tries.seen(ana, task);
  ASSERT_TRUE(seen);
  EXPECT_FALSE(seen->working);
  ASSERT_TRUE(seen->outcome) << seen->interrupted;
  EXPECT_EQ(seen->outcome->outcome, "sent") << seen->outcome->message;
  EXPECT_TRUE(
      fs::exists(config.store_local_root + "/" + std::to_string(ana) + "/ana/peto-test.txt"));
  EXPECT_FALSE(tries.seen(ana + 1, task)) << "nobody else's";
  // Nothing listens where the sync's server would be: the try ran and says so.
  seen = tries.seen(ana, synced);
  ASSERT_TRUE(seen && seen->outcome) << (seen ? seen->interrupted : "");
  EXPECT_EQ(seen->outcome->outcome, "failed");
  seen = tries.seen(ana, sent);
  ASSERT_TRUE(seen && seen->outcome) << (seen ? seen->interrupted : "");
  EXPECT_EQ(seen->outcome->outcome, "sent");
  EXPECT_EQ(db().query("SELECT status FROM document_copies")[0].text(0), "sent");
}

PETO_BOTH_BACKENDS(WorkCommandTest);

}  // namespace
}  // namespace peto
