// Backup and restore on both backends: a filled instance restored into an
// empty one gives the same rows and the same file bytes; damaged or hostile
// archives, the other engine, a newer schema and a non-empty instance are
// refused with nothing written; the scheduled backup's slots, claim, lock,
// failures and retention; and `peto backup` / `peto restore` as commands.
#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>

#include <atomic>
#include <barrier>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <thread>
#include <utility>

#include "app/app.h"
#include "core/token.h"
#include "media/backups.h"
#include "store/cache.h"
#include "tests/support/domain_fixture.h"
#include "tests/support/factory.h"

namespace peto {
namespace {

namespace fs = std::filesystem;

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_bytes(const fs::path& p, const std::string& data) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << data;
}

// Every regular file under `root`, by relative path, with its bytes.
std::map<std::string, std::string> files_under(const fs::path& root) {
  std::map<std::string, std::string> out;
  if (!fs::exists(root)) return out;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file()) out[fs::relative(e.path(), root).generic_string()] = read_bytes(e);
  return out;
}

// Every table's rows, each row as text, sorted.
std::map<std::string, std::vector<std::string>> snapshot(store::Db& db) {
  std::vector<std::string> tables;
  const char* list = db.dialect() == store::Dialect::sqlite
                         ? "SELECT name FROM sqlite_master WHERE type = 'table'"
                           " AND name NOT LIKE 'sqlite_%'"
                         : "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()";
  for (const auto& r : db.query(list)) tables.push_back(r.text(0));
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& t : tables) {
    auto& rows = out[t];
    for (const auto& r : db.query("SELECT * FROM " + t)) {
      std::string line;
      for (std::size_t i = 0; i < r.size(); ++i)
        line += (r.is_null(i) ? std::string("<null>") : r.text(i)) + "\x1f";
      rows.push_back(line);
    }
    std::sort(rows.begin(), rows.end());
  }
  return out;
}

struct Entry {
  std::string name;
  std::string data;
  unsigned type = AE_IFREG;
  std::string link;
};

std::vector<Entry> read_entries(const fs::path& path) {
  std::vector<Entry> out;
  archive* a = archive_read_new();
  archive_read_support_filter_gzip(a);
  archive_read_support_format_tar(a);
  EXPECT_EQ(archive_read_open_filename(a, path.c_str(), 65536), ARCHIVE_OK);
  archive_entry* e;
  while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
    Entry x;
    x.name = archive_entry_pathname(e);
    char buf[65536];
    la_ssize_t n;
    while ((n = archive_read_data(a, buf, sizeof buf)) > 0) x.data.append(buf, n);
    out.push_back(x);
  }
  archive_read_free(a);
  return out;
}

void write_entries(const fs::path& path, const std::vector<Entry>& entries) {
  archive* a = archive_write_new();
  archive_write_add_filter_gzip(a);
  archive_write_set_format_pax_restricted(a);
  ASSERT_EQ(archive_write_open_filename(a, path.c_str()), ARCHIVE_OK);
  for (const auto& x : entries) {
    archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, x.name.c_str());
    archive_entry_set_filetype(e, x.type);
    archive_entry_set_perm(e, 0644);
    if (x.type == AE_IFLNK) archive_entry_set_symlink(e, x.link.c_str());
    archive_entry_set_size(e, x.type == AE_IFREG ? static_cast<la_int64_t>(x.data.size()) : 0);
    archive_write_header(a, e);
    if (x.type == AE_IFREG) archive_write_data(a, x.data.data(), x.data.size());
    archive_entry_free(e);
  }
  archive_write_close(a);
  archive_write_free(a);
}

// A second, empty instance on the same backend: a data folder and, on
// PostgreSQL, a schema of its own.
class Instance {
 public:
  Instance(const fs::path& dir, bool postgres) {
    config.data_dir = (dir / "data").string();
    if (!postgres) {
      config.database_url = "sqlite://" + (dir / "data" / "peto.db").string();
      return;
    }
    base_ = std::getenv("PETO_TEST_POSTGRES_URL");
    schema_ = "t_restore_" + random_token(6);
    store::Db::open(base_, 1)->query("CREATE SCHEMA " + schema_);
    config.database_url = base_ + (base_.find('?') == std::string::npos ? "?" : "&") +
                          "options=-csearch_path%3D" + schema_;
  }
  ~Instance() {
    if (!schema_.empty()) store::Db::open(base_, 1)->query("DROP SCHEMA " + schema_ + " CASCADE");
  }
  std::unique_ptr<store::Db> open() const { return store::Db::open(config.database_url, 2); }

  Config config;

 private:
  std::string base_;
  std::string schema_;
};

class BackupTest : public testing::MigratedTest {
 protected:
  void SetUp() override {
    MigratedTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    config_.data_dir = (dir() / "data").string();
    config_.database_url = url();
    config_.backup_dir = (dir() / "backups").string();
  }

  // The demo data set, files under media/ and pages/, and a secret key.
  void fill() {
    std::int64_t owner = account("ana@example.com");
    app::load_demo(db(), clock_, owner);
    std::string binary;
    for (int i = 0; i < 300000; ++i) binary += static_cast<char>((i * 7919LL) % 256);
    write_bytes(fs::path(config_.data_dir) / "media" / "ab" / "cv.pdf", binary);
    write_bytes(fs::path(config_.data_dir) / "media" / "x" / "y" / "letter.txt", "Dear team,\n");
    write_bytes(fs::path(config_.data_dir) / "media" / "empty.bin", "");
    write_bytes(fs::path(config_.data_dir) / "pages" / "p1.html", "<p>kept</p>");
    write_bytes(fs::path(config_.data_dir) / "secret_key", std::string(64, 'a') + "\n");
    write_bytes(fs::path(config_.data_dir) / "exports" / "e.zip", "not travelling");
  }

  std::string backup() {
    auto written = media::write_backup(config_, db(), "", clock_);
    EXPECT_TRUE(written) << written.status().message();
    if (!written) return std::string();
    // The archive holds the whole database: for the account running peto alone.
    EXPECT_EQ(fs::status(*written).permissions() & (fs::perms::group_all | fs::perms::others_all),
              fs::perms::none);
    return *written;
  }

  media::RestoreOptions options(bool force = false) {
    media::RestoreOptions o;
    o.force = force;
    o.migrations = app::migrations();
    return o;
  }

  // Nothing of an instance exists but what was there before.
  void expect_untouched(const Instance& target) {
    EXPECT_FALSE(fs::exists(fs::path(target.config.data_dir) / "media"));
    EXPECT_FALSE(fs::exists(fs::path(target.config.data_dir) / "secret_key"));
    if (fs::exists(target.config.data_dir)) {
      for (const auto& e : fs::directory_iterator(target.config.data_dir))
        ADD_FAILURE() << "left behind: " << e.path();
    }
    if (postgres()) {
      auto tables = target.open()->query(
          "SELECT COUNT(*) FROM pg_tables WHERE schemaname = current_schema()");
      EXPECT_EQ(tables[0].int_at(0), 0);
    }
  }

  std::int64_t state_int(const std::string& column) {
    auto r = db().query("SELECT " + column + " FROM backup_state WHERE id = 1");
    return r[0].is_null(0) ? -1 : r[0].int_at(0);
  }
  std::vector<std::string> backups_in(const std::string& folder) {
    std::vector<std::string> out;
    if (!fs::exists(folder)) return out;
    for (const auto& e : fs::directory_iterator(folder)) out.push_back(e.path().filename());
    std::sort(out.begin(), out.end());
    return out;
  }

  Config config_;
};

TEST_P(BackupTest, RestoreIntoAnEmptyInstanceGivesTheSameDatabaseAndFiles) {
  fill();
  std::string path = backup();
  ASSERT_FALSE(path.empty());
  EXPECT_TRUE(std::regex_match(fs::path(path).filename().string(),
                               std::regex(R"(peto-backup-20270115-080000\.tar\.gz)")))
      << path;
  EXPECT_EQ(fs::path(path).parent_path(), dir() / "backups");
  EXPECT_EQ(backups_in(config_.backup_dir).size(), 1u) << "no temp files left";
  auto manifest = media::verify_backup(path);
  ASSERT_TRUE(manifest) << manifest.status().message();
  EXPECT_EQ((*manifest)["engine"], postgres() ? "postgres" : "sqlite");
  EXPECT_EQ((*manifest)["schema_version"], app::migrations().back().version);
  EXPECT_EQ((*manifest)["secret_key"], "included");
  for (const auto& f : (*manifest)["files"])
    EXPECT_EQ(f["path"].get<std::string>().rfind("exports/", 0), std::string::npos);

  // A second backup in the same second gets its own name.
  std::string second = backup();
  EXPECT_EQ(fs::path(second).filename(), "peto-backup-20270115-080000-2.tar.gz");

  Instance target(dir() / "target", postgres());
  auto restored = media::restore_backup(target.config, path, options());
  ASSERT_TRUE(restored) << restored.status().message();
  EXPECT_EQ(restored->schema_version, app::migrations().back().version);
  EXPECT_EQ(restored->migrated, 0);
  EXPECT_TRUE(restored->secret_key);
  EXPECT_EQ(restored->files, 4);

  auto restored_db = target.open();
  auto before = snapshot(db());
  auto after = snapshot(*restored_db);
  EXPECT_GT(before.size(), 20u);
  EXPECT_GE(before["applications"].size(), 20u);
  EXPECT_EQ(before, after);
  for (const char* folder : {"media", "pages"})
    EXPECT_EQ(files_under(fs::path(config_.data_dir) / folder),
              files_under(fs::path(target.config.data_dir) / folder))
        << folder;
  EXPECT_EQ(files_under(fs::path(target.config.data_dir) / "media").size(), 3u);
  EXPECT_EQ(read_bytes(fs::path(target.config.data_dir) / "secret_key"),
            std::string(64, 'a') + "\n");
  EXPECT_FALSE(fs::exists(fs::path(target.config.data_dir) / "exports"));

  // New rows continue after the restored ones (sequences came along).
  domain::Accounts accounts(*restored_db, clock_);
  auto made = accounts.create("new@example.com", "correct horse battery", false);
  ASSERT_TRUE(std::holds_alternative<domain::Account>(made));
  EXPECT_GT(std::get<domain::Account>(made).id,
            db().query("SELECT MAX(id) FROM users")[0].int_at(0));
}

// A backup whose rows name files outside peto's folders (made by hand, or by
// someone who could write the database) restores with those paths cleared:
// nothing of the restored instance can then read, send or delete that file.
TEST_P(BackupTest, RowsNamingFilesOutsideTheirFoldersAreClearedOnRestore) {
  std::int64_t owner = account("ana@example.com");
  testing::Factory make(db(), clock_);
  std::int64_t kept = make.document(config_, owner, "%PDF kept", {.filename = "cv.pdf"});
  std::int64_t hostile = make.document(config_, owner, "%PDF other", {.filename = "x.pdf"});
  db().query("UPDATE uploads SET file = '../../../../etc/passwd' WHERE id = ?", {hostile});
  db().query(
      "INSERT INTO captures (owner_id, url, url_key, origin, status, page_file, created_at,"
      " updated_at) VALUES (?, 'https://jobs.example/1', 'jobs.example/1', 'web', 'new',"
      " '/etc/passwd', 0, 0)",
      {owner});
  std::string path = backup();
  ASSERT_FALSE(path.empty());

  Instance target(dir() / "target", postgres());
  auto restored = media::restore_backup(target.config, path, options());
  ASSERT_TRUE(restored) << restored.status().message();
  EXPECT_EQ(restored->stray_paths, 2);
  auto restored_db = target.open();
  EXPECT_EQ(
      restored_db->query("SELECT file, damage FROM uploads WHERE id = ?", {hostile})[0].text(1),
      "missing");
  EXPECT_EQ(restored_db->query("SELECT file FROM uploads WHERE id = ?", {hostile})[0].text(0), "");
  EXPECT_NE(restored_db->query("SELECT file FROM uploads WHERE id = ?", {kept})[0].text(0), "")
      << "a path peto wrote is kept";
  EXPECT_EQ(
      restored_db->query("SELECT COUNT(*) FROM captures WHERE page_file IS NOT NULL")[0].int_at(0),
      0);
}

TEST_P(BackupTest, DamagedOrHostileArchivesAreRefusedWithNothingWritten) {
  fill();
  std::string good = backup();
  ASSERT_FALSE(good.empty());
  const std::string bytes = read_bytes(good);
  auto entries = read_entries(good);
  ASSERT_GE(entries.size(), 5u);
  ASSERT_EQ(entries[0].name, "manifest.json");

  std::map<std::string, std::function<void(const fs::path&)>> cases;
  cases["truncated"] = [&](const fs::path& p) {
    write_bytes(p, bytes.substr(0, bytes.size() / 2));
  };
  cases["flipped byte"] = [&](const fs::path& p) {
    std::string b = bytes;
    b[b.size() / 2] ^= 0x5a;
    write_bytes(p, b);
  };
  cases["not gzip"] = [&](const fs::path& p) { write_bytes(p, "hello, this is not an archive"); };
  cases["checksum mismatch"] = [&](const fs::path& p) {
    auto e = entries;
    auto m = nlohmann::json::parse(e[0].data);
    m["files"][0]["sha256"] = std::string(64, '0');
    e[0].data = m.dump();
    write_entries(p, e);
  };
  cases["changed content"] = [&](const fs::path& p) {
    auto e = entries;
    e.back().data += "x";
    write_entries(p, e);
  };
  cases["no manifest"] = [&](const fs::path& p) {
    auto e = entries;
    e.erase(e.begin());
    write_entries(p, e);
  };
  cases["missing entry"] = [&](const fs::path& p) {
    auto e = entries;
    e.pop_back();
    write_entries(p, e);
  };
  auto with_listed = [&](Entry extra) {
    auto e = entries;
    auto m = nlohmann::json::parse(e[0].data);
    m["files"].push_back(
        {{"path", extra.name}, {"size", extra.data.size()}, {"sha256", sha256_hex(extra.data)}});
    e[0].data = m.dump();
    e.push_back(extra);
    return e;
  };
  cases["dot-dot entry listed"] = [&](const fs::path& p) {
    write_entries(p, with_listed({"media/../../evil", "x", AE_IFREG, ""}));
  };
  cases["dot-dot entry unlisted"] = [&](const fs::path& p) {
    auto e = entries;
    e.push_back({"../evil", "x", AE_IFREG, ""});
    write_entries(p, e);
  };
  cases["absolute entry"] = [&](const fs::path& p) {
    write_entries(p, with_listed({(dir() / "evil").string(), "x", AE_IFREG, ""}));
  };
  cases["symlink entry"] = [&](const fs::path& p) {
    auto e = entries;
    e.push_back({"media/link", "", AE_IFLNK, "/etc/passwd"});
    write_entries(p, e);
  };

  for (const auto& [name, make] : cases) {
    SCOPED_TRACE(name);
    fs::path bad = dir() / ("bad-" + std::to_string(std::hash<std::string>{}(name)) + ".tar.gz");
    make(bad);
    EXPECT_FALSE(media::verify_backup(bad.string()));
    Instance target(dir() / ("t-" + random_token(4)), postgres());
    auto restored = media::restore_backup(target.config, bad.string(), options(true));
    ASSERT_FALSE(restored);
    EXPECT_EQ(restored.status().code(), Status::Code::invalid) << restored.status().message();
    expect_untouched(target);
    EXPECT_FALSE(fs::exists(dir() / "evil"));
    EXPECT_FALSE(fs::exists(dir().parent_path() / "evil"));
  }
}

TEST_P(BackupTest, SizesAreCheckedBeforeAndWhileWriting) {
  fill();
  std::string good = backup();
  ASSERT_FALSE(good.empty());
  auto entries = read_entries(good);
  // An entry much larger than the manifest says (zeros: it packs small).
  auto bomb = entries;
  auto m = nlohmann::json::parse(bomb[0].data);
  bomb.push_back({"media/bomb.bin", std::string(8 << 20, '\0'), AE_IFREG, ""});
  m["files"].push_back({{"path", "media/bomb.bin"}, {"size", 10}, {"sha256", sha256_hex("x")}});
  bomb[0].data = m.dump();
  fs::path bomb_file = dir() / "bomb.tar.gz";
  write_entries(bomb_file, bomb);
  // A manifest claiming more than the disk holds.
  auto huge = entries;
  m = nlohmann::json::parse(huge[0].data);
  m["files"].push_back(
      {{"path", "media/huge.bin"}, {"size", std::uint64_t{1} << 62}, {"sha256", sha256_hex("x")}});
  huge[0].data = m.dump();
  huge.push_back({"media/huge.bin", "x", AE_IFREG, ""});
  fs::path huge_file = dir() / "huge.tar.gz";
  write_entries(huge_file, huge);

  auto refused = media::verify_backup(bomb_file.string());
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.status().message().find("larger than its manifest size"), std::string::npos)
      << refused.status().message();
  Instance target(dir() / "target", postgres());
  auto restored = media::restore_backup(target.config, bomb_file.string(), options(true));
  ASSERT_FALSE(restored);
  EXPECT_NE(restored.status().message().find("larger than its manifest size"), std::string::npos)
      << restored.status().message();
  expect_untouched(target);

  restored = media::restore_backup(target.config, huge_file.string(), options(true));
  ASSERT_FALSE(restored);
  EXPECT_NE(restored.status().message().find("not enough free space"), std::string::npos)
      << restored.status().message();
  expect_untouched(target);
}

TEST_P(BackupTest, AFileDeletedDuringTheBackupDoesNotFailIt) {
  fill();
  const fs::path cv = fs::path(config_.data_dir) / "media" / "ab" / "cv.pdf";
  const std::string cv_bytes = read_bytes(cv);
  const fs::path letter = fs::path(config_.data_dir) / "media" / "x" / "y" / "letter.txt";
  // The letter goes before the files are listed, the CV after (while the
  // archive is written): the CV is still in the backup, the letter is not.
  auto written = media::write_backup(config_, db(), "", clock_, [&](const std::string& line) {
    if (line == "reading the data folder") fs::remove_all(letter.parent_path());
    if (line == "writing the archive") fs::remove(cv);
  });
  ASSERT_TRUE(written) << written.status().message();
  std::map<std::string, std::string> in;
  for (const auto& e : read_entries(*written)) in[e.name] = e.data;
  EXPECT_EQ(in["media/ab/cv.pdf"], cv_bytes);
  EXPECT_FALSE(in.count("media/x/y/letter.txt"));
  EXPECT_TRUE(media::verify_backup(*written));
  EXPECT_EQ(backups_in(config_.backup_dir).size(), 1u) << "no temp files left";
}

TEST_P(BackupTest, WhatAKilledBackupLeftIsCleanedUpAndRecorded) {
  fs::create_directories(config_.backup_dir);
  const fs::path folder(config_.backup_dir);
  const auto old = fs::file_time_type::clock::now() - std::chrono::hours(7);
  write_bytes(folder / ".peto-backup-tmp-old" / "db" / "peto.db", "dump");
  fs::last_write_time(folder / ".peto-backup-tmp-old", old);
  write_bytes(folder / ".peto-backup-old.tar.gz.part", "part");
  fs::last_write_time(folder / ".peto-backup-old.tar.gz.part", old);
  write_bytes(folder / ".peto-backup-new.tar.gz.part", "someone's, running");
  write_bytes(folder / "notes.txt", "mine");
  fs::last_write_time(folder / "notes.txt", old);

  // Claimed at 01:00, no outcome by 08:00: interrupted. Not due (slot 00:00).
  config_.backup_schedule = "daily";
  config_.backup_hour = 0;
  const Millis hour = 3'600'000;
  db().query("UPDATE backup_state SET last_run_at = ?, last_run_ok = NULL",
             {clock_.now_ms() - 7 * hour});
  EXPECT_EQ(media::start_scheduled_backup(config_, db(), clock_), media::ScheduledStart::not_due);
  EXPECT_EQ(state_int("last_run_ok"), 0);
  EXPECT_EQ(state_int("failures"), 1);
  EXPECT_NE(db().query("SELECT last_error FROM backup_state")[0].text(0).find("interrupted"),
            std::string::npos);
  EXPECT_EQ(media::start_scheduled_backup(config_, db(), clock_), media::ScheduledStart::not_due);
  EXPECT_EQ(state_int("failures"), 1) << "counted once";
  // A claim 5 h old may still be running.
  db().query("UPDATE backup_state SET last_run_at = ?, last_run_ok = NULL",
             {clock_.now_ms() - 5 * hour});
  EXPECT_EQ(media::start_scheduled_backup(config_, db(), clock_), media::ScheduledStart::not_due);
  EXPECT_EQ(state_int("last_run_ok"), -1);
  EXPECT_EQ(state_int("failures"), 1);

  // The next run removes the old temp entries, not the fresh one.
  clock_.advance(std::chrono::hours(24));
  EXPECT_EQ(media::start_scheduled_backup(config_, db(), clock_), media::ScheduledStart::ran);
  auto left = backups_in(config_.backup_dir);
  ASSERT_EQ(left.size(), 3u);
  EXPECT_EQ(left[0], ".peto-backup-new.tar.gz.part");
  EXPECT_EQ(left[1], "notes.txt");
  EXPECT_TRUE(left[2].starts_with("peto-backup-")) << left[2];
}

TEST_P(BackupTest, ANonEmptyInstanceNeedsForce) {
  fill();
  std::string path = backup();
  Instance target(dir() / "target", postgres());
  {
    auto other = target.open();
    ASSERT_TRUE(store::Migrator(*other, app::migrations()).apply());
    domain::Accounts(*other, clock_).create("someone@example.com", "correct horse battery", false);
  }
  write_bytes(fs::path(target.config.data_dir) / "media" / "theirs.txt", "theirs");

  auto refused = media::restore_backup(target.config, path, options());
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.status().code(), Status::Code::conflict);
  EXPECT_NE(refused.status().message().find("--force"), std::string::npos);
  EXPECT_EQ(target.open()->query("SELECT email FROM users")[0].text(0), "someone@example.com");
  EXPECT_TRUE(fs::exists(fs::path(target.config.data_dir) / "media" / "theirs.txt"));

  auto forced = media::restore_backup(target.config, path, options(true));
  ASSERT_TRUE(forced) << forced.status().message();
  EXPECT_EQ(snapshot(db()), snapshot(*target.open()));
  EXPECT_EQ(files_under(fs::path(config_.data_dir) / "media"),
            files_under(fs::path(target.config.data_dir) / "media"));
}

TEST_P(BackupTest, AMigratedButEmptyInstanceIsEmpty) {
  fill();
  std::string path = backup();
  Instance target(dir() / "target", postgres());
  {
    auto other = target.open();
    ASSERT_TRUE(store::Migrator(*other, app::migrations()).apply());
  }
  auto restored = media::restore_backup(target.config, path, options());
  ASSERT_TRUE(restored) << restored.status().message();
  EXPECT_EQ(snapshot(db()), snapshot(*target.open()));
}

TEST_P(BackupTest, TheOtherEngineIsRefused) {
  fill();
  std::string path = backup();
  Config other;
  other.data_dir = (dir() / "other").string();
  other.database_url = postgres() ? "sqlite://" + (dir() / "other" / "peto.db").string()
                                  : "postgres://127.0.0.1:1/nothing";
  auto refused = media::restore_backup(other, path, options(true));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.status().code(), Status::Code::conflict);
  EXPECT_NE(refused.status().message().find(postgres() ? "postgres database" : "sqlite database"),
            std::string::npos)
      << refused.status().message();
  EXPECT_FALSE(fs::exists(dir() / "other" / "peto.db"));
}

TEST_P(BackupTest, ANewerSchemaIsRefusedAndAllowNewerIsHonestAboutIt) {
  fill();
  std::string path = backup();
  Instance target(dir() / "target", postgres());
  auto older = options();
  older.migrations.pop_back();  // this "peto" knows one migration fewer
  auto refused = media::restore_backup(target.config, path, older);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.status().code(), Status::Code::conflict);
  EXPECT_NE(refused.status().message().find("newer"), std::string::npos);
  expect_untouched(target);

  older.allow_newer = true;
  auto allowed = media::restore_backup(target.config, path, older);
  if (postgres()) {
    ASSERT_FALSE(allowed);
    EXPECT_NE(allowed.status().message().find("cannot help"), std::string::npos);
    expect_untouched(target);
  } else {
    ASSERT_TRUE(allowed) << allowed.status().message();
    EXPECT_TRUE(allowed->unmigrated);
    EXPECT_EQ(snapshot(db()), snapshot(*target.open()));
  }
}

TEST_P(BackupTest, AnOlderArchiveIsMigratedAfterTheRestore) {
  // An instance made by a peto that knew one migration fewer.
  Instance old_instance(dir() / "old", postgres());
  auto fewer = app::migrations();
  fewer.pop_back();
  {
    auto old_db = old_instance.open();
    ASSERT_TRUE(store::Migrator(*old_db, fewer).apply());
    // Written as that peto wrote it (today's Accounts reads columns it lacked).
    old_db->query(
        "INSERT INTO users (email, password_hash, created_at, updated_at)"
        " VALUES ('old@example.com', 'x', 0, 0)");
    auto written = media::write_backup(old_instance.config, *old_db, "", clock_);
    ASSERT_TRUE(written) << written.status().message();
    Instance target(dir() / "target", postgres());
    auto restored = media::restore_backup(target.config, *written, options());
    ASSERT_TRUE(restored) << restored.status().message();
    EXPECT_EQ(restored->schema_version, fewer.back().version);
    EXPECT_EQ(restored->migrated, 1);
    auto t = target.open();
    EXPECT_EQ(t->query("SELECT email FROM users")[0].text(0), "old@example.com");
    EXPECT_EQ(t->query("SELECT MAX(version) FROM schema_migrations")[0].int_at(0),
              app::migrations().back().version)
        << "migrated";
  }
}

TEST_P(BackupTest, ScheduleSlots) {
  Config c;
  const Millis now = clock_.now_ms();  // Friday 2027-01-15 08:00 UTC
  const Millis hour = 3'600'000, day = 24 * hour;
  EXPECT_FALSE(media::last_backup_slot(c, now));
  c.backup_schedule = "daily";
  c.backup_hour = 3;
  EXPECT_EQ(media::last_backup_slot(c, now), now - 5 * hour);
  c.backup_hour = 8;
  EXPECT_EQ(media::last_backup_slot(c, now), now) << "a slot at now counts";
  c.backup_hour = 9;
  EXPECT_EQ(media::last_backup_slot(c, now), now + hour - day);
  c.backup_schedule = "weekly";
  c.backup_hour = 3;
  c.backup_weekday = 0;  // Monday
  EXPECT_EQ(media::last_backup_slot(c, now), now - 4 * day - 5 * hour);
  c.backup_weekday = 4;  // Friday
  EXPECT_EQ(media::last_backup_slot(c, now), now - 5 * hour);
  c.backup_hour = 9;
  EXPECT_EQ(media::last_backup_slot(c, now), now + hour - 7 * day);
}

TEST_P(BackupTest, ScheduledBackupRunsOncePerSlot) {
  fill();
  EXPECT_EQ(media::start_scheduled_backup(config_, db(), clock_), media::ScheduledStart::off);
  EXPECT_TRUE(backups_in(config_.backup_dir).empty());

  config_.backup_schedule = "daily";
  config_.backup_hour = 3;
  EXPECT_EQ(media::start_scheduled_backup(config_, db(), clock_), media::ScheduledStart::ran);
  EXPECT_EQ(backups_in(config_.backup_dir).size(), 1u);
  EXPECT_EQ(state_int("last_run_ok"), 1);
  EXPECT_EQ(state_int("last_run_at"), clock_.now_ms());
  EXPECT_EQ(state_int("last_ok_at"), clock_.now_ms());
  EXPECT_EQ(state_int("failures"), 0);
  EXPECT_FALSE(store::Cache(db(), clock_).get(media::kBackupLockKey)) << "the lock is released";

  clock_.advance(std::chrono::hours(18));  // 02:00 the next day: same slot
  EXPECT_EQ(media::start_scheduled_backup(config_, db(), clock_), media::ScheduledStart::not_due);
  clock_.advance(std::chrono::hours(1));  // 03:00: the next slot
  int queued = 0;
  EXPECT_EQ(media::start_scheduled_backup(config_, db(), clock_, [&] { return ++queued, true; }),
            media::ScheduledStart::enqueued);
  EXPECT_EQ(queued, 1);
  EXPECT_EQ(backups_in(config_.backup_dir).size(), 1u) << "the worker writes it";
  EXPECT_EQ(state_int("last_run_ok"), -1) << "claimed: outcome unknown yet";
  EXPECT_EQ(media::start_scheduled_backup(config_, db(), clock_), media::ScheduledStart::not_due);
  // A queue that fails: it runs here instead.
  clock_.advance(std::chrono::hours(24));
  EXPECT_EQ(media::start_scheduled_backup(config_, db(), clock_,
                                          []() -> bool { throw std::runtime_error("queue down"); }),
            media::ScheduledStart::ran);
  EXPECT_EQ(backups_in(config_.backup_dir).size(), 2u);
}

TEST_P(BackupTest, OnlyOneOfTwoSchedulersClaimsTheSlot) {
  config_.backup_schedule = "daily";
  for (int round = 0; round < 5; ++round) {
    auto a = open_again(), b = open_again();
    std::atomic<int> queued{0};
    std::vector<media::ScheduledStart> outcomes(2);
    std::barrier go(2);
    auto run = [&](store::Db& d, int i) {
      go.arrive_and_wait();
      outcomes[i] =
          media::start_scheduled_backup(config_, d, clock_, [&] { return ++queued, true; });
    };
    std::thread t1(run, std::ref(*a), 0), t2(run, std::ref(*b), 1);
    t1.join();
    t2.join();
    EXPECT_EQ(queued.load(), 1) << "round " << round;
    std::sort(outcomes.begin(), outcomes.end());
    EXPECT_TRUE(outcomes[1] == media::ScheduledStart::enqueued);
    EXPECT_TRUE(outcomes[0] == media::ScheduledStart::not_due ||
                outcomes[0] == media::ScheduledStart::claimed_elsewhere);
    clock_.advance(std::chrono::hours(24));
  }
}

TEST_P(BackupTest, ABusyLockOrAnErrorIsRecordedAsAFailure) {
  config_.backup_schedule = "daily";
  store::Cache cache(db(), clock_);
  ASSERT_TRUE(cache.add(media::kBackupLockKey, "someone-else", std::chrono::hours(6)));
  EXPECT_EQ(media::start_scheduled_backup(config_, db(), clock_), media::ScheduledStart::failed);
  EXPECT_EQ(state_int("last_run_ok"), 0);
  EXPECT_EQ(state_int("failures"), 1);
  EXPECT_EQ(db().query("SELECT last_error FROM backup_state")[0].text(0),
            "Another backup was already running.");
  EXPECT_EQ(cache.get(media::kBackupLockKey), "someone-else") << "not ours to release";
  EXPECT_TRUE(backups_in(config_.backup_dir).empty());
  ASSERT_TRUE(cache.delete_if(media::kBackupLockKey, "someone-else"));

  // The backups folder cannot be made: a file is in the way.
  write_bytes(dir() / "blocker", "x");
  config_.backup_dir = (dir() / "blocker" / "backups").string();
  clock_.advance(std::chrono::hours(24));
  EXPECT_EQ(media::start_scheduled_backup(config_, db(), clock_), media::ScheduledStart::failed);
  EXPECT_EQ(state_int("failures"), 2);
  std::string error = db().query("SELECT last_error FROM backup_state")[0].text(0);
  EXPECT_NE(error.find("cannot create"), std::string::npos) << error;
  EXPECT_LE(error.size(), 500u);
  EXPECT_FALSE(cache.get(media::kBackupLockKey));

  // Success clears the error; the counter keeps the history.
  config_.backup_dir = (dir() / "backups").string();
  clock_.advance(std::chrono::hours(24));
  EXPECT_EQ(media::start_scheduled_backup(config_, db(), clock_), media::ScheduledStart::ran);
  EXPECT_EQ(state_int("last_run_ok"), 1);
  EXPECT_EQ(db().query("SELECT last_error FROM backup_state")[0].text(0), "");
}

TEST_P(BackupTest, RetentionKeepsTheNewestAndNeverUploads) {
  fs::create_directories(config_.backup_dir);
  std::vector<std::string> old = {
      "peto-backup-20261201-030000.tar.gz", "peto-backup-20261202-030000.tar.gz",
      "peto-backup-20261203-030000.tar.gz", "peto-backup-20261203-030000-2.tar.gz",
      "peto-upload-20200101-000000.tar.gz", "notes.txt"};
  for (const auto& n : old) write_bytes(fs::path(config_.backup_dir) / n, "old");
  config_.backup_schedule = "daily";
  config_.backup_keep = 3;
  EXPECT_EQ(media::start_scheduled_backup(config_, db(), clock_), media::ScheduledStart::ran);
  EXPECT_EQ(
      backups_in(config_.backup_dir),
      (std::vector<std::string>{
          "notes.txt", "peto-backup-20261203-030000-2.tar.gz", "peto-backup-20261203-030000.tar.gz",
          "peto-backup-20270115-080000.tar.gz", "peto-upload-20200101-000000.tar.gz"}));
  // A failed run deletes nothing.
  clock_.advance(std::chrono::hours(24));
  store::Cache cache(db(), clock_);
  ASSERT_TRUE(cache.add(media::kBackupLockKey, "someone-else", std::chrono::hours(6)));
  config_.backup_keep = 1;
  EXPECT_EQ(media::start_scheduled_backup(config_, db(), clock_), media::ScheduledStart::failed);
  EXPECT_EQ(backups_in(config_.backup_dir).size(), 5u);
}

TEST_P(BackupTest, CopyFailuresLeaveTheDatabaseUsable) {
  auto conn = db().acquire();
  if (!postgres()) {
    EXPECT_THROW(conn->copy_out("COPY cache TO STDOUT", [](std::string_view) {}), store::Error);
    EXPECT_THROW(conn->backup_to((dir() / "no-such-folder" / "x.db").string()), store::Error);
    return;
  }
  EXPECT_THROW(conn->backup_to((dir() / "x.db").string()), store::Error);
  conn->query("CREATE TABLE copied (id BIGINT PRIMARY KEY, note TEXT)");
  // Rows that break a constraint: the COPY fails, nothing is kept.
  int calls = 0;
  EXPECT_THROW(conn->copy_in("COPY copied (id, note) FROM STDIN",
                             [&](std::string& chunk) {
                               chunk = "1\tone\n1\tagain\n";
                               return ++calls < 1;
                             }),
               store::Error);
  EXPECT_EQ(conn->query("SELECT COUNT(*) FROM copied")[0].int_at(0), 0);
  // A source that throws ends the COPY; its exception comes through.
  EXPECT_THROW(conn->copy_in("COPY copied (id, note) FROM STDIN",
                             [&](std::string& chunk) -> bool {
                               chunk = "2\ttwo\n";
                               throw std::runtime_error("disk gone");
                             }),
               std::runtime_error);
  EXPECT_EQ(conn->query("SELECT COUNT(*) FROM copied")[0].int_at(0), 0);
  std::string in = "3\tthree\n4\t\\N\n";
  conn->copy_in("COPY copied (id, note) FROM STDIN", [&](std::string& chunk) {
    chunk = std::exchange(in, "");
    return false;
  });
  std::string out;
  conn->copy_out("COPY copied (id, note) TO STDOUT", [&](std::string_view d) { out += d; });
  EXPECT_EQ(out, "3\tthree\n4\t\\N\n");
  // A sink that throws mid-COPY: the connection is dropped, the pool goes on.
  EXPECT_THROW(conn->copy_out("COPY copied TO STDOUT",
                              [](std::string_view) { throw std::runtime_error("disk full"); }),
               std::runtime_error);
  EXPECT_FALSE(conn->healthy());
  conn = db().acquire();
  EXPECT_EQ(db().query("SELECT COUNT(*) FROM copied")[0].int_at(0), 2);
}

PETO_BOTH_BACKENDS(BackupTest);

// The commands, through the real binary, on SQLite.
class BackupCommandTest : public BackupTest {
 protected:
  using Ran = testing::Ran;
  Ran peto(const std::string& data_dir, const std::string& db_url, const std::string& args,
           const std::string& env = "") {
    return testing::run_peto(db_url, data_dir, args, dir(), env);
  }
};

TEST_P(BackupCommandTest, BackupThenRestoreWithExitCodes) {
  if (postgres()) GTEST_SKIP() << "the command test runs on SQLite";
  fill();
  const std::string out = (dir() / "out").string();
  Ran b = peto(config_.data_dir, url(), "backup --out '" + out + "'");
  ASSERT_EQ(b.code, 0) << b.out << b.err;
  std::string last = b.out.substr(0, b.out.size() - 1);
  last = last.substr(last.rfind('\n') + 1);
  EXPECT_TRUE(fs::exists(last)) << b.out;
  EXPECT_EQ(fs::path(last).parent_path(), fs::path(out));

  write_bytes(dir() / "a-file", "x");
  Ran bad_out = peto(config_.data_dir, url(), "backup --out '" + (dir() / "a-file").string() + "'");
  EXPECT_EQ(bad_out.code, 2);
  EXPECT_NE(bad_out.err.find("--out"), std::string::npos) << bad_out.err;

  // Onto the instance it came from: not empty.
  Ran busy = peto(config_.data_dir, url(), "restore '" + last + "'");
  EXPECT_EQ(busy.code, 2) << busy.out << busy.err;
  EXPECT_NE(busy.err.find("not empty"), std::string::npos) << busy.err;

  const fs::path fresh = dir() / "fresh";
  const std::string fresh_url = "sqlite://" + (fresh / "peto.db").string();
  write_bytes(dir() / "broken.tar.gz", read_bytes(last).substr(0, 1000));
  Ran broken =
      peto(fresh.string(), fresh_url, "restore '" + (dir() / "broken.tar.gz").string() + "'");
  EXPECT_EQ(broken.code, 2) << broken.out << broken.err;
  EXPECT_FALSE(fs::exists(fresh / "peto.db"));
  Ran missing =
      peto(fresh.string(), fresh_url, "restore '" + (dir() / "nope.tar.gz").string() + "'");
  EXPECT_EQ(missing.code, 2);

  Ran r = peto(fresh.string(), fresh_url, "restore '" + last + "'");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("restored sqlite database"), std::string::npos) << r.out;
  auto restored = store::Db::open(fresh_url, 1);
  EXPECT_EQ(snapshot(db()), snapshot(*restored));
  EXPECT_EQ(files_under(fs::path(config_.data_dir) / "media"), files_under(fresh / "media"));
}

TEST_P(BackupCommandTest, AManualBackupWaitsForNoOtherBackup) {
  if (postgres()) GTEST_SKIP() << "the command test runs on SQLite";
  const std::string out = (dir() / "out").string();
  store::Cache cache(db(), clock_);
  ASSERT_TRUE(cache.add(media::kBackupLockKey, "someone-else", std::chrono::hours(6)));
  Ran busy = peto(config_.data_dir, url(), "backup --out '" + out + "'");
  EXPECT_EQ(busy.code, 1) << busy.out << busy.err;
  EXPECT_EQ(busy.err, "peto: Another backup is running.\n");
  EXPECT_TRUE(backups_in(out).empty());
  EXPECT_EQ(cache.get(media::kBackupLockKey), "someone-else");
  ASSERT_TRUE(cache.delete_if(media::kBackupLockKey, "someone-else"));

  Ran ok = peto(config_.data_dir, url(), "backup --out '" + out + "'");
  ASSERT_EQ(ok.code, 0) << ok.out << ok.err;
  EXPECT_EQ(backups_in(out).size(), 1u);
  EXPECT_FALSE(cache.get(media::kBackupLockKey)) << "released";
}

TEST_P(BackupCommandTest, TheSchedulerWritesTheScheduledBackupAfterItsPass) {
  if (postgres()) GTEST_SKIP() << "the command test runs on SQLite";
  const std::string env =
      "PETO_BACKUP_SCHEDULE=daily PETO_BACKGROUND_WORK=false PETO_BACKUP_DIR='" +
      (dir() / "scheduled").string() + "' ";
  Ran first = peto(config_.data_dir, url(), "schedule");
  ASSERT_EQ(first.code, 0) << first.out << first.err;
  EXPECT_EQ(first.out.find("backup"), std::string::npos) << "off by default: " << first.out;
  Ran on = peto(config_.data_dir, url(), "schedule", env);
  ASSERT_EQ(on.code, 0) << on.out << on.err;
  EXPECT_TRUE(std::regex_search(on.out, std::regex(R"(\d{4}-\d\d-\d\d \d\d:\d\d backup written)")))
      << on.out;
  EXPECT_EQ(backups_in((dir() / "scheduled").string()).size(), 1u);
  EXPECT_EQ(state_int("last_run_ok"), 1);
  Ran again = peto(config_.data_dir, url(), "schedule", env);
  ASSERT_EQ(again.code, 0) << again.out << again.err;
  EXPECT_EQ(again.out.find("backup"), std::string::npos) << "one per slot: " << again.out;
  EXPECT_EQ(backups_in((dir() / "scheduled").string()).size(), 1u);

  // With a worker expected, the pass queues it and `peto work` writes it.
  db().query("UPDATE backup_state SET last_run_at = 0");
  const std::string queued_env =
      "PETO_BACKUP_SCHEDULE=daily PETO_BACKGROUND_WORK=true PETO_BACKUP_DIR='" +
      (dir() / "queued").string() + "' ";
  Ran queued = peto(config_.data_dir, url(), "schedule", queued_env);
  ASSERT_EQ(queued.code, 0) << queued.out << queued.err;
  EXPECT_NE(queued.out.find("backup queued"), std::string::npos) << queued.out;
  EXPECT_EQ(state_int("last_run_ok"), -1);
  EXPECT_TRUE(backups_in((dir() / "queued").string()).empty());
  Ran work = peto(config_.data_dir, url(), "work --once", queued_env);
  ASSERT_EQ(work.code, 0) << work.out << work.err;
  EXPECT_EQ(backups_in((dir() / "queued").string()).size(), 1u);
  EXPECT_EQ(state_int("last_run_ok"), 1);
}

PETO_BOTH_BACKENDS(BackupCommandTest);

}  // namespace
}  // namespace peto
