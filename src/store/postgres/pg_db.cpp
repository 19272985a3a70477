// The PostgreSQL backend of Db (see store/db.h), on libpq, and PgListener.
//
// A statement run with parameters becomes a named prepared statement of its
// connection (s1, s2…), so a hot statement is parsed and planned once per
// connection. One Db is one URL (one database, one search_path), so a cache
// keyed on the SQL text cannot mix schemas. Statements without parameters
// (DDL, transaction control, one-off text) run unprepared.
#include <libpq-fe.h>
#include <poll.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "store/backends.h"
#include "store/postgres/pg_listen.h"

namespace peto::store {
namespace {

using Kind = Error::Kind;

// Past this many prepared statements on one connection, new statements run
// unprepared: SQL built at run time (IN lists of varying length) must not grow
// the server's memory without bound.
constexpr std::size_t kMaxPrepared = 256;
constexpr std::size_t kSqlInMessage = 200;

struct ResultDeleter {
  void operator()(PGresult* r) const { PQclear(r); }
};
using Result = std::unique_ptr<PGresult, ResultDeleter>;

struct ConnDeleter {
  void operator()(PGconn* c) const { PQfinish(c); }
};
using ConnPtr = std::unique_ptr<PGconn, ConnDeleter>;

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

bool starts_with_word(const char* status, std::string_view word) {
  return std::string_view(status).substr(0, word.size()) == word;
}

// The URL with any password replaced by ***: the user:password@ part of a URL
// and password=… as a query parameter or key=value pair.
std::string hide_password(std::string s) {
  if (auto scheme = s.find("://"); scheme != std::string::npos) {
    std::size_t start = scheme + 3;
    std::size_t end = std::min(s.find_first_of("/?", start), s.size());
    std::size_t at = s.rfind('@', end);
    if (at != std::string::npos && at >= start) {
      std::size_t colon = s.find(':', start);
      if (colon < at) s.replace(colon + 1, at - colon - 1, "***");
    }
  }
  for (auto pos = s.find("password="); pos != std::string::npos;
       pos = s.find("password=", pos + 1)) {
    std::size_t value = pos + 9;
    std::size_t end = std::min(s.find_first_of("& ", value), s.size());
    s.replace(value, end - value, "***");
  }
  return s;
}

// The Kind of a failure, from its SQLSTATE and whether the connection survived.
Kind classify(std::string_view state, bool conn_ok) {
  if (!conn_ok || state.starts_with("08") || state == "57P01" || state == "57P02" ||
      state == "57P03")
    return Kind::connection;
  if (state.starts_with("23")) return Kind::constraint;
  if (state == "40001" || state == "40P01" || state == "55P03") return Kind::busy;
  return Kind::statement;
}

// An Error for a failed statement: the server's message (and detail), the
// SQLSTATE and the start of the SQL. `r` may be null (libpq ran out of memory
// or lost the connection before a result).
Error error_of(PGconn* c, const PGresult* r, std::string_view sql) {
  auto field = [r](int code) -> std::string {
    const char* v = r ? PQresultErrorField(r, code) : nullptr;
    return v ? v : "";
  };
  std::string state = field(PG_DIAG_SQLSTATE);
  std::string msg = field(PG_DIAG_MESSAGE_PRIMARY);
  if (msg.empty() && r) msg = trimmed(PQresultErrorMessage(r));
  if (msg.empty()) msg = trimmed(PQerrorMessage(c));
  if (msg.empty() && r) msg = std::string("unexpected result ") + PQresStatus(PQresultStatus(r));
  if (std::string detail = field(PG_DIAG_MESSAGE_DETAIL); !detail.empty())
    msg += " (" + detail + ")";
  std::string text = "postgres: " + msg;
  if (!state.empty()) text += " [" + state + "]";
  text += " in: " + std::string(sql.substr(0, kSqlInMessage));
  return Error(classify(state, PQstatus(c) == CONNECTION_OK), text);
}

bool succeeded(const PGresult* r) {
  if (!r) return false;
  auto s = PQresultStatus(r);
  return s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK || s == PGRES_EMPTY_QUERY;
}

// Opens a connection with peto's session settings: UTC, warnings and worse
// only, application_name=peto and a 5 s connect timeout unless the URL says
// otherwise (settings before dbname are overridden by the expanded URL).
ConnPtr connect(const std::string& conninfo, const std::string& shown) {
  const char* keys[] = {"connect_timeout", "application_name", "dbname", nullptr};
  const char* values[] = {"5", "peto", conninfo.c_str(), nullptr};
  ConnPtr c(PQconnectdbParams(keys, values, 1));
  if (!c) throw Error(Kind::connection, "cannot connect to " + shown + ": out of memory");
  if (PQstatus(c.get()) != CONNECTION_OK)
    throw Error(Kind::connection,
                "cannot connect to " + shown + ": " + trimmed(PQerrorMessage(c.get())));
  const char* setup = "SET TimeZone = 'UTC'; SET client_min_messages = warning";
  Result r(PQexec(c.get(), setup));
  if (!succeeded(r.get())) throw error_of(c.get(), r.get(), setup);
  return c;
}

// `value` as PostgreSQL text input; `scratch` keeps converted numbers alive.
const char* text_of(const Value& value, std::string& scratch) {
  if (value.is_null()) return nullptr;
  if (const std::string* s = value.text_ptr()) return s->c_str();
  if (value.is_real()) {
    char buf[32];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value.as_real());
    scratch.assign(buf, ec == std::errc() ? end : buf);
  } else {
    scratch = std::to_string(value.as_int());
  }
  return scratch.c_str();
}

Rows rows_of(const PGresult* r) {
  Rows out;
  int nrows = PQntuples(r);
  int ncols = PQnfields(r);
  out.rows.reserve(static_cast<std::size_t>(nrows));
  auto names = std::make_shared<std::vector<std::string>>();
  for (int j = 0; j < ncols; ++j) names->emplace_back(PQfname(r, j));
  for (int i = 0; i < nrows; ++i) {
    std::vector<Value> cells;
    cells.reserve(static_cast<std::size_t>(ncols));
    for (int j = 0; j < ncols; ++j) {
      if (PQgetisnull(r, i, j))
        cells.emplace_back();
      else
        cells.emplace_back(std::string(PQgetvalue(r, i, j), PQgetlength(r, i, j)));
    }
    out.rows.emplace_back(std::move(cells), names);
  }
  // PQcmdTuples also counts the rows of a SELECT; `affected` is for changes.
  const char* status = PQcmdStatus(const_cast<PGresult*>(r));
  if (starts_with_word(status, "INSERT") || starts_with_word(status, "UPDATE") ||
      starts_with_word(status, "DELETE") || starts_with_word(status, "MERGE")) {
    std::string_view n = PQcmdTuples(const_cast<PGresult*>(r));
    std::from_chars(n.data(), n.data() + n.size(), out.affected);
  }
  return out;
}

class PgConn final : public Conn {
 public:
  PgConn(ConnPtr conn, std::atomic<std::uint64_t>* total) : c_(std::move(conn)), total_(total) {}

  Dialect dialect() const override { return Dialect::postgres; }
  Rows query(std::string_view sql, const Params& params) override;
  Rows query_for_values(std::string_view sql, const Params& params) override;
  void run_script(std::string_view sql) override;
  void begin_write() override { control("BEGIN"); }
  // REPEATABLE READ gives every statement of the transaction one snapshot, as
  // a read transaction does on SQLite; read-only, it never fails to serialize.
  void begin_read() override { control("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"); }
  void commit() override;
  void rollback() override { control("ROLLBACK"); }
  bool healthy() const override { return healthy_ && PQstatus(c_.get()) == CONNECTION_OK; }
  std::uint64_t statements_run() const override { return run_; }
  void copy_out(std::string_view sql, const std::function<void(std::string_view)>& sink) override;
  void copy_in(std::string_view sql, const std::function<bool(std::string&)>& source) override;

  // For the pool: outside any transaction, so the next borrower starts clean.
  bool idle() const { return PQtransactionStatus(c_.get()) == PQTRANS_IDLE; }
  bool still_open();

 private:
  enum class Plan { cached, for_values };
  Rows run(std::string_view sql, const Params& params, Plan plan);
  Result exec(const std::string& sql, const Params& params, Plan plan);
  Result exec_prepared(const std::string& sql, int n, const char* const* values);
  const std::string& prepare(const std::string& sql, int n);
  void forget(const std::string& sql);
  Result control(const char* sql);
  [[noreturn]] void fail(const PGresult* r, std::string_view sql);
  void count() {
    ++run_;
    total_->fetch_add(1, std::memory_order_relaxed);
  }

  ConnPtr c_;
  std::atomic<std::uint64_t>* total_;
  std::uint64_t run_ = 0;
  bool healthy_ = true;
  std::unordered_map<std::string, std::string> prepared_;  // SQL → statement name
  std::uint64_t next_name_ = 0;
};

void PgConn::fail(const PGresult* r, std::string_view sql) {
  Error e = error_of(c_.get(), r, sql);
  if (e.kind() == Kind::connection) healthy_ = false;
  throw std::move(e);
}

Rows PgConn::query(std::string_view sql, const Params& params) {
  return run(sql, params, Plan::cached);
}

// Unnamed statements are planned for the values they are sent with; a
// prepared one may settle on a generic plan after five runs.
Rows PgConn::query_for_values(std::string_view sql, const Params& params) {
  return run(sql, params, Plan::for_values);
}

Rows PgConn::run(std::string_view sql, const Params& params, Plan plan) {
  count();
  std::string text = to_dollar_params(sql);
  Result r = exec(text, params, plan);
  if (!succeeded(r.get())) fail(r.get(), sql);
  return rows_of(r.get());
}

Result PgConn::exec(const std::string& sql, const Params& params, Plan plan) {
  std::vector<std::string> scratch(params.size());
  std::vector<const char*> values(params.size());
  for (std::size_t i = 0; i < params.size(); ++i) values[i] = text_of(params[i], scratch[i]);
  int n = static_cast<int>(params.size());
  if (plan == Plan::cached && n > 0 && (prepared_.size() < kMaxPrepared || prepared_.contains(sql)))
    return exec_prepared(sql, n, values.data());
  return Result(
      PQexecParams(c_.get(), sql.c_str(), n, nullptr, values.data(), nullptr, nullptr, 0));
}

// Runs the prepared form of `sql`. A DDL statement that changes what a cached
// statement returns (SELECT * after ADD COLUMN) makes the server refuse it from
// then on ("cached plan must not change result type", 0A000; matched on the
// code alone, the text may be translated). The statement is dropped and, outside
// a transaction, prepared and run again once; inside one the transaction is
// already aborted, so the error goes to the caller and the next call prepares.
Result PgConn::exec_prepared(const std::string& sql, int n, const char* const* values) {
  for (int attempt = 0;; ++attempt) {
    const std::string& name = prepare(sql, n);
    Result r(PQexecPrepared(c_.get(), name.c_str(), n, values, nullptr, nullptr, 0));
    const char* state = r ? PQresultErrorField(r.get(), PG_DIAG_SQLSTATE) : nullptr;
    if (!state || std::string_view(state) != "0A000") return r;
    forget(sql);
    if (attempt > 0 || !idle()) return r;
  }
}

// The name of the prepared statement for `sql`, preparing it on first use.
const std::string& PgConn::prepare(const std::string& sql, int n) {
  if (auto it = prepared_.find(sql); it != prepared_.end()) return it->second;
  std::string name = "s" + std::to_string(++next_name_);
  Result r(PQprepare(c_.get(), name.c_str(), sql.c_str(), n, nullptr));
  if (!succeeded(r.get())) fail(r.get(), sql);
  return prepared_.emplace(sql, std::move(name)).first->second;
}

void PgConn::forget(const std::string& sql) {
  auto it = prepared_.find(sql);
  if (it == prepared_.end()) return;
  // Names are never reused, so a DEALLOCATE that fails (in an aborted
  // transaction) only leaves an unused statement on the server.
  Result r(PQexec(c_.get(), ("DEALLOCATE " + it->second).c_str()));
  prepared_.erase(it);
}

Result PgConn::control(const char* sql) {
  count();
  Result r(PQexec(c_.get(), sql));
  if (!succeeded(r.get())) fail(r.get(), sql);
  return r;
}

// COMMIT of a transaction in which a statement failed answers ROLLBACK without
// an error; the caller asked for a commit, so that is an error here.
void PgConn::commit() {
  Result r = control("COMMIT");
  if (starts_with_word(PQcmdStatus(r.get()), "ROLLBACK"))
    throw Error(Kind::statement,
                "postgres: transaction rolled back at COMMIT: an earlier statement failed");
}

void PgConn::run_script(std::string_view sql) {
  count();
  std::string text(sql);
  Result r(PQexec(c_.get(), text.c_str()));
  if (!succeeded(r.get())) fail(r.get(), sql);
}

// A COPY's last results: the first says how it ended; the rest are read so
// that the connection is ready for the next statement.
Result copy_result(PGconn* c) {
  Result first(PQgetResult(c));
  while (Result more{PQgetResult(c)}) {
  }
  return first;
}

// If `sink` throws (the disk is full), the rest of the COPY is still on the
// wire; the connection is marked broken so that the pool closes it.
void PgConn::copy_out(std::string_view sql, const std::function<void(std::string_view)>& sink) {
  count();
  std::string text(sql);
  Result r(PQexec(c_.get(), text.c_str()));
  if (!r || PQresultStatus(r.get()) != PGRES_COPY_OUT) fail(r.get(), sql);
  for (;;) {
    char* buf = nullptr;
    int n = PQgetCopyData(c_.get(), &buf, 0);
    if (n == -1) break;
    if (n < 0) {
      healthy_ = false;
      fail(nullptr, sql);
    }
    try {
      sink(std::string_view(buf, static_cast<std::size_t>(n)));
    } catch (...) {
      PQfreemem(buf);
      healthy_ = false;
      throw;
    }
    PQfreemem(buf);
  }
  Result end = copy_result(c_.get());
  if (!succeeded(end.get())) fail(end.get(), sql);
}

// If `source` throws, the COPY is ended with an error (the server discards
// what it got) and the exception goes on to the caller.
void PgConn::copy_in(std::string_view sql, const std::function<bool(std::string&)>& source) {
  count();
  std::string text(sql);
  Result r(PQexec(c_.get(), text.c_str()));
  if (!r || PQresultStatus(r.get()) != PGRES_COPY_IN) fail(r.get(), sql);
  std::exception_ptr thrown;
  try {
    std::string chunk;
    for (bool more = true; more;) {
      chunk.clear();
      more = source(chunk);
      if (!chunk.empty() &&
          PQputCopyData(c_.get(), chunk.data(), static_cast<int>(chunk.size())) != 1) {
        healthy_ = false;
        fail(nullptr, sql);
      }
    }
  } catch (...) {
    thrown = std::current_exception();
  }
  if (thrown) {
    if (PQputCopyEnd(c_.get(), "peto stopped the copy") == 1)
      copy_result(c_.get());
    else
      healthy_ = false;
    std::rethrow_exception(thrown);
  }
  if (PQputCopyEnd(c_.get(), nullptr) != 1) {
    healthy_ = false;
    fail(nullptr, sql);
  }
  Result end = copy_result(c_.get());
  if (!succeeded(end.get())) fail(end.get(), sql);
}

// True if this idle connection can still be used. A server restart or
// pg_terminate_backend leaves a FATAL message and then end-of-file on the
// socket of every idle connection; reading them here, rather than in the
// borrower's first statement, lets the pool replace the connection unseen.
bool PgConn::still_open() {
  for (int i = 0; i < 4 && healthy(); ++i) {
    pollfd p{PQsocket(c_.get()), POLLIN, 0};
    int n = poll(&p, 1, 0);
    if (n == 0) return true;
    if (n < 0 && errno != EINTR) return false;
    if (n > 0 && !PQconsumeInput(c_.get())) return false;
  }
  return healthy();
}

class PgDb final : public Db {
 public:
  PgDb(std::string conninfo, int pool_size)
      : conninfo_(std::move(conninfo)),
        shown_(hide_password(conninfo_)),
        pool_size_(pool_size > 0 ? pool_size : 1) {}

  Dialect dialect() const override { return Dialect::postgres; }
  Lease acquire() override;
  std::uint64_t statements_run() const override { return total_.load(); }
  std::string describe() const override { return shown_; }

 protected:
  void give_back(std::unique_ptr<Conn> conn) override;

 private:
  void release_slot();

  const std::string conninfo_;
  const std::string shown_;
  const int pool_size_;
  std::mutex mu_;
  std::condition_variable freed_;
  int out_ = 0;                                // connections lent, guarded by mu_
  std::vector<std::unique_ptr<PgConn>> idle_;  // guarded by mu_
  std::atomic<std::uint64_t> total_{0};
};

Lease PgDb::acquire() {
  std::unique_ptr<PgConn> conn;
  {
    std::unique_lock lock(mu_);
    freed_.wait(lock, [this] { return out_ < pool_size_; });
    ++out_;
    if (!idle_.empty()) {
      conn = std::move(idle_.back());
      idle_.pop_back();
    }
  }
  // Checked and connected outside the lock: both may wait on the network.
  if (conn && !conn->still_open()) conn.reset();
  if (!conn) {
    try {
      conn = std::make_unique<PgConn>(connect(conninfo_, shown_), &total_);
    } catch (...) {
      release_slot();
      throw;
    }
  }
  return Lease(this, std::move(conn));
}

// A connection that broke, or comes back inside a transaction, is closed; the
// next acquire opens a new one.
void PgDb::give_back(std::unique_ptr<Conn> conn) {
  auto* pg = static_cast<PgConn*>(conn.get());
  bool keep = pg->healthy() && pg->idle();
  {
    std::lock_guard lock(mu_);
    --out_;
    if (keep) idle_.emplace_back(static_cast<PgConn*>(conn.release()));
  }
  freed_.notify_one();
}  // a dropped connection is closed here, outside the lock

void PgDb::release_slot() {
  {
    std::lock_guard lock(mu_);
    --out_;
  }
  freed_.notify_one();
}

// LISTEN on `channel`; false (with the error in `err`) if it failed.
bool listen_on(PGconn* c, const std::string& channel, std::string* err) {
  char* quoted = PQescapeIdentifier(c, channel.data(), channel.size());
  if (!quoted) {
    *err = trimmed(PQerrorMessage(c));
    return false;
  }
  std::string sql = std::string("LISTEN ") + quoted;
  PQfreemem(quoted);
  Result r(PQexec(c, sql.c_str()));
  if (succeeded(r.get())) return true;
  *err = error_of(c, r.get(), sql).what();
  return false;
}

}  // namespace

std::unique_ptr<Db> open_postgres(const std::string& conninfo, int pool_size) {
  auto db = std::make_unique<PgDb>(conninfo, pool_size);
  {
    Lease first = db->acquire();  // a wrong URL or a server down fails here
  }
  return db;
}

PgListener::PgListener(std::string conninfo) : conninfo_(std::move(conninfo)) {
  conn_ = connect(conninfo_, hide_password(conninfo_)).release();
}

PgListener::~PgListener() {
  if (conn_) PQfinish(conn_);
}

void PgListener::listen(const std::string& channel) {
  std::string err;
  if (!conn_ || !listen_on(conn_, channel, &err))
    throw Error(Kind::connection, err.empty() ? "postgres: listener not connected" : err);
  channels_.push_back(channel);
}

bool PgListener::wait(std::chrono::milliseconds timeout) {
  using std::chrono::steady_clock;
  auto deadline = steady_clock::now() + timeout;
  for (;;) {
    if (!conn_ || PQstatus(conn_) != CONNECTION_OK) {
      recover(deadline);
      return false;
    }
    bool got = false;
    while (PGnotify* n = PQnotifies(conn_)) {
      got = true;
      PQfreemem(n);
    }
    if (got) return true;
    auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{PQsocket(conn_), POLLIN, 0};
    int n = poll(&p, 1, static_cast<int>(left.count()));
    if ((n < 0 && errno != EINTR) || (n > 0 && !PQconsumeInput(conn_))) {
      recover(deadline);
      return false;
    }
  }
}

// Replaces a broken connection and LISTENs again; if the server cannot be
// reached, waits out the deadline so that a caller's loop does not spin.
void PgListener::recover(std::chrono::steady_clock::time_point deadline) {
  if (conn_) PQfinish(conn_);
  conn_ = nullptr;
  try {
    ConnPtr c = connect(conninfo_, hide_password(conninfo_));
    std::string err;
    for (const auto& channel : channels_)
      if (!listen_on(c.get(), channel, &err)) throw Error(Kind::connection, err);
    conn_ = c.release();
  } catch (const Error&) {
    std::this_thread::sleep_until(deadline);
  }
}

}  // namespace peto::store
