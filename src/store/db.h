// Db: the one way peto runs SQL, on SQLite or PostgreSQL.
//
// A Db is opened from a URL (sqlite://PATH or postgres://…) and owns a small
// pool of connections. Callers borrow a connection for one unit of work:
//
//   auto conn = db.acquire();
//   Rows r = conn->query("SELECT value FROM cache WHERE key = ?", {key});
//
// SQL is written once for both backends: parameters are `?` (rewritten to $1,
// $2… on PostgreSQL), times are BIGINT milliseconds since the epoch (UTC), and
// `now_ms()` is the database's clock on both (a function peto defines). Where
// the dialects really differ, branch on dialect() next to the statement.
//
// Without a transaction each statement commits on its own, which is what makes
// a conditional UPDATE claim visible to every other process at once. A write
// transaction is BEGIN IMMEDIATE on SQLite (it takes the write lock up front,
// so it never fails half-way on a lock upgrade) and BEGIN on PostgreSQL.
//
// Errors: a statement that fails, or a database that cannot be reached, throws
// store::Error. That ends the unit of work (a request, a step, a task), which
// catches it at its boundary; the connection goes back to the pool and a broken
// PostgreSQL connection is replaced on the next acquire, so a server restart
// costs the work in flight and nothing more.
//
// Thread safety: a Db is thread-safe; a Conn is used by one thread at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace peto::store {

enum class Dialect { sqlite, postgres };

class Error : public std::runtime_error {
 public:
  enum class Kind { statement, connection, constraint, busy };
  Error(Kind kind, const std::string& what) : std::runtime_error(what), kind_(kind) {}
  Kind kind() const { return kind_; }

 private:
  Kind kind_;
};

struct Null {};
inline constexpr Null null{};

// A parameter or a column value. Text is also how PostgreSQL hands back every
// value; the accessors of Row convert.
class Value {
 public:
  Value() : v_(std::monostate{}) {}
  Value(Null) : v_(std::monostate{}) {}                     // NOLINT
  Value(std::nullptr_t) : v_(std::monostate{}) {}           // NOLINT
  Value(int v) : v_(static_cast<std::int64_t>(v)) {}        // NOLINT
  Value(long v) : v_(static_cast<std::int64_t>(v)) {}       // NOLINT
  Value(long long v) : v_(static_cast<std::int64_t>(v)) {}  // NOLINT
  Value(bool v) : v_(static_cast<std::int64_t>(v)) {}       // NOLINT
  Value(double v) : v_(v) {}                                // NOLINT
  Value(std::string v) : v_(std::move(v)) {}                // NOLINT
  Value(std::string_view v) : v_(std::string(v)) {}         // NOLINT
  Value(const char* v) : v_(std::string(v)) {}              // NOLINT
  template <typename T>
  Value(const std::optional<T>& v) : Value() {  // NOLINT
    if (v) *this = Value(*v);
  }

  bool is_null() const { return std::holds_alternative<std::monostate>(v_); }
  bool is_int() const { return std::holds_alternative<std::int64_t>(v_); }
  bool is_real() const { return std::holds_alternative<double>(v_); }
  bool is_text() const { return std::holds_alternative<std::string>(v_); }
  std::int64_t as_int() const;  // converts text; throws Error on null or junk
  double as_real() const;
  std::string as_text() const;  // "" for null
  const std::string* text_ptr() const { return std::get_if<std::string>(&v_); }

 private:
  std::variant<std::monostate, std::int64_t, double, std::string> v_;
};

using Params = std::vector<Value>;

// One result row. Read a cell by its column's name (`row.text("title")`):
// the name is the column's own or its `AS` alias, so a SELECT may reorder its
// columns freely. Reading by position is for code that copies whole tables.
class Row {
 public:
  using Columns = std::shared_ptr<const std::vector<std::string>>;
  explicit Row(std::vector<Value> cells, Columns columns = {})
      : cells_(std::move(cells)), columns_(std::move(columns)) {}
  std::size_t size() const { return cells_.size(); }
  const Value& operator[](std::size_t i) const { return cells_.at(i); }
  bool is_null(std::size_t i) const { return cells_.at(i).is_null(); }
  std::int64_t int_at(std::size_t i) const { return cells_.at(i).as_int(); }
  std::optional<std::int64_t> opt_int(std::size_t i) const;
  std::string text(std::size_t i) const { return cells_.at(i).as_text(); }
  std::optional<std::string> opt_text(std::size_t i) const;
  // The name of column `i` ("" when the backend gave none): for code that
  // copies whole rows (domain/trash.cpp).
  std::string name_at(std::size_t i) const {
    return columns_ && i < columns_->size() ? (*columns_)[i] : std::string();
  }

  // The same by column name; an unknown name throws Error.
  const Value& at(std::string_view column) const { return cells_.at(index_of(column)); }
  bool is_null(std::string_view column) const { return at(column).is_null(); }
  std::int64_t int_at(std::string_view column) const { return at(column).as_int(); }
  std::optional<std::int64_t> opt_int(std::string_view column) const {
    return opt_int(index_of(column));
  }
  std::string text(std::string_view column) const { return at(column).as_text(); }
  std::optional<std::string> opt_text(std::string_view column) const {
    return opt_text(index_of(column));
  }

 private:
  std::size_t index_of(std::string_view column) const;
  std::vector<Value> cells_;
  Columns columns_;
};

struct Rows {
  std::vector<Row> rows;
  std::int64_t affected = 0;  // rows changed by INSERT/UPDATE/DELETE
  bool empty() const { return rows.empty(); }
  std::size_t size() const { return rows.size(); }
  const Row& operator[](std::size_t i) const { return rows.at(i); }
  auto begin() const { return rows.begin(); }
  auto end() const { return rows.end(); }
};

// One connection. Used by one thread at a time.
class Conn {
 public:
  virtual ~Conn() = default;
  virtual Dialect dialect() const = 0;
  // Runs one statement. `?` marks parameters (never inside string literals
  // that contain '?': write such text as a parameter).
  virtual Rows query(std::string_view sql, const Params& params = {}) = 0;
  // The same, planned for these very values each time rather than once for
  // any: for a read over a range of the person's choosing (a period), where
  // one plan for every range is wrong for some. SQLite always plans so.
  virtual Rows query_for_values(std::string_view sql, const Params& params) {
    return query(sql, params);
  }
  // Runs several statements separated by ';', without parameters.
  virtual void run_script(std::string_view sql) = 0;
  // Transactions: prefer Db::write / with_write below, which roll back on throw.
  virtual void begin_write() = 0;
  virtual void begin_read() = 0;
  virtual void commit() = 0;
  virtual void rollback() = 0;
  // False once the connection is known to be unusable (server gone).
  virtual bool healthy() const = 0;
  // Statements run on this connection since it was opened (for benchmarks
  // and the tests that count queries).
  virtual std::uint64_t statements_run() const = 0;

  // Whole-database copies for backup and restore (media/backups.cpp); the
  // other backend throws Error. PostgreSQL: runs `COPY … TO STDOUT` and hands
  // each chunk of its output to `sink`.
  virtual void copy_out(std::string_view sql, const std::function<void(std::string_view)>& sink);
  // PostgreSQL: runs `COPY … FROM STDIN`, sending what `source` puts in its
  // argument until it returns false. A failure throws and ends the COPY.
  virtual void copy_in(std::string_view sql, const std::function<bool(std::string&)>& source);
  // SQLite: writes a consistent copy of the database to the new file `path`
  // with the online backup API, while other connections go on writing.
  virtual void backup_to(const std::string& path);
};

class Db;

// A borrowed connection; goes back to the pool when destroyed.
class Lease {
 public:
  Lease(Db* db, std::unique_ptr<Conn> conn) : db_(db), conn_(std::move(conn)) {}
  Lease(Lease&&) noexcept = default;
  Lease& operator=(Lease&&) noexcept = default;
  ~Lease();
  Conn* operator->() const { return conn_.get(); }
  Conn& operator*() const { return *conn_; }

 private:
  Db* db_;
  std::unique_ptr<Conn> conn_;
};

class Db {
 public:
  virtual ~Db() = default;

  // Opens sqlite://PATH (relative paths are relative to the working folder;
  // the folder is created) or postgres://… / postgresql://… . The pool holds
  // at most `pool_size` connections. Throws Error when the database cannot be
  // opened or reached.
  static std::unique_ptr<Db> open(const std::string& url, int pool_size = 4);

  virtual Dialect dialect() const = 0;
  // Borrows a connection, opening one if the pool is empty; waits when
  // `pool_size` are out. Throws Error if a new connection cannot be made.
  virtual Lease acquire() = 0;
  // Statements run by every connection of this Db so far.
  virtual std::uint64_t statements_run() const = 0;
  // A human-readable form of the URL with any password removed.
  virtual std::string describe() const = 0;

  // Shorthand: one statement on a borrowed connection.
  Rows query(std::string_view sql, const Params& params = {});

  // Runs `fn` in a write transaction on one borrowed connection; commits when
  // it returns, rolls back and rethrows when it throws.
  template <typename Fn>
  auto write(Fn&& fn) -> decltype(fn(std::declval<Conn&>()));

 protected:
  friend class Lease;
  virtual void give_back(std::unique_ptr<Conn> conn) = 0;
};

// Runs `fn(conn)` in the transaction `conn` has just begun: commits when it
// returns, rolls back and rethrows when it throws.
template <typename Fn>
auto finish_transaction(Conn& conn, Fn&& fn) -> decltype(fn(conn)) {
  try {
    if constexpr (std::is_void_v<decltype(fn(conn))>) {
      fn(conn);
      conn.commit();
    } else {
      auto out = fn(conn);
      conn.commit();
      return out;
    }
  } catch (...) {
    try {
      conn.rollback();
    } catch (...) {
    }
    throw;
  }
}

// Runs `fn(conn)` inside a write transaction on an already borrowed connection.
template <typename Fn>
auto with_write(Conn& conn, Fn&& fn) -> decltype(fn(conn)) {
  conn.begin_write();
  return finish_transaction(conn, std::forward<Fn>(fn));
}

// Runs `fn(conn)` inside a read transaction: its statements see one snapshot,
// and on SQLite they share one read lock instead of taking one each.
template <typename Fn>
auto with_read(Conn& conn, Fn&& fn) -> decltype(fn(conn)) {
  conn.begin_read();
  return finish_transaction(conn, std::forward<Fn>(fn));
}

template <typename Fn>
auto Db::write(Fn&& fn) -> decltype(fn(std::declval<Conn&>())) {
  auto conn = acquire();
  return with_write(*conn, std::forward<Fn>(fn));
}

}  // namespace peto::store

namespace peto {
class Clock;
namespace store {
// The `now` parameter for statements written as `COALESCE(?, now_ms())`: null
// (the database's clock) with the real clock, the pinned time with a fake one.
Value now_param(const peto::Clock& clock);
// Runs `SELECT 1`: whether the database answers a statement now. Throws
// store::Error (within the backend's connect timeout) when it does not.
void ping(Db& db);
// Rewrites `?` placeholders to $1, $2… (outside quotes), for PostgreSQL.
std::string to_dollar_params(std::string_view sql);

// "(?, ?, ?)" for n parameters: an IN list or one row of a multi-row INSERT.
std::string placeholders(std::size_t n);
}  // namespace store
}  // namespace peto
