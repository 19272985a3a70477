// Syncs: connections of kind "sync" that keep a person's interviews and
// reminders in step with a CalDAV calendar, and their contacts with a CardDAV
// address book (docs/SPEC.md §6, Syncs; docs/RULES.md #576, second half).
//
//   sync::Syncs syncs(db, cache, clock, config, http);
//   for (const auto& due : syncs.due()) {            // interval elapsed, enabled, owner active
//     if (budget.spent()) break;
//     auto turn = syncs.run_turn(due);                // claim, lease, run, record
//   }
//   auto report = syncs.run_now(owner, id);           // "Sync now" from the page
//
// Never twice at once. A turn is claimed first with a conditional UPDATE of
// synced_at on the value read (a run that dies costs the connection one
// interval, not for ever); then a key lease "sync:<id>" (15 min TTL, a random
// token, released only by its holder) guards the plugin call itself, which
// also keeps "Sync now" from running beside a pass. A held lease gives the
// report "already running" and no plugin call.
//
// A run's outcome is saved on the connection: synced_at = the run's start,
// last_ok_at and a cleared last_error on success, last_error (first 500
// characters) on failure, and last_report (JSON of the report) either way.
// A connection whose server says its credentials are refused is retired as a
// notifier's is.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/config.h"
#include "net/http.h"
#include "plugin/attempt.h"
#include "plugin/plugin.h"
#include "store/cache.h"
#include "store/db.h"
#include "store/migrate.h"

namespace peto::sync {

using plugin::ConfigErrors;
using plugin::FieldSpec;

// What one run did: counts by name (absent = 0) — "pushed" (local changes
// written to the server), "pulled" (remote changes written here), "created"
// (records made here from the server), "uploaded" (members made on the
// server), "deleted_here", "deleted_there", "conflicts" (both sides changed:
// the server's version won), "skipped" (members that are not peto's to
// read, e.g. events of another calendar app) — notes for the person, and an
// error ("" when the run succeeded).
struct SyncReport {
  std::map<std::string, std::int64_t> counts;
  std::vector<std::string> notes;
  std::string error;
  bool unusable = false;         // the server refused the credentials: retire
  bool already_running = false;  // the lease was held: nothing ran
  nlohmann::json to_json() const;
  static SyncReport from_json(const nlohmann::json& j);  // tolerant: junk gives an empty report
  void add(const std::string& count, std::int64_t n = 1) { counts[count] += n; }
};

// A run's report as the outcome of an attempt against its connection
// (plugin/attempt.h): unusable; done when there is no error; retry otherwise
// (the next turn comes with the interval). A sync's connection keeps its
// secrets when it is retired.
plugin::Outcome as_outcome(const SyncReport& report);

// What a run may use.
struct SyncContext {
  store::Db& db;
  const Clock& clock;
  const Config& config;
  const net::HttpClient& http;
  std::int64_t connection_id = 0;
  std::int64_t owner_id = 0;
  std::string time_zone = "UTC";  // the owner's, for floating times
  std::string language = "en";    // the owner's, for the words peto writes out
  // When the run starts no more items (the monotonic clock): well inside
  // the lease, so a run never outlives the lease that keeps it single.
  std::chrono::steady_clock::time_point deadline{};
  const nlohmann::json& settings;  // the connection's config with its secrets
};

// A sync plugin: declares its connection's fields, checks them, and runs.
// run() must not throw for a failure of the other side (an exception is an
// ordinary error, reported as "Type: message").
// A syncer's name is "caldav" or "carddav"; its label is in locales/*/syncs.json.
class Syncer : public plugin::Plugin {
 public:
  std::string_view kind() const final { return "sync"; }
  virtual SyncReport run(SyncContext& ctx) const = 0;
};

const std::vector<const Syncer*>& syncers();
const Syncer* find_syncer(std::string_view name);

// Whether two collection addresses name the same collection: scheme and
// host compared without case, the default port left out, the path compared
// percent-decoded and without its final '/'.
bool same_collection(const std::string& a, const std::string& b);

// Forgets what sync `connection_id` knew of its collection (its links and
// its sync-token), so its next run starts afresh; on `conn`, inside the
// caller's transaction.
void forget_collection(store::Conn& conn, std::int64_t connection_id);

// The fields every sync connection has besides its plugin's: "interval".
FieldSpec interval_field();
// The interval in minutes: 15, 60, 240 or 1440; anything else is 60.
int interval_minutes(const nlohmann::json& config);

class Syncs {
 public:
  static constexpr auto kLeaseTtl = std::chrono::minutes(15);
  // A run starts no item after this; an item takes at most a few requests of
  // DavSettings::timeout (30 s) each, so the run ends before its lease does.
  static constexpr auto kWorkLimit = std::chrono::minutes(12);

  Syncs(store::Db& db, store::Cache& cache, const Clock& clock, const Config& config,
        const net::HttpClient& http);

  // Migration 13: sync_links, connections.sync_token, the due index and
  // calendar_feeds.
  static std::vector<store::Migration> migrations();

  struct Due {
    std::int64_t id = 0;
    std::int64_t owner_id = 0;
    std::optional<Millis> synced_at;  // as read: the turn claim's expected value
  };
  // Enabled sync connections of active owners whose interval has elapsed
  // (or that never ran), never-run first, then oldest synced_at.
  std::vector<Due> due(int limit = 1000);

  enum class Turn { ran, failed, claimed_elsewhere, already_running };
  // Claims the turn (synced_at = now where it is still `due.synced_at`),
  // takes the lease, runs the plugin and records the outcome.
  Turn run_turn(const Due& due);

  // "Sync now": no turn claim (the person asked), the same lease. The page
  // passes a short `work_limit` (it waits for the answer); what is left is
  // done by the next run. nullopt: no such sync connection of this owner.
  std::optional<SyncReport> run_now(
      std::int64_t owner, std::int64_t id,
      std::chrono::milliseconds work_limit = std::chrono::milliseconds(kWorkLimit));

  // The last report saved on a connection (empty when it never ran).
  std::optional<SyncReport> last_report(std::int64_t owner, std::int64_t id);

 private:
  SyncReport run_locked(std::int64_t id, std::int64_t owner, Millis started,
                        std::chrono::milliseconds work_limit);
  store::Db& db_;
  store::Cache& cache_;
  const Clock& clock_;
  const Config& config_;
  const net::HttpClient& http_;
};

}  // namespace peto::sync
