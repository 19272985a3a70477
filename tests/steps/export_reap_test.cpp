// The upkeep step reaps export archives once their day is over, row and
// file, and says how many in the pass summary; a live archive stays.
#include <filesystem>
#include <fstream>

#include "domain/accounts.h"
#include "domain/records.h"
#include "domain/trash.h"
#include "media/exports.h"
#include "steps/upkeep.h"
#include "tests/support/engine_fixture.h"

namespace peto {
namespace {

namespace fs = std::filesystem;

class ExportReapTest : public testing::EngineTest {};

TEST_P(ExportReapTest, UpkeepReapsExpiredArchivesRowAndFile) {
  domain::set_password_cost(domain::PasswordCost::test);
  auto made =
      domain::Accounts(db(), clock_).create("ana@example.com", "correct horse battery", false);
  const std::int64_t ana = std::get<domain::Account>(made).id;
  fs::create_directories(config_.exports_dir());
  auto archive = [&](const std::string& file) {
    std::ofstream(fs::path(config_.exports_dir()) / file) << "PK";
    return media::record_archive(db(), ana, std::nullopt, file, "peto-export.zip", 2,
                                 clock_.now_ms());
  };
  archive("old.zip");
  clock_.advance(std::chrono::hours(12));
  archive("young.zip");
  clock_.advance(std::chrono::hours(13));  // old is 25 h old, young 13 h

  engine::Scheduler::Options o;
  o.heartbeat_path = (dir() / "hb").string();
  engine::Scheduler s(db(), clock_, config_, o,
                      testing::step_list(std::make_unique<steps::Upkeep>()));
  auto r = s.run_pass();
  std::int64_t reaped = 0;
  for (const auto& step : r.steps)
    if (step.id == "upkeep" && step.counts.count("archives_reaped"))
      reaped = step.counts.at("archives_reaped");
  EXPECT_EQ(reaped, 1);
  EXPECT_EQ(r.summary_lines(), std::vector<std::string>{"1 expired export archive removed"});
  EXPECT_FALSE(fs::exists(fs::path(config_.exports_dir()) / "old.zip"));
  EXPECT_TRUE(fs::exists(fs::path(config_.exports_dir()) / "young.zip"));
  auto left = media::list_archives(db(), ana, clock_.now_ms());
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].file, "young.zip");
  EXPECT_EQ(db().query("SELECT COUNT(*) FROM export_archives")[0].int_at(0), 1);
}

// A request body spooled to DATA_DIR/tmp by an upload that a crash cut off
// is removed by upkeep once it is a day old; a younger one (an upload in
// flight) stays.
TEST_P(ExportReapTest, UpkeepRemovesStaleSpooledBodies) {
  const fs::path tmp = fs::path(config_.data_dir) / "tmp";
  fs::create_directories(tmp);
  std::ofstream(tmp / "upload-old") << "x";
  std::ofstream(tmp / "upload-new") << "x";
  const auto now = fs::file_time_type::clock::now();
  fs::last_write_time(tmp / "upload-old", now - std::chrono::hours(25));
  fs::last_write_time(tmp / "upload-new", now - std::chrono::hours(23));
  engine::Scheduler::Options o;
  o.heartbeat_path = (dir() / "hb").string();
  engine::Scheduler s(db(), clock_, config_, o,
                      testing::step_list(std::make_unique<steps::Upkeep>()));
  // The step compares file times with the clock's now: pin it to the real one.
  clock_.set(std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::system_clock::now().time_since_epoch())
                 .count());
  auto r = s.run_pass();
  EXPECT_EQ(r.summary_lines(), std::vector<std::string>{"1 stale temporary file removed"});
  EXPECT_FALSE(fs::exists(tmp / "upload-old"));
  EXPECT_TRUE(fs::exists(tmp / "upload-new"));
}

// Files in the exports folder no row names (a `.part` a crash cut off, an
// archive whose row was never written or went first) are removed once they
// are over a day old; a recorded archive and a young file stay.
TEST_P(ExportReapTest, UpkeepRemovesOldArchivesNoRowNames) {
  domain::set_password_cost(domain::PasswordCost::test);
  auto made =
      domain::Accounts(db(), clock_).create("ana@example.com", "correct horse battery", false);
  const std::int64_t ana = std::get<domain::Account>(made).id;
  const fs::path exports = config_.exports_dir();
  fs::create_directories(exports);
  // The step compares file times with the clock's now: pin it to the real one.
  clock_.set(std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::system_clock::now().time_since_epoch())
                 .count());
  const auto now = fs::file_time_type::clock::now();
  for (const char* name : {"1-cut.zip.part", "1-unrecorded.zip", "1-recorded.zip", "1-young.zip"}) {
    std::ofstream(exports / name) << "PK";
    fs::last_write_time(exports / name, now - std::chrono::hours(26));
  }
  fs::last_write_time(exports / "1-young.zip", now - std::chrono::hours(2));
  media::record_archive(db(), ana, std::nullopt, "1-recorded.zip", "peto-export.zip", 2,
                        clock_.now_ms());
  engine::Scheduler::Options o;
  o.heartbeat_path = (dir() / "hb").string();
  engine::Scheduler s(db(), clock_, config_, o,
                      testing::step_list(std::make_unique<steps::Upkeep>()));
  auto r = s.run_pass();
  EXPECT_EQ(r.summary_lines(), std::vector<std::string>{"2 expired export archives removed"});
  EXPECT_FALSE(fs::exists(exports / "1-cut.zip.part"));
  EXPECT_FALSE(fs::exists(exports / "1-unrecorded.zip"));
  EXPECT_TRUE(fs::exists(exports / "1-recorded.zip"));
  EXPECT_TRUE(fs::exists(exports / "1-young.zip"));
}

// The trash keeps a deleted record 30 days; the upkeep pass after that empties
// it and says so.
TEST_P(ExportReapTest, UpkeepEmptiesTheTrashAfterThirtyDays) {
  domain::set_password_cost(domain::PasswordCost::test);
  auto made =
      domain::Accounts(db(), clock_).create("ana@example.com", "correct horse battery", false);
  const std::int64_t ana = std::get<domain::Account>(made).id;
  domain::Records records(db(), clock_);
  domain::Input in;
  in.values = {{"name", "Acme"}};
  auto acme = std::get<domain::Record>(records.create(ana, domain::kind("companies"), in));
  ASSERT_TRUE(records.remove(ana, domain::kind("companies"), acme["id"].get<std::int64_t>()));

  engine::Scheduler::Options o;
  o.heartbeat_path = (dir() / "hb").string();
  engine::Scheduler s(db(), clock_, config_, o,
                      testing::step_list(std::make_unique<steps::Upkeep>()));
  clock_.advance(std::chrono::hours(24 * 29));
  EXPECT_TRUE(s.run_pass().summary_lines().empty());
  EXPECT_EQ(domain::Trash(db(), clock_).list(ana).size(), 1u);
  clock_.advance(std::chrono::hours(24 * 2));
  EXPECT_EQ(s.run_pass().summary_lines(),
            std::vector<std::string>{"1 trash entry older than 30 days emptied"});
  EXPECT_TRUE(domain::Trash(db(), clock_).list(ana).empty());
}

PETO_BOTH_BACKENDS(ExportReapTest);

}  // namespace
}  // namespace peto
