// The SQLite backend: one file, several connections, WAL.
//
// Every connection sets WAL (readers never block the writer), a busy timeout
// (a writer waits for the lock instead of failing), foreign keys, and defines
// now_ms() so that SQL written for PostgreSQL's clock runs here unchanged.
// Prepared statements are cached per connection, and the cache is emptied
// after every kStatementsPerCache statements the connection runs: a cached
// statement keeps memory it took while running (glibc's heap grew by about
// 45 bytes a scheduler pass, without end, in bench/soak/pass_soak.cpp), and
// starting afresh from time to time returns it for a few re-prepares.
#include <sqlite3.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <unordered_map>

#include "store/backends.h"

namespace peto::store {

namespace {

constexpr int kBusyTimeoutMs = 15000;
constexpr std::uint64_t kStatementsPerCache = 20000;

void now_ms_fn(sqlite3_context* ctx, int, sqlite3_value**) {
  using namespace std::chrono;
  sqlite3_result_int64(ctx,
                       duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count());
}

Error::Kind kind_of(int rc) {
  switch (rc & 0xff) {
    case SQLITE_CONSTRAINT:
      return Error::Kind::constraint;
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return Error::Kind::busy;
    case SQLITE_CANTOPEN:
    case SQLITE_NOTADB:
      return Error::Kind::connection;
    default:
      return Error::Kind::statement;
  }
}

// Process-wide settings, before SQLite's first use. Memory statistics are
// off: keeping them takes one global mutex on every allocation, which the
// server's threads then queue on; peto never reads them.
void configure_sqlite_once() {
  static std::once_flag once;
  std::call_once(once, [] { sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); });
}

class SqliteConn final : public Conn {
 public:
  explicit SqliteConn(const std::string& path, std::atomic<std::uint64_t>* counter)
      : counter_(counter) {
    configure_sqlite_once();
    int rc =
        sqlite3_open_v2(path.c_str(), &db_,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
    if (rc != SQLITE_OK) {
      std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
      sqlite3_close(db_);
      db_ = nullptr;
      throw Error(Error::Kind::connection, "cannot open SQLite database " + path + ": " + msg);
    }
    sqlite3_busy_timeout(db_, kBusyTimeoutMs);
    sqlite3_extended_result_codes(db_, 1);
    sqlite3_create_function(db_, "now_ms", 0, SQLITE_UTF8, nullptr, now_ms_fn, nullptr, nullptr);
    // A page cache of 16 MiB a connection (SQLite's default is 2 MiB), and
    // the file mapped into memory (up to 256 MiB) rather than copied in by
    // read(): the pages that read a whole search (insights, the report,
    // exports) then read it from memory on every visit, from any connection.
    run_script(
        "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;"
        " PRAGMA cache_size=-16384; PRAGMA mmap_size=268435456;");
  }

  ~SqliteConn() override {
    for (auto& [sql, stmt] : cache_) sqlite3_finalize(stmt);
    sqlite3_close_v2(db_);
  }

  Dialect dialect() const override { return Dialect::sqlite; }

  Rows query(std::string_view sql, const Params& params) override {
    sqlite3_stmt* stmt = prepare(sql);
    struct Reset {
      sqlite3_stmt* s;
      ~Reset() {
        sqlite3_reset(s);
        sqlite3_clear_bindings(s);
      }
    } reset{stmt};
    int expected = sqlite3_bind_parameter_count(stmt);
    if (expected != static_cast<int>(params.size()))
      throw Error(Error::Kind::statement, "statement takes " + std::to_string(expected) +
                                              " parameters, got " + std::to_string(params.size()) +
                                              ": " + std::string(sql.substr(0, 200)));
    for (std::size_t i = 0; i < params.size(); ++i) bind(stmt, static_cast<int>(i) + 1, params[i]);
    ++*counter_;
    ++run_;
    Rows out;
    Row::Columns names;
    for (;;) {
      int rc = sqlite3_step(stmt);
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW) fail(rc, sql);
      // Read after step: a schema change re-prepares the statement inside it.
      int cols = sqlite3_column_count(stmt);
      if (!names) names = column_names(stmt, cols);
      std::vector<Value> cells;
      cells.reserve(cols);
      for (int c = 0; c < cols; ++c) cells.push_back(column(stmt, c));
      out.rows.emplace_back(std::move(cells), names);
    }
    out.affected = sqlite3_stmt_readonly(stmt) ? 0 : sqlite3_changes(db_);
    return out;
  }

  void run_script(std::string_view sql) override {
    std::string text(sql);
    char* err = nullptr;
    ++*counter_;
    ++run_;
    int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &err);
    if (rc != SQLITE_OK) {
      std::string msg = err ? err : sqlite3_errstr(rc);
      sqlite3_free(err);
      throw Error(kind_of(rc), msg + " in: " + text.substr(0, 200));
    }
  }

  void begin_write() override { query("BEGIN IMMEDIATE", {}); }
  void begin_read() override { query("BEGIN", {}); }
  void commit() override { query("COMMIT", {}); }
  void rollback() override {
    if (!sqlite3_get_autocommit(db_)) query("ROLLBACK", {});
  }
  bool healthy() const override { return db_ != nullptr; }
  std::uint64_t statements_run() const override { return run_; }

  // One step of -1 copies every page under one read snapshot: in WAL mode the
  // writers go on meanwhile, and the copy is the database as of its start.
  void backup_to(const std::string& path) override {
    sqlite3* dest = nullptr;
    int rc =
        sqlite3_open_v2(path.c_str(), &dest,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
    auto fail_with = [&](const std::string& why) {
      sqlite3_close(dest);
      throw Error(Error::Kind::statement,
                  "cannot copy the SQLite database to " + path + ": " + why);
    };
    if (rc != SQLITE_OK) fail_with(dest ? sqlite3_errmsg(dest) : "out of memory");
    ++*counter_;
    ++run_;
    sqlite3_backup* copy = sqlite3_backup_init(dest, "main", db_, "main");
    if (!copy) fail_with(sqlite3_errmsg(dest));
    for (int tries = 0;; ++tries) {
      rc = sqlite3_backup_step(copy, -1);
      if ((rc != SQLITE_BUSY && rc != SQLITE_LOCKED) || tries >= kBusyTimeoutMs / 50) break;
      sqlite3_sleep(50);
    }
    int finish = sqlite3_backup_finish(copy);
    if (rc != SQLITE_DONE) fail_with(sqlite3_errstr(rc));
    if (finish != SQLITE_OK) fail_with(sqlite3_errmsg(dest));
    if (sqlite3_close(dest) != SQLITE_OK)
      throw Error(Error::Kind::statement, "cannot close the SQLite copy " + path);
  }

 private:
  sqlite3_stmt* prepare(std::string_view sql) {
    // No cached statement is in use here: query() steps one to the end and
    // resets it before it returns.
    if (++since_emptied_ >= kStatementsPerCache) {
      for (auto& [text, stmt] : cache_) sqlite3_finalize(stmt);
      cache_.clear();
      since_emptied_ = 0;
    }
    std::string key(sql);
    if (auto it = cache_.find(key); it != cache_.end()) return it->second;
    sqlite3_stmt* stmt = nullptr;
    const char* tail = nullptr;
    int rc = sqlite3_prepare_v3(db_, key.c_str(), static_cast<int>(key.size()),
                                SQLITE_PREPARE_PERSISTENT, &stmt, &tail);
    if (rc != SQLITE_OK) fail(rc, sql);
    if (!stmt) throw Error(Error::Kind::statement, "empty statement");
    cache_.emplace(std::move(key), stmt);
    return stmt;
  }

  void bind(sqlite3_stmt* stmt, int i, const Value& v) {
    int rc;
    if (v.is_null())
      rc = sqlite3_bind_null(stmt, i);
    else if (v.is_int())
      rc = sqlite3_bind_int64(stmt, i, v.as_int());
    else if (v.is_real())
      rc = sqlite3_bind_double(stmt, i, v.as_real());
    else {
      const std::string* s = v.text_ptr();
      rc = sqlite3_bind_text(stmt, i, s->data(), static_cast<int>(s->size()), SQLITE_TRANSIENT);
    }
    if (rc != SQLITE_OK) fail(rc, "bind");
  }

  // The columns' names (their `AS` alias, else the column's own), read once
  // per result and shared by its rows.
  static Row::Columns column_names(sqlite3_stmt* stmt, int cols) {
    auto names = std::make_shared<std::vector<std::string>>();
    names->reserve(static_cast<std::size_t>(cols));
    for (int c = 0; c < cols; ++c) {
      const char* name = sqlite3_column_name(stmt, c);
      names->emplace_back(name ? name : "");
    }
    return names;
  }

  static Value column(sqlite3_stmt* stmt, int c) {
    switch (sqlite3_column_type(stmt, c)) {
      case SQLITE_NULL:
        return Value();
      case SQLITE_INTEGER:
        return Value(static_cast<long long>(sqlite3_column_int64(stmt, c)));
      case SQLITE_FLOAT:
        return Value(sqlite3_column_double(stmt, c));
      default: {
        auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt, c));
        return Value(
            std::string(p ? p : "", static_cast<std::size_t>(sqlite3_column_bytes(stmt, c))));
      }
    }
  }

  [[noreturn]] void fail(int rc, std::string_view sql) {
    throw Error(kind_of(rc),
                std::string(sqlite3_errmsg(db_)) + " in: " + std::string(sql.substr(0, 200)));
  }

  sqlite3* db_ = nullptr;
  std::atomic<std::uint64_t>* counter_;
  std::uint64_t run_ = 0;
  std::unordered_map<std::string, sqlite3_stmt*> cache_;
  std::uint64_t since_emptied_ = 0;
};

class SqliteDb final : public Db {
 public:
  SqliteDb(std::string path, int pool_size) : path_(std::move(path)), pool_size_(pool_size) {
    std::filesystem::path p(path_);
    if (p.has_parent_path()) {
      std::error_code ec;
      std::filesystem::create_directories(p.parent_path(), ec);
    }
    idle_.push_back(std::make_unique<SqliteConn>(path_, &counter_));  // fail early
  }

  Dialect dialect() const override { return Dialect::sqlite; }

  Lease acquire() override {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return !idle_.empty() || out_ < pool_size_; });
    ++out_;
    if (!idle_.empty()) {
      auto conn = std::move(idle_.back());
      idle_.pop_back();
      return Lease(this, std::move(conn));
    }
    lock.unlock();
    try {
      return Lease(this, std::make_unique<SqliteConn>(path_, &counter_));
    } catch (...) {
      std::lock_guard again(mu_);
      --out_;
      cv_.notify_one();
      throw;
    }
  }

  std::uint64_t statements_run() const override { return counter_.load(); }
  std::string describe() const override { return "sqlite://" + path_; }

 protected:
  void give_back(std::unique_ptr<Conn> conn) override {
    // A transaction left open (a unit of work that threw) is rolled back; a
    // connection that cannot even do that is dropped.
    try {
      conn->rollback();
    } catch (const Error&) {
      conn.reset();
    }
    std::lock_guard lock(mu_);
    --out_;
    if (conn) idle_.push_back(std::move(conn));
    cv_.notify_one();
  }

 private:
  std::string path_;
  int pool_size_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::unique_ptr<Conn>> idle_;
  int out_ = 0;
  std::atomic<std::uint64_t> counter_{0};
};

}  // namespace

std::unique_ptr<Db> open_sqlite(const std::string& path, int pool_size) {
  if (path.empty() || path == ":memory:")
    throw Error(Error::Kind::connection, "sqlite:// needs a file path");
  return std::make_unique<SqliteDb>(path, pool_size < 1 ? 1 : pool_size);
}

}  // namespace peto::store
