#include "store/db.h"

#include <charconv>

#include "core/clock.h"
#include "store/backends.h"

namespace peto::store {

std::int64_t Value::as_int() const {
  if (auto* i = std::get_if<std::int64_t>(&v_)) return *i;
  if (auto* d = std::get_if<double>(&v_)) return static_cast<std::int64_t>(*d);
  if (auto* s = std::get_if<std::string>(&v_)) {
    std::int64_t out = 0;
    auto [ptr, ec] = std::from_chars(s->data(), s->data() + s->size(), out);
    if (ec == std::errc() && ptr == s->data() + s->size()) return out;
    // PostgreSQL hands booleans back as t/f.
    if (*s == "t") return 1;
    if (*s == "f") return 0;
    throw Error(Error::Kind::statement, "not an integer: '" + *s + "'");
  }
  throw Error(Error::Kind::statement, "integer expected, got NULL");
}

double Value::as_real() const {
  if (auto* d = std::get_if<double>(&v_)) return *d;
  if (auto* i = std::get_if<std::int64_t>(&v_)) return static_cast<double>(*i);
  if (auto* s = std::get_if<std::string>(&v_)) {
    try {
      std::size_t used = 0;
      double d = std::stod(*s, &used);
      if (used == s->size()) return d;
    } catch (const std::exception&) {
    }
    throw Error(Error::Kind::statement, "not a number: '" + *s + "'");
  }
  throw Error(Error::Kind::statement, "number expected, got NULL");
}

std::string Value::as_text() const {
  if (auto* s = std::get_if<std::string>(&v_)) return *s;
  if (auto* i = std::get_if<std::int64_t>(&v_)) return std::to_string(*i);
  if (auto* d = std::get_if<double>(&v_)) return std::to_string(*d);
  return "";
}

std::optional<std::int64_t> Row::opt_int(std::size_t i) const {
  if (cells_.at(i).is_null()) return std::nullopt;
  return cells_.at(i).as_int();
}

std::optional<std::string> Row::opt_text(std::size_t i) const {
  if (cells_.at(i).is_null()) return std::nullopt;
  return cells_.at(i).as_text();
}

std::size_t Row::index_of(std::string_view column) const {
  if (columns_)
    for (std::size_t i = 0; i < columns_->size(); ++i)
      if ((*columns_)[i] == column) return i;
  throw Error(Error::Kind::statement, "the result has no column \"" + std::string(column) + "\"");
}

Lease::~Lease() {
  if (db_ && conn_) db_->give_back(std::move(conn_));
}

void Conn::copy_out(std::string_view, const std::function<void(std::string_view)>&) {
  throw Error(Error::Kind::statement, "COPY is PostgreSQL's");
}

void Conn::copy_in(std::string_view, const std::function<bool(std::string&)>&) {
  throw Error(Error::Kind::statement, "COPY is PostgreSQL's");
}

void Conn::backup_to(const std::string&) {
  throw Error(Error::Kind::statement, "the online backup API is SQLite's");
}

Rows Db::query(std::string_view sql, const Params& params) {
  auto conn = acquire();
  return conn->query(sql, params);
}

std::unique_ptr<Db> Db::open(const std::string& url, int pool_size) {
  if (url.rfind("sqlite://", 0) == 0) return open_sqlite(url.substr(9), pool_size);
  if (url.rfind("postgres://", 0) == 0 || url.rfind("postgresql://", 0) == 0)
    return open_postgres(url, pool_size);
  throw Error(Error::Kind::connection,
              "unsupported database URL (use sqlite://PATH or postgres://…)");
}

Value now_param(const peto::Clock& clock) {
  if (auto pinned = clock.pinned_ms()) return Value(static_cast<long long>(*pinned));
  return Value();
}

std::string placeholders(std::size_t n) {
  std::string s = "(";
  for (std::size_t i = 0; i < n; ++i) s += i ? ", ?" : "?";
  return s + ")";
}

std::string to_dollar_params(std::string_view sql) {
  std::string out;
  out.reserve(sql.size() + 16);
  int n = 0;
  char quote = 0;
  for (std::size_t i = 0; i < sql.size(); ++i) {
    char c = sql[i];
    if (quote) {
      if (c == quote) quote = 0;
      out += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      out += c;
    } else if (c == '?') {
      out += '$';
      out += std::to_string(++n);
    } else {
      out += c;
    }
  }
  return out;
}

void ping(Db& db) { db.query("SELECT 1"); }

}  // namespace peto::store
