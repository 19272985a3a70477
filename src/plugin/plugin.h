// Plugin: what every kind of connection declares, whatever it does — a
// notifier (notify/notifier.h), a store (media/stores.h) or a sync
// (sync/syncs.h). A person connects a plugin as a Connection
// (connections/connections.h), which keeps the plugin's fields: the plain ones
// as JSON, the secret ones sealed.
//
// What a use of a plugin came to is a plugin::Outcome (plugin/attempt.h),
// whatever the kind.
//
// Plugin names are unique across kinds, so the name decides the kind. A
// plugin holds no state between calls and may be used from several threads
// and processes at once.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/config.h"

namespace peto::plugin {

struct FieldSpec {
  enum class Type { text, url, email, password, integer, boolean, choice, textarea };
  std::string name;       // config key, [a-z0-9_]
  std::string label_key;  // catalogue key of the label (locales/*/notifiers.json)
  std::string help_key;   // catalogue key of a hint, "" for none
  Type type = Type::text;
  bool required = true;
  bool secret = false;  // sealed at rest, never shown back; blank on edit = keep
  std::string default_value;
  std::vector<std::pair<std::string, std::string>> choices;  // value, label key
};

// Field errors: field name → catalogue key or sentence; "" = the whole form.
using ConfigErrors = std::map<std::string, std::string>;

class Plugin {
 public:
  virtual ~Plugin() = default;
  virtual std::string_view kind() const = 0;       // "notifier", "store" or "sync"
  virtual std::string_view name() const = 0;       // stored on the connection
  virtual std::string_view label_key() const = 0;  // the "add" menu's label
  virtual std::vector<FieldSpec> fields() const = 0;
  // Checks a complete config (secrets included, already type-checked against
  // fields()): e.g. a URL passes the destination policy's syntax.
  virtual ConfigErrors validate(const nlohmann::json& config, const Config& instance) const = 0;
  // One masked line for the connections list ("https://hooks.example/…").
  virtual std::string summary(const nlohmann::json& config) const = 0;
};

}  // namespace peto::plugin
