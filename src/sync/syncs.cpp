#include "sync/syncs.h"

#include <cxxabi.h>

#include <boost/url.hpp>
#include <cctype>

#include <cstdlib>
#include <memory>
#include <typeinfo>

#include "core/log.h"
#include "engine/gate.h"
#include "plugin/attempt.h"
#include "plugin/connection_state.h"

namespace peto::sync {

using nlohmann::json;

namespace {

// "Type: message", as Postulo reports an exception a plugin raised.
std::string exception_text(const std::exception& e) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(
      abi::__cxa_demangle(typeid(e).name(), nullptr, nullptr, &status), std::free);
  std::string type = status == 0 && name ? name.get() : typeid(e).name();
  if (auto colons = type.rfind("::"); colons != std::string::npos) type = type.substr(colons + 2);
  return type + ": " + e.what();
}

// The parts of a collection address that name the collection.
std::string collection_key(const std::string& url) {
  auto u = boost::urls::parse_uri(url);
  if (!u) return url;
  std::string scheme = u->scheme();
  const auto encoded_host = u->encoded_host();
  std::string host(encoded_host.data(), encoded_host.size());
  for (char& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (char& c : host) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string port = u->port();
  if ((scheme == "https" && port == "443") || (scheme == "http" && port == "80")) port = "";
  std::string path = u->path();  // decoded
  while (!path.empty() && path.back() == '/') path.pop_back();
  return scheme + "://" + host + ":" + port + path;
}

}  // namespace

void forget_collection(store::Conn& conn, std::int64_t connection_id) {
  conn.query("DELETE FROM sync_links WHERE connection_id = ?", {connection_id});
  conn.query("UPDATE connections SET sync_token = '' WHERE id = ?", {connection_id});
}

bool same_collection(const std::string& a, const std::string& b) {
  return collection_key(a) == collection_key(b);
}

plugin::Outcome as_outcome(const SyncReport& report) {
  using K = plugin::Outcome::Kind;
  const K kind = report.unusable ? K::unusable : report.error.empty() ? K::done : K::retry;
  return {kind, report.error, std::nullopt, true};
}

json SyncReport::to_json() const {
  json j = {{"counts", counts}, {"notes", notes}, {"error", error}};
  if (already_running) j["already_running"] = true;
  return j;
}

SyncReport SyncReport::from_json(const json& j) {
  SyncReport r;
  if (!j.is_object()) return r;
  if (auto c = j.find("counts"); c != j.end() && c->is_object())
    for (const auto& [name, n] : c->items())
      if (n.is_number_integer()) r.counts[name] = n.get<std::int64_t>();
  if (auto n = j.find("notes"); n != j.end() && n->is_array())
    for (const auto& note : *n)
      if (note.is_string()) r.notes.push_back(note.get<std::string>());
  if (auto e = j.find("error"); e != j.end() && e->is_string()) r.error = e->get<std::string>();
  if (auto a = j.find("already_running"); a != j.end() && a->is_boolean())
    r.already_running = a->get<bool>();
  return r;
}

Syncs::Syncs(store::Db& db, store::Cache& cache, const Clock& clock, const Config& config,
             const net::HttpClient& http)
    : db_(db), cache_(cache), clock_(clock), config_(config), http_(http) {}

std::vector<Syncs::Due> Syncs::due(int limit) {
  const Millis now = clock_.now_ms();
  std::vector<Due> out;
  // The interval lives in the config JSON, so the query takes every enabled
  // sync connection that ran at least 15 minutes ago (the shortest interval)
  // and the interval is checked here.
  for (const auto& r : db_.query("SELECT c.id, c.owner_id, c.synced_at, c.config FROM connections c"
                                 " JOIN users u ON u.id = c.owner_id"
                                 " WHERE c.kind = 'sync' AND c.enabled = 1 AND u.active = 1"
                                 " AND (c.synced_at IS NULL OR c.synced_at <= ?)"
                                 " ORDER BY c.synced_at IS NOT NULL, c.synced_at, c.id",
                                 {now - 15 * 60'000})) {
    Due d;
    d.id = r.int_at("id");
    d.owner_id = r.int_at("owner_id");
    d.synced_at = r.opt_int("synced_at");
    if (d.synced_at) {
      json config = json::parse(r.text("config"), nullptr, false);
      if (*d.synced_at > now - Millis{interval_minutes(config)} * 60'000) continue;
    }
    out.push_back(d);
    if (static_cast<int>(out.size()) >= limit) break;
  }
  return out;
}

Syncs::Turn Syncs::run_turn(const Due& due) {
  const Millis started = clock_.now_ms();
  // docs/RULES.md #576: the turn is this run's only if synced_at is still what was read.
  auto claimed = due.synced_at ? db_.query(
                                     "UPDATE connections SET synced_at = ? WHERE id = ?"
                                     " AND kind = 'sync' AND enabled = 1 AND synced_at = ?",
                                     {started, due.id, *due.synced_at})
                               : db_.query(
                                     "UPDATE connections SET synced_at = ? WHERE id = ?"
                                     " AND kind = 'sync' AND enabled = 1 AND synced_at IS NULL",
                                     {started, due.id});
  if (claimed.affected == 0) {
    log::info("sync", "claimed by another run", {{"connection", due.id}});
    return Turn::claimed_elsewhere;
  }
  auto lease = engine::KeyLease::take(cache_, "sync:" + std::to_string(due.id), kLeaseTtl);
  if (!lease) {
    log::info("sync", "already running", {{"connection", due.id}});
    return Turn::already_running;
  }
  SyncReport report = run_locked(due.id, due.owner_id, started, kWorkLimit);
  return report.error.empty() ? Turn::ran : Turn::failed;
}

std::optional<SyncReport> Syncs::run_now(std::int64_t owner, std::int64_t id,
                                         std::chrono::milliseconds work_limit) {
  if (db_.query(
             "SELECT 1 AS found FROM connections WHERE id = ? AND owner_id = ? AND kind = 'sync'",
             {id, owner})
          .empty())
    return std::nullopt;
  auto lease = engine::KeyLease::take(cache_, "sync:" + std::to_string(id), kLeaseTtl);
  if (!lease) {
    SyncReport busy;
    busy.already_running = true;
    return busy;
  }
  return run_locked(id, owner, clock_.now_ms(), work_limit);
}

std::optional<SyncReport> Syncs::last_report(std::int64_t owner, std::int64_t id) {
  auto rows = db_.query(
      "SELECT last_report FROM connections WHERE id = ? AND owner_id = ? AND kind = 'sync'",
      {id, owner});
  if (rows.empty()) return std::nullopt;
  return SyncReport::from_json(json::parse(rows[0].text("last_report"), nullptr, false));
}

SyncReport Syncs::run_locked(std::int64_t id, std::int64_t owner, Millis started,
                             std::chrono::milliseconds work_limit) {
  plugin::ConnectionState connections(clock_, config_);
  SyncReport report;
  auto rows = db_.query(
      "SELECT c.plugin, u.time_zone, u.language FROM connections c"
      " JOIN users u ON u.id = c.owner_id WHERE c.id = ? AND c.owner_id = ?",
      {id, owner});
  if (rows.empty()) return report;  // deleted meanwhile
  const Syncer* syncer = find_syncer(rows[0].text("plugin"));
  std::optional<json> settings;
  {
    auto conn = db_.acquire();
    settings = connections.full_config(*conn, id);
  }
  if (syncer == nullptr) {
    report.error = "The sync plugin \"" + rows[0].text("plugin") + "\" is not installed.";
  } else if (!settings) {
    report.error = "The connection's secrets cannot be read (was PETO_SECRET_KEY changed?).";
  } else {
    SyncContext ctx{db_,
                    clock_,
                    config_,
                    http_,
                    id,
                    owner,
                    rows[0].text("time_zone"),
                    rows[0].text("language"),
                    clock_.mono() + work_limit,
                    *settings};
    if (ctx.time_zone.empty()) ctx.time_zone = "UTC";
    if (ctx.language.empty()) ctx.language = "en";
    try {
      report = syncer->run(ctx);
    } catch (const std::exception& e) {
      report.error = exception_text(e);
    }
  }
  db_.write([&](store::Conn& conn) {
    conn.query(
        "UPDATE connections SET synced_at = ?, last_report = ? WHERE id = ?",
        {started, report.to_json().dump(-1, ' ', false, json::error_handler_t::replace), id});
    plugin::settle(connections, conn, id, as_outcome(report));
  });
  log::info("sync", report.error.empty() ? "sync ran" : "sync failed",
            {{"connection", id}, {"counts", report.counts}, {"error", report.error}});
  return report;
}

std::vector<store::Migration> Syncs::migrations() {
  auto tables = [](const std::string& id) {
    // One row per (connection, member) peto keeps in step: the record here
    // (kind and id; NULL once it is deleted here and the deletion is not yet
    // carried over), the member there (href, uid, ETag as last seen) and the
    // hash of the text peto last wrote or read for it. record_created_at tells
    // a record from a later one that was given the same id.
    return "CREATE TABLE sync_links (" + id +
           ", connection_id BIGINT NOT NULL REFERENCES connections (id) ON DELETE CASCADE,"
           " record_kind TEXT NOT NULL, record_id BIGINT, record_created_at BIGINT,"
           " uid TEXT NOT NULL, href TEXT NOT NULL,"
           " etag TEXT NOT NULL DEFAULT '', local_hash TEXT NOT NULL DEFAULT '',"
           " synced_at BIGINT NOT NULL);"
           "CREATE UNIQUE INDEX sync_links_uid ON sync_links (connection_id, uid);"
           "CREATE UNIQUE INDEX sync_links_href ON sync_links (connection_id, href);"
           "CREATE INDEX sync_links_record ON sync_links (record_kind, record_id);"
           // RFC 6578: where the last listing of the collection left off.
           "ALTER TABLE connections ADD COLUMN sync_token TEXT NOT NULL DEFAULT '';"
           "CREATE INDEX connections_sync_due ON connections (kind, synced_at);"
           // The .ics feed's secret, by its SHA-256.
           "CREATE TABLE calendar_feeds (owner_id BIGINT PRIMARY KEY"
           " REFERENCES users (id) ON DELETE CASCADE, token_hash TEXT NOT NULL,"
           " created_at BIGINT NOT NULL);"
           "CREATE UNIQUE INDEX calendar_feeds_token ON calendar_feeds (token_hash);";
  };
  return {{13, "syncs", tables("id INTEGER PRIMARY KEY"),
           tables("id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY")}};
}

}  // namespace peto::sync
