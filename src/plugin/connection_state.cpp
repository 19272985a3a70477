#include "plugin/connection_state.h"

#include "core/log.h"

namespace peto::plugin {

using nlohmann::json;

std::optional<json> open_secrets(const SecretBox& box, const std::string& sealed) {
  if (sealed.empty()) return json::object();
  auto plain = box.open(sealed);
  if (!plain) return std::nullopt;
  json secrets = json::parse(*plain, nullptr, false);
  if (!secrets.is_object()) return std::nullopt;
  return secrets;
}

ConnectionState::ConnectionState(const Clock& clock, const Config& config)
    : clock_(clock), box_(config.secret_key) {}

std::optional<json> ConnectionState::full_config(store::Conn& conn, std::int64_t id) const {
  auto rows = conn.query("SELECT config, secrets_encrypted FROM connections WHERE id = ?", {id});
  if (rows.empty()) return std::nullopt;
  json config = json::parse(rows[0].text("config"), nullptr, false);
  if (!config.is_object()) config = json::object();
  auto secrets = open_secrets(box_, rows[0].text("secrets_encrypted"));
  if (!secrets) return std::nullopt;
  config.update(*secrets);  // secrets win
  return config;
}

void ConnectionState::record(store::Conn& conn, std::int64_t id, bool ok,
                             const std::string& message) const {
  if (ok) {
    conn.query("UPDATE connections SET last_ok_at = ?, last_error = '' WHERE id = ?",
               {clock_.now_ms(), id});
  } else {
    conn.query(
        "UPDATE connections SET last_error = ? WHERE id = ?",
        {message.empty() ? std::string("Failed without saying why.") : message.substr(0, 500), id});
  }
}

void ConnectionState::retire(store::Conn& conn, std::int64_t id, const std::string& reason,
                             bool keep_secrets) const {
  log::warn("notify", "connection retired", {{"connection", id}, {"reason", reason}});
  conn.query(
      keep_secrets ? "UPDATE connections SET enabled = 0, last_error = ? WHERE id = ?"
                   : "UPDATE connections SET enabled = 0, last_error = ?,"
                     " secrets_encrypted = '' WHERE id = ?",
      {reason.empty() ? std::string("Failed without saying why.") : reason.substr(0, 500), id});
}

}  // namespace peto::plugin
