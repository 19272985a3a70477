// Notifier: one way of telling a person something (e-mail, a webhook, ntfy…).
//
// A person connects a notifier as a Connection (notify/connections.h): the
// notifier declares the fields that connection holds (fields()), checks them
// (validate()), and sends one Notification with them (send()). The outbox
// (notify/outbox.h) calls send() from the scheduler's delivery step and turns
// the plugin::Outcome into the delivery's next state, so a notifier never retries,
// sleeps or writes to the database itself.
//
// Built-ins: email, webhook, ntfy, gotify, telegram (notify/notifiers.h). The
// in-app inbox is not a notifier: every account has it, and the outbox writes
// its notices in the announcing transaction.
//
// send() may be called from several threads and processes at once; a
// notifier holds no state between calls. It must not throw for a failure of
// the other side; an exception escaping send() counts as an ordinary failure.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/clock.h"
#include "core/config.h"
#include "net/http.h"
#include "notify/notification.h"
#include "plugin/attempt.h"
#include "plugin/plugin.h"

namespace peto::notify {

using plugin::ConfigErrors;
using plugin::FieldSpec;

// Who a notification is for: the account, read once per announcement.
struct Recipient {
  std::int64_t id = 0;
  std::string email;
  std::string language;   // profile language, "" = the default ("en")
  std::string time_zone;  // IANA name
  bool active = true;
};

// What a send needs besides the notification and the connection's config.
struct SendContext {
  const net::HttpClient& http;
  const Config& config;  // allow_private_destinations, smtp_url, public_url
  const Clock& clock;
  std::string delivery_id;  // the outbox row's id ("42"), or "test"
};

// A send's outcome is the outcome of an attempt against its connection
// (plugin/attempt.h): done (2xx, mail accepted), retry (5xx, 408, 429,
// timeout, refused connection, DNS), final (4xx, 301/308, a refused
// destination) or unusable (token revoked: retire the connection). Its name
// in the outbox's words: "sent", "failed", "final", "unusable".
std::string_view outcome_name(const plugin::Outcome& outcome);

// The usual reading of an HTTP exchange for notifiers that POST somewhere:
// 2xx done; 301/308 final ("redirected to <Location>; use that address");
// other 3xx retry (redirects are never followed); 408, 429 and 5xx retry;
// other 4xx final ("The receiver answered 404"); a refused destination or bad
// URL final; DNS, connect, timeout, TLS and other errors retry.
plugin::Outcome read_http_answer(const std::variant<net::HttpResponse, net::HttpError>& answer);

class Notifier : public plugin::Plugin {
 public:
  std::string_view kind() const final { return "notifier"; }
  // Whether `event` is on for a connection that never set event_<name>;
  // nullopt = the general rule (on, except about_what_you_did events).
  virtual std::optional<bool> event_default(std::string_view event) const;
  // Checks a complete config (secrets included, already type-checked against
  // fields()): e.g. the webhook's URL passes the destination policy's syntax
  // and its secret has at least 16 characters.
  ConfigErrors validate(const nlohmann::json& config, const Config& instance) const override;
  // Sends `n` with `config` (config and secrets merged) to `to`.
  virtual plugin::Outcome send(const Notification& n, const nlohmann::json& config,
                               const Recipient& to, const SendContext& ctx) const = 0;
};

// Whether a connection with `config` wants `event`: its stored "event_<name>"
// boolean, else the notifier's default.
bool wants(const nlohmann::json& config, std::string_view event, const Notifier& notifier);
bool default_for(std::string_view event, const Notifier& notifier);

// Every built-in notifier, in the order the "add" menu shows them.
const std::vector<const Notifier*>& notifiers();
const Notifier* find_notifier(std::string_view name);

}  // namespace peto::notify
