// Connections: a person's links to the outside world (kind "notifier",
// "store" or "sync"), several per plugin allowed.
//
//   Connections connections(db, clock, config);
//   auto made = connections.create(owner, "webhook", "My board",
//                                  {{"url", "https://…"}, {"secret", "…"}, {"event_went_quiet",
//                                  false}});
//   if (auto* errors = std::get_if<ConfigErrors>(&made)) { ... }   // nothing written
//
// A connection keeps its non-secret config as JSON and its secret fields
// (FieldSpec::secret) sealed with SecretBox under PETO_SECRET_KEY; secrets are
// never returned by list/get (only which secret fields are set). Per-event
// switches are config booleans "event_<name>" (notify/notifier.h: wants).
//
// Input (create/update `values`): every field of the plugin by name, as a
// JSON string, number or boolean; on update a field left out or a secret
// given as "" keeps its current value, except that secrets are bound to the
// address they were entered for: an update that changes a url field (where
// the secrets are sent) drops the stored secrets, and a required one must be
// given again ("error_secret_for_new_address"). Values are checked against the
// notifier's FieldSpecs (required, type, length ≤ 2000) and then by its
// validate(); errors name the field and nothing is written.
//
// enabled=false means switched off: nothing is sent and its deliveries wait.
// retire() switches a connection off with the reason in last_error and wipes
// its secrets (unless keep_secrets), when a send said it is unusable.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/clock.h"
#include "core/config.h"
#include "core/secret_box.h"
#include "media/stores.h"
#include "notify/notifier.h"
#include "plugin/connection_state.h"
#include "store/db.h"
#include "store/migrate.h"
#include "sync/syncs.h"

namespace peto::connections {

using notify::Notifier;
using plugin::ConfigErrors;
using plugin::FieldSpec;

// What a connection's plugin declares, whatever its kind: a notifier
// (notify/notifier.h), a store (media/stores.h) or a sync (sync/syncs.h),
// each a plugin::Plugin. Plugin names are unique across kinds, so the plugin
// decides the connection's kind.
struct PluginSpec {
  std::string kind;  // "notifier", "store" or "sync"
  std::string name;
  std::string label_key;
  std::vector<FieldSpec> fields;
  const Notifier* notifier = nullptr;    // when kind is "notifier"
  const media::Store* store = nullptr;   // when kind is "store"
  const sync::Syncer* syncer = nullptr;  // when kind is "sync"

  ConfigErrors validate(const nlohmann::json& config, const Config& instance) const;
  std::string summary(const nlohmann::json& config) const;
};
std::optional<PluginSpec> find_plugin(std::string_view name);
// Every plugin of `kind` ("notifier", "store", "sync"), in the "add" menu's order.
std::vector<PluginSpec> plugins(std::string_view kind);

struct Connection {
  std::int64_t id = 0;
  std::int64_t owner_id = 0;
  std::string kind = "notifier";  // or "store", "sync"
  std::string plugin;             // the notifier's, store's or syncer's name
  std::string label;
  nlohmann::json config = nlohmann::json::object();  // non-secret fields and event_* switches
  std::vector<std::string> secrets_set;              // names of secret fields that hold a value
  bool enabled = true;
  std::optional<Millis> last_ok_at;
  std::string last_error;
  Millis created_at = 0;
  Millis updated_at = 0;
};

class Connections {
 public:
  Connections(store::Db& db, const Clock& clock, const Config& config);

  // Migration 9: connections, deliveries (the outbox) and inbox_notices.
  static std::vector<store::Migration> migrations();

  std::vector<Connection> list(std::int64_t owner);  // newest first
  std::optional<Connection> get(std::int64_t owner, std::int64_t id);

  std::variant<Connection, ConfigErrors> create(std::int64_t owner, const std::string& plugin,
                                                const std::string& label,
                                                const nlohmann::json& values, bool enabled = true);
  // The same on `conn`, inside the caller's transaction (an API POST's).
  std::variant<Connection, ConfigErrors> create_in(store::Conn& conn, std::int64_t owner,
                                                   const std::string& plugin,
                                                   const std::string& label,
                                                   const nlohmann::json& values,
                                                   bool enabled = true);
  // `label` and `enabled` unchanged when nullopt. nullopt result: no such
  // connection of this owner.
  std::optional<std::variant<Connection, ConfigErrors>> update(
      std::int64_t owner, std::int64_t id, const std::optional<std::string>& label,
      const nlohmann::json& values, std::optional<bool> enabled);
  bool remove(std::int64_t owner, std::int64_t id);  // its deliveries keep a NULL connection

  // Config and secrets merged (secrets win); nullopt when the secrets cannot
  // be opened (PETO_SECRET_KEY changed).
  std::optional<nlohmann::json> full_config(store::Conn& conn, std::int64_t id);

  // Sends a test notification now (event "test", no key, delivery id
  // "test") — or, for a store, copies a small text file named
  // "peto-test.txt" to it — settles the outcome on the connection as a
  // delivery or a copy would (plugin::settle: refused credentials switch it
  // off) and returns it (a store's declined reads as final).
  std::optional<plugin::Outcome> test(std::int64_t owner, std::int64_t id,
                                      const net::HttpClient& http, const std::string& language);

  // The outcome of a use: ok sets last_ok_at and clears last_error; a failure
  // keeps last_ok_at and sets last_error ("Failed without saying why." when
  // empty). Both on `conn`, inside the caller's transaction if any.
  void record(store::Conn& conn, std::int64_t id, bool ok, const std::string& message);
  void retire(store::Conn& conn, std::int64_t id, const std::string& reason, bool keep_secrets);

 private:
  std::optional<plugin::Outcome> test_store(store::Conn& conn, const media::Store& store,
                                            std::int64_t owner, std::int64_t id,
                                            const net::HttpClient& http);
  std::variant<nlohmann::json, ConfigErrors> checked(const PluginSpec& n, nlohmann::json current,
                                                     const nlohmann::json& values);
  static bool points_elsewhere(const PluginSpec& n, const nlohmann::json& current,
                               const nlohmann::json& values);
  store::Db& db_;
  const Clock& clock_;
  const Config& config_;
  SecretBox box_;
  plugin::ConnectionState state_;
};

}  // namespace peto::connections
