// The built-in notifiers (one .cpp each in notify/): e-mail over SMTP, signed
// webhooks, ntfy, Gotify and the Telegram Bot API. notifiers() in
// notify/notifier.h lists them; these accessors are for tests and for the
// webhook's signature, which receivers verify.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "notify/notifier.h"

namespace peto::notify {

const Notifier& email_notifier();
const Notifier& webhook_notifier();
const Notifier& ntfy_notifier();
const Notifier& gotify_notifier();
const Notifier& telegram_notifier();

// "t=<unix>,v1=<hex HMAC-SHA256(secret, "<unix>.<body>")>"
std::string webhook_signature(std::string_view secret, std::int64_t unix_s, std::string_view body);
// A receiver's check of a Peto-Signature header: well formed, |now - t| <=
// 300 s, and v1 equal in constant time.
bool verify_webhook_signature(std::string_view header, std::string_view secret,
                              std::string_view body, std::int64_t now_unix_s);

// The message the e-mail notifier hands to SMTP (headers, blank line, body;
// CRLF line ends): From, To, Subject "[peto] <title>" with whitespace
// collapsed (no header injection), Date, Message-ID, Content-Type text/plain
// UTF-8 (quoted-printable or 8bit), Content-Language. Body: title, body and
// url, separated by blank lines.
std::string email_message(const Notification& n, std::string_view from, std::string_view to,
                          std::int64_t now_ms);

}  // namespace peto::notify
