// What the built-in notifiers (notify/email.cpp, webhook.cpp, ntfy.cpp,
// gotify.cpp, telegram.cpp) share. Internal to notify/: nothing outside those
// files includes it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "core/config.h"
#include "notify/notifier.h"

namespace peto::notify::builtin {

// A field of notifier `notifier`, labelled by the catalogue keys
// "field_<notifier>_<name>" and "field_<notifier>_<name>_help".
struct FieldOptions {
  bool required = true;
  bool secret = false;
  std::string default_value = "";
};
FieldSpec field(std::string_view notifier, std::string name, FieldSpec::Type type,
                FieldOptions options = {});

// The string at `key`, or "" when it is absent or not a string.
std::string text(const nlohmann::json& config, std::string_view key);

// "" when `url` is an http(s) address peto could send to: no user name or
// password, a plain host name or an IP literal, and an IP literal the
// destination policy of `instance` allows (names are resolved and checked at
// send time). Otherwise a sentence for the form.
std::string check_http_url(std::string_view url, const Config& instance);

// `url` without its trailing slashes, so that "<server>/message" has one.
std::string without_trailing_slash(std::string url);

// "https://hooks.example/…": scheme and host only, for connection summaries
// (a path or query may carry a secret).
std::string masked_url(std::string_view url);

// POSTs `body` as JSON to `url` through ctx.http with the notifiers' usual
// settings: 10 s, redirects never followed, allow_private from the
// configuration.
std::variant<net::HttpResponse, net::HttpError> post_json(const SendContext& ctx, std::string url,
                                                          std::string body,
                                                          net::HttpHeaders headers = {});

}  // namespace peto::notify::builtin
