#include "connections/connections.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "core/i18n.h"
#include "core/log.h"
#include "core/text.h"
#include "engine/gate.h"
#include "media/stores.h"
#include "media/uploads.h"
#include "plugin/attempt.h"
#include "plugin/connection_state.h"
#include "store/cache.h"
#include "sync/syncs.h"

namespace peto::connections {

namespace {

using nlohmann::json;

constexpr const char* kColumns =
    "id, owner_id, kind, plugin, label, config, secrets_encrypted, enabled, last_ok_at,"
    " last_error, created_at, updated_at";
constexpr std::size_t kMaxValue = 2000;
constexpr std::size_t kMaxLabel = 100;

using text::trimmed;

// The names of the secret fields set in a sealed JSON object.
std::vector<std::string> secret_names(const json& secrets) {
  std::vector<std::string> names;
  for (const auto& [k, v] : secrets.items())
    if (v.is_string() && !v.get<std::string>().empty()) names.push_back(k);
  return names;
}

// A form or API value as the field's JSON type; nullopt when it is not one.
std::optional<json> typed(const FieldSpec& f, const json& v) {
  using T = FieldSpec::Type;
  if (f.type == T::boolean) {
    if (v.is_boolean()) return v;
    if (v.is_string()) {
      auto s = v.get<std::string>();
      if (s == "true" || s == "on" || s == "1") return true;
      if (s == "false" || s == "off" || s == "0" || s.empty()) return false;
    }
    return std::nullopt;
  }
  if (f.type == T::integer) {
    if (v.is_number_integer()) return v;
    if (v.is_string()) {
      auto s = trimmed(v.get<std::string>());
      if (s.empty()) return json("");
      try {
        std::size_t used = 0;
        long long n = std::stoll(s, &used);
        if (used == s.size()) return json(n);
      } catch (const std::exception&) {
      }
    }
    return std::nullopt;
  }
  if (!v.is_string()) return std::nullopt;
  std::string s = v.get<std::string>();
  if (f.type != T::textarea && f.type != T::password) s = trimmed(s);
  return json(s);
}

bool is_blank(const json& v) {
  return v.is_null() || (v.is_string() && v.get<std::string>().empty());
}

}  // namespace

namespace {

PluginSpec spec_of(const Notifier& n) {
  return {"notifier", std::string(n.name()), std::string(n.label_key()), n.fields(), &n, nullptr,
          nullptr};
}

PluginSpec spec_of(const media::Store& st) {
  return {"store", std::string(st.name()), std::string(st.label_key()), st.fields(), nullptr, &st,
          nullptr};
}

PluginSpec spec_of(const sync::Syncer& sy) {
  return {
      "sync", std::string(sy.name()), std::string(sy.label_key()), sy.fields(), nullptr, nullptr,
      &sy};
}

}  // namespace

namespace {

const plugin::Plugin* plugin_of(const PluginSpec& spec) {
  if (spec.notifier != nullptr) return spec.notifier;
  if (spec.store != nullptr) return spec.store;
  return spec.syncer;
}

}  // namespace

ConfigErrors PluginSpec::validate(const json& config, const Config& instance) const {
  const plugin::Plugin* p = plugin_of(*this);
  return p != nullptr ? p->validate(config, instance) : ConfigErrors{};
}

std::string PluginSpec::summary(const json& config) const {
  const plugin::Plugin* p = plugin_of(*this);
  return p != nullptr ? p->summary(config) : std::string();
}

std::optional<PluginSpec> find_plugin(std::string_view name) {
  if (const Notifier* n = notify::find_notifier(name)) return spec_of(*n);
  if (const media::Store* st = media::find_store(name)) return spec_of(*st);
  if (const sync::Syncer* sy = sync::find_syncer(name)) return spec_of(*sy);
  return std::nullopt;
}

std::vector<PluginSpec> plugins(std::string_view kind) {
  std::vector<PluginSpec> out;
  if (kind == "notifier")
    for (const Notifier* n : notify::notifiers()) out.push_back(spec_of(*n));
  if (kind == "store")
    for (const media::Store* st : media::stores()) out.push_back(spec_of(*st));
  if (kind == "sync")
    for (const sync::Syncer* sy : sync::syncers()) out.push_back(spec_of(*sy));
  return out;
}

Connections::Connections(store::Db& db, const Clock& clock, const Config& config)
    : db_(db), clock_(clock), config_(config), box_(config.secret_key), state_(clock, config) {}

std::vector<store::Migration> Connections::migrations() {
  auto tables = [](const std::string& id) {
    return "CREATE TABLE connections (" + id +
           ", owner_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,"
           " kind TEXT NOT NULL, plugin TEXT NOT NULL, label TEXT NOT NULL,"
           " config TEXT NOT NULL, secrets_encrypted TEXT NOT NULL DEFAULT '',"
           " enabled INTEGER NOT NULL DEFAULT 1, last_ok_at BIGINT,"
           " last_error TEXT NOT NULL DEFAULT '', synced_at BIGINT,"
           " last_report TEXT NOT NULL DEFAULT '',"
           " created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL);"
           "CREATE INDEX connections_owner ON connections (owner_id, kind);"
           // The outbox: one row per (connection, announcement). body holds the
           // exact payload bytes every attempt sends; it is cleared on arrival.
           "CREATE TABLE deliveries (" +
           id +
           ", owner_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,"
           " connection_id BIGINT REFERENCES connections (id) ON DELETE SET NULL,"
           " event TEXT NOT NULL, key TEXT NOT NULL, body TEXT NOT NULL,"
           " status TEXT NOT NULL DEFAULT 'pending', attempts INTEGER NOT NULL DEFAULT 0,"
           " next_attempt_at BIGINT, last_attempt_at BIGINT, last_status INTEGER,"
           " last_error TEXT NOT NULL DEFAULT '', sent_at BIGINT, created_at BIGINT NOT NULL);"
           "CREATE UNIQUE INDEX deliveries_connection_key ON deliveries (connection_id, key);"
           "CREATE INDEX deliveries_due ON deliveries (next_attempt_at)"
           " WHERE status IN ('pending', 'failed');"
           "CREATE INDEX deliveries_finished ON deliveries (created_at)"
           " WHERE status IN ('sent', 'given_up');"
           "CREATE INDEX deliveries_owner ON deliveries (owner_id, id);"
           "CREATE TABLE inbox_notices (" +
           id +
           ", owner_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,"
           " event TEXT NOT NULL, title TEXT NOT NULL, body TEXT NOT NULL, url TEXT NOT NULL,"
           " key TEXT NOT NULL, shown_at BIGINT, created_at BIGINT NOT NULL);"
           "CREATE UNIQUE INDEX inbox_notices_key ON inbox_notices (owner_id, key);"
           "CREATE INDEX inbox_notices_unread ON inbox_notices (owner_id) WHERE shown_at IS NULL;"
           "CREATE INDEX inbox_notices_created ON inbox_notices (created_at);"
           "CREATE INDEX inbox_notices_shown ON inbox_notices (shown_at) WHERE shown_at IS NOT "
           "NULL;"
           // The announcers' questions: due reminders not yet announced, across owners.
           "CREATE INDEX reminders_due ON reminders (due_at) WHERE done_at IS NULL AND notified_at "
           "IS NULL;";
  };
  return {{9, "connections and notices", tables("id INTEGER PRIMARY KEY"),
           tables("id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY")}};
}

namespace {

Connection connection_from(const store::Row& r, const SecretBox& box) {
  Connection c;
  c.id = r.int_at("id");
  c.owner_id = r.int_at("owner_id");
  c.kind = r.text("kind");
  c.plugin = r.text("plugin");
  c.label = r.text("label");
  c.config = json::parse(r.text("config"), nullptr, false);
  if (!c.config.is_object()) c.config = json::object();
  if (auto secrets = plugin::open_secrets(box, r.text("secrets_encrypted")))
    c.secrets_set = secret_names(*secrets);
  c.enabled = r.int_at("enabled") != 0;
  c.last_ok_at = r.opt_int("last_ok_at");
  c.last_error = r.text("last_error");
  c.created_at = r.int_at("created_at");
  c.updated_at = r.int_at("updated_at");
  return c;
}

}  // namespace

std::vector<Connection> Connections::list(std::int64_t owner) {
  std::vector<Connection> out;
  for (const auto& r :
       db_.query(std::string("SELECT ") + kColumns +
                     " FROM connections WHERE owner_id = ? ORDER BY created_at DESC, id DESC",
                 {owner}))
    out.push_back(connection_from(r, box_));
  return out;
}

std::optional<Connection> Connections::get(std::int64_t owner, std::int64_t id) {
  auto rows = db_.query(
      std::string("SELECT ") + kColumns + " FROM connections WHERE id = ? AND owner_id = ?",
      {id, owner});
  if (rows.empty()) return std::nullopt;
  return connection_from(rows[0], box_);
}

// Whether `values` change an address of the connection (a url field: where a
// notifier sends, a store writes, a sync reads), the place its secrets go.
bool Connections::points_elsewhere(const PluginSpec& n, const json& current, const json& values) {
  if (!values.is_object()) return false;
  for (const FieldSpec& f : n.fields) {
    if (f.type != FieldSpec::Type::url) continue;
    auto it = values.find(f.name);
    if (it == values.end()) continue;
    auto now = typed(f, *it);
    if (now && *now != current.value(f.name, json(""))) return true;
  }
  return false;
}

// `current` (config and secrets merged) updated with `values`, checked; the
// merged result, or the errors.
std::variant<json, ConfigErrors> Connections::checked(const PluginSpec& n, json current,
                                                      const json& values) {
  ConfigErrors errors;
  if (!values.is_object()) {
    errors[""] = "error_config_not_object";
    return errors;
  }
  const auto& specs = n.fields;
  for (const auto& [k, v] : values.items()) {
    bool known =
        std::any_of(specs.begin(), specs.end(), [&](const auto& f) { return f.name == k; });
    // Event switches belong to notifiers only.
    bool event = n.notifier != nullptr && k.rfind("event_", 0) == 0 &&
                 notify::is_event(std::string_view(k).substr(6));
    if (!known && !event) errors[k] = "error_field_unknown";
    if (event) {
      FieldSpec b;
      b.type = FieldSpec::Type::boolean;
      auto t = typed(b, v);
      if (!t)
        errors[k] = "error_field_type";
      else
        current[k] = *t;
    }
  }
  for (const FieldSpec& f : specs) {
    auto it = values.find(f.name);
    if (it != values.end()) {
      auto t = typed(f, *it);
      if (!t) {
        errors[f.name] = "error_field_type";
        continue;
      }
      // A secret left blank keeps the one stored.
      if (!(f.secret && is_blank(*t))) current[f.name] = *t;
    }
    json v = current.contains(f.name) ? current[f.name] : json(f.default_value);
    if (v.is_string()) {
      const auto& s = v.get_ref<const std::string&>();
      if (s.size() > kMaxValue) {
        errors[f.name] = "error_field_too_long";
        continue;
      }
      using T = FieldSpec::Type;
      if (!s.empty() && f.type == T::url && s.rfind("http://", 0) != 0 &&
          s.rfind("https://", 0) != 0)
        errors[f.name] = "error_url_invalid";
      if (!s.empty() && f.type == T::email &&
          (s.find('@') == std::string::npos || s.find_first_of(" \r\n<>,") != std::string::npos))
        errors[f.name] = "error_email_invalid";
      if (!s.empty() && f.type == T::choice &&
          std::none_of(f.choices.begin(), f.choices.end(),
                       [&](const auto& c) { return c.first == s; }))
        errors[f.name] = "error_choice_invalid";
    }
    if (f.required && is_blank(v) && !errors.count(f.name)) errors[f.name] = "error_field_required";
    current[f.name] = v;
  }
  if (!errors.empty()) return errors;
  errors = n.validate(current, config_);
  if (!errors.empty()) return errors;
  return current;
}

namespace {

// Splits a merged config into (non-secret config, secrets).
std::pair<json, json> split(const PluginSpec& n, const json& merged) {
  json config = json::object(), secrets = json::object();
  const auto& specs = n.fields;
  for (const auto& [k, v] : merged.items()) {
    auto f = std::find_if(specs.begin(), specs.end(), [&](const auto& s) { return s.name == k; });
    if (f != specs.end() && f->secret) {
      if (v.is_string() && !v.get<std::string>().empty()) secrets[k] = v;
    } else {
      config[k] = v;
    }
  }
  return {config, secrets};
}

std::optional<std::string> checked_label(const std::string& label, const PluginSpec& n,
                                         ConfigErrors& errors) {
  std::string l = trimmed(label);
  if (l.empty()) l = n.name;
  if (l.size() > kMaxLabel) {
    errors["label"] = "error_field_too_long";
    return std::nullopt;
  }
  return l;
}

}  // namespace

std::variant<Connection, ConfigErrors> Connections::create(std::int64_t owner,
                                                           const std::string& plugin,
                                                           const std::string& label,
                                                           const json& values, bool enabled) {
  return create_in(*db_.acquire(), owner, plugin, label, values, enabled);
}

std::variant<Connection, ConfigErrors> Connections::create_in(store::Conn& conn, std::int64_t owner,
                                                              const std::string& plugin,
                                                              const std::string& label,
                                                              const json& values, bool enabled) {
  ConfigErrors errors;
  auto n = find_plugin(plugin);
  if (!n) {
    errors["plugin"] = "error_notifier_unknown";
    return errors;
  }
  auto l = checked_label(label, *n, errors);
  auto merged = checked(*n, json::object(), values);
  if (auto* e = std::get_if<ConfigErrors>(&merged)) errors.insert(e->begin(), e->end());
  if (!errors.empty()) return errors;
  auto [config, secrets] = split(*n, std::get<json>(merged));
  Millis now = clock_.now_ms();
  auto rows = conn.query(
      std::string("INSERT INTO connections (owner_id, kind, plugin, label, config,"
                  " secrets_encrypted, enabled, created_at, updated_at)"
                  " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ") +
          kColumns,
      {owner, n->kind, n->name, *l, config.dump(),
       secrets.empty() ? std::string() : box_.seal(secrets.dump()), enabled ? 1 : 0, now, now});
  return connection_from(rows[0], box_);
}

std::optional<std::variant<Connection, ConfigErrors>> Connections::update(
    std::int64_t owner, std::int64_t id, const std::optional<std::string>& label,
    const json& values, std::optional<bool> enabled) {
  // A sync's lease, taken before the transaction (the cache writes on its
  // own connection): held, no run of it can start or be going meanwhile.
  store::Cache cache(db_, clock_);
  const bool is_sync =
      !db_.query(
              "SELECT 1 AS found FROM connections WHERE id = ? AND owner_id = ? AND kind = 'sync'",
              {id, owner})
           .empty();
  std::optional<engine::KeyLease> sync_lease =
      is_sync ? engine::KeyLease::take(cache, "sync:" + std::to_string(id), sync::Syncs::kLeaseTtl)
              : std::nullopt;
  auto conn = db_.acquire();
  return store::with_write(
      *conn, [&](store::Conn& c) -> std::optional<std::variant<Connection, ConfigErrors>> {
        auto rows = c.query(
            std::string("SELECT ") + kColumns + " FROM connections WHERE id = ? AND owner_id = ?",
            {id, owner});
        if (rows.empty()) return std::nullopt;
        Connection current = connection_from(rows[0], box_);
        ConfigErrors errors;
        auto n = find_plugin(current.plugin);
        if (!n) {
          errors["plugin"] = "error_notifier_unknown";
          return errors;
        }
        std::string new_label = current.label;
        if (label) {
          auto l = checked_label(*label, *n, errors);
          if (l) new_label = *l;
        }
        // Secrets that no longer open count as unset: the form asks for them
        // again. So do secrets whose connection now points somewhere else:
        // they were entered for the old address.
        const bool moved = points_elsewhere(*n, current.config, values);
        json merged_current = current.config;
        if (!moved)
          merged_current.update(plugin::open_secrets(box_, rows[0].text("secrets_encrypted"))
                                    .value_or(json::object()));
        auto merged = checked(*n, merged_current, values);
        if (auto* e = std::get_if<ConfigErrors>(&merged)) {
          if (moved)
            for (const FieldSpec& f : n->fields)
              if (f.secret && e->count(f.name) && e->at(f.name) == "error_field_required")
                (*e)[f.name] = "error_secret_for_new_address";
          errors.insert(e->begin(), e->end());
        }
        if (!errors.empty()) return errors;
        auto [config, secrets] = split(*n, std::get<json>(merged));
        bool on = enabled.value_or(current.enabled);
        // A sync pointed at another collection starts afresh: its links name
        // the old collection's members, and against the new one they would
        // read as deletions there. Only while no run of it is going, which
        // would write old links after the reset.
        if (n->kind == "sync" &&
            !sync::same_collection(config.value("url", ""), current.config.value("url", ""))) {
          if (!sync_lease) {
            errors["url"] = "sync_error_running";
            return errors;
          }
          sync::forget_collection(c, id);
        }
        auto out = c.query(
            std::string("UPDATE connections SET label = ?, config = ?, secrets_encrypted = ?,"
                        " enabled = ?, last_error = CASE WHEN ? = 1 AND enabled = 0 THEN ''"
                        " ELSE last_error END, updated_at = ? WHERE id = ? RETURNING ") +
                kColumns,
            {new_label, config.dump(), secrets.empty() ? std::string() : box_.seal(secrets.dump()),
             on ? 1 : 0, on ? 1 : 0, clock_.now_ms(), id});
        return connection_from(out[0], box_);
      });
}

bool Connections::remove(std::int64_t owner, std::int64_t id) {
  return db_.query("DELETE FROM connections WHERE id = ? AND owner_id = ?", {id, owner}).affected >
         0;
}

std::optional<json> Connections::full_config(store::Conn& conn, std::int64_t id) {
  return state_.full_config(conn, id);
}

std::optional<plugin::Outcome> Connections::test(std::int64_t owner, std::int64_t id,
                                                 const net::HttpClient& http,
                                                 const std::string& language) {
  auto c = get(owner, id);
  if (!c) return std::nullopt;
  auto conn = db_.acquire();
  if (const media::Store* store = media::find_store(c->plugin))
    return test_store(*conn, *store, owner, id, http);
  // A sync is tried with "Sync now" (sync/syncs.h), which records its own
  // outcome; a test here would only write a misleading error.
  if (c->kind == "sync")
    return plugin::Outcome{plugin::Outcome::Kind::final, "sync_test_use_sync_now", std::nullopt,
                           false};
  const Notifier* n = notify::find_notifier(c->plugin);
  plugin::Outcome result;
  auto config = full_config(*conn, id);
  if (n == nullptr) {
    result = {plugin::Outcome::Kind::final, "error_notifier_unknown", std::nullopt, false};
  } else if (!config) {
    result = {plugin::Outcome::Kind::final, "error_secrets_unreadable", std::nullopt, false};
  } else {
    auto users = conn->query(
        "SELECT email, language, time_zone FROM users WHERE id = ? AND active = 1", {owner});
    if (users.empty()) return std::nullopt;
    notify::Recipient to{owner, users[0].text("email"), users[0].text("language"),
                         users[0].text("time_zone"), true};
    const Catalogue& words = Catalogue::shared();
    notify::Notification test;
    test.event = "test";
    test.language = language;
    test.title = words.text(language, "notice_test_title");
    test.body = words.text(language, "notice_test_body");
    test.url =
        notify::absolute_url(config_.public_url, "/profile/connections/" + std::to_string(id));
    test.occurred_at = clock_.now_ms();
    notify::SendContext ctx{http, config_, clock_, "test"};
    try {
      result = n->send(test, *config, to, ctx);
    } catch (const std::exception& e) {
      result = {plugin::Outcome::Kind::retry, e.what(), std::nullopt, false};
    }
  }
  // Judged as a delivery would be: refused credentials switch it off.
  plugin::settle(state_, *conn, id, result, plugin::Record::every_outcome);
  return result;
}

// A store's test: "peto-test.txt" (a line of text) copied to it now.
std::optional<plugin::Outcome> Connections::test_store(store::Conn& conn, const media::Store& store,
                                                       std::int64_t owner, std::int64_t id,
                                                       const net::HttpClient& http) {
  using O = plugin::Outcome::Kind;
  plugin::Outcome result;
  auto config = full_config(conn, id);
  if (!config) {
    result = {O::final, "error_secrets_unreadable", std::nullopt, false};
  } else if (std::string why = store.refusal(*config, config_, owner); !why.empty()) {
    result = {O::final, why, std::nullopt, false};
  } else {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::create_directories(config_.data_dir, ec);
    fs::path path = fs::path(config_.data_dir) / (".store-test-" + std::to_string(id) + ".txt");
    const std::string text = "A test file from peto; it can be deleted.\n";
    {
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      out << text;
    }
    media::PutFile file;
    file.path = path.string();
    file.remote_name = "peto-test.txt";
    file.content_type = "text/plain; charset=utf-8";
    auto facts = media::read_facts(file.path);
    file.size = facts ? facts->size : 0;
    file.sha256 = facts ? facts->sha256 : "";
    media::PutResult put;
    try {
      put = store.put(
          file, *config,
          media::PutContext{.http = http, .config = config_, .clock = clock_, .owner = owner});
    } catch (const std::exception& e) {
      put = media::PutResult::failed(e.what());
    }
    fs::remove(path, ec);
    result = put.outcome;
  }
  // Judged as a copy would be: refused credentials switch it off.
  plugin::settle(state_, conn, id, result, plugin::Record::every_outcome);
  return result;
}

void Connections::record(store::Conn& conn, std::int64_t id, bool ok, const std::string& message) {
  state_.record(conn, id, ok, message);
}

void Connections::retire(store::Conn& conn, std::int64_t id, const std::string& reason,
                         bool keep_secrets) {
  state_.retire(conn, id, reason, keep_secrets);
}

}  // namespace peto::connections
