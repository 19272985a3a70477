#include "notify/notifier.h"

#include <arpa/inet.h>

#include <algorithm>
#include <boost/url.hpp>

#include "net/destination.h"
#include "notify/builtin.h"
#include "notify/notifiers.h"

namespace peto::notify {

std::string_view outcome_name(const plugin::Outcome& outcome) {
  switch (outcome.kind) {
    case plugin::Outcome::Kind::done:
      return "sent";
    case plugin::Outcome::Kind::retry:
      return "failed";
    case plugin::Outcome::Kind::final:
      return "final";
    case plugin::Outcome::Kind::unusable:
      return "unusable";
  }
  return "failed";
}

namespace {

plugin::Outcome result(plugin::Outcome::Kind outcome, std::string message,
                       std::optional<int> status = std::nullopt) {
  plugin::Outcome r;
  r.kind = outcome;
  r.message = std::move(message);
  r.http_status = status;
  return r;
}

plugin::Outcome read_response(const net::HttpResponse& r) {
  using Outcome = plugin::Outcome::Kind;
  const int s = r.status;
  if (s >= 200 && s < 300) return result(Outcome::done, "", s);
  if (s >= 300 && s < 400) {
    const std::string* location = r.header("location");
    // The receiver wrote Location: shown to the person, so kept short.
    std::string where =
        location != nullptr && !location->empty()
            ? "The receiver redirected to " + location->substr(0, 300) + "; use that address."
            : "The receiver answered " + std::to_string(s) +
                  " (a redirect) without saying where to.";
    // 301 and 308 are for good: the same address will keep redirecting. The
    // others may be a passing arrangement of the receiver's.
    return result(s == 301 || s == 308 ? Outcome::final : Outcome::retry, where, s);
  }
  std::string answered = "The receiver answered " + std::to_string(s) + ".";
  if (s == 408 || s == 429 || s >= 500) return result(Outcome::retry, answered, s);
  if (s >= 400) return result(Outcome::final, answered, s);
  return result(Outcome::retry, answered,
                s);  // 1xx or nonsense: maybe better next time
}

}  // namespace

plugin::Outcome read_http_answer(const std::variant<net::HttpResponse, net::HttpError>& answer) {
  if (const auto* r = std::get_if<net::HttpResponse>(&answer)) return read_response(*r);
  const auto& e = std::get<net::HttpError>(answer);
  bool hopeless = e.kind == net::HttpError::Kind::refused_destination ||
                  e.kind == net::HttpError::Kind::bad_url;
  return result(hopeless ? plugin::Outcome::Kind::final : plugin::Outcome::Kind::retry, e.message);
}

std::optional<bool> Notifier::event_default(std::string_view) const { return std::nullopt; }

ConfigErrors Notifier::validate(const nlohmann::json&, const Config&) const { return {}; }

bool default_for(std::string_view event, const Notifier& notifier) {
  if (auto d = notifier.event_default(event)) return *d;
  return !about_what_you_did(event);
}

bool wants(const nlohmann::json& config, std::string_view event, const Notifier& notifier) {
  if (config.is_object()) {
    auto it = config.find("event_" + std::string(event));
    if (it != config.end() && it->is_boolean()) return it->get<bool>();
  }
  return default_for(event, notifier);
}

const std::vector<const Notifier*>& notifiers() {
  static const std::vector<const Notifier*> all = {&email_notifier(), &webhook_notifier(),
                                                   &ntfy_notifier(), &gotify_notifier(),
                                                   &telegram_notifier()};
  return all;
}

const Notifier* find_notifier(std::string_view name) {
  for (const Notifier* n : notifiers())
    if (n->name() == name) return n;
  return nullptr;
}

// ------------------------------------------------- shared by the built-ins

namespace builtin {

FieldSpec field(std::string_view notifier, std::string name, FieldSpec::Type type,
                FieldOptions options) {
  FieldSpec f;
  f.label_key = "field_" + std::string(notifier) + "_" + name;
  f.help_key = f.label_key + "_help";
  f.name = std::move(name);
  f.type = type;
  f.required = options.required;
  f.secret = options.secret;
  f.default_value = std::move(options.default_value);
  return f;
}

std::string text(const nlohmann::json& config, std::string_view key) {
  if (!config.is_object()) return "";
  auto it = config.find(std::string(key));
  return it != config.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string check_http_url(std::string_view url, const Config& instance) {
  auto parsed = boost::urls::parse_absolute_uri(boost::urls::string_view(url.data(), url.size()));
  if (!parsed) return "Enter a full web address, starting with https:// or http://.";
  std::string scheme(parsed->scheme());
  for (char& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (scheme != "http" && scheme != "https")
    return "Enter a full web address, starting with https:// or http://.";
  if (parsed->has_userinfo())
    return "The address must not carry a user name or password (the part "
           "before '@').";
  switch (parsed->host_type()) {
    case boost::urls::host_type::ipv4:
    case boost::urls::host_type::ipv6: {
      std::string ip(parsed->host_address());
      if (Status s = net::DestinationPolicy{instance.allow_private_destinations}.check(ip); !s)
        return s.message() + ".";
      return "";
    }
    case boost::urls::host_type::name: {
      // What net::HttpClient will accept at send time (notify/http.h), said now.
      std::string host(parsed->encoded_host());
      for (char& c : host) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (host.empty()) break;
      bool plain = std::all_of(host.begin(), host.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_';
      });
      if (!plain)
        return "Write the host name in plain letters; international names in their xn-- "
               "(punycode) form.";
      in_addr legacy{};
      if (inet_aton(host.c_str(), &legacy) != 0)
        return "'" + host +
               "' is an IP address in an unusual form; write it as four decimal "
               "numbers (a.b.c.d).";
      return "";
    }
    default:
      break;
  }
  return "The address has no host peto can send to.";
}

std::string without_trailing_slash(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

std::string masked_url(std::string_view url) {
  auto parsed = boost::urls::parse_absolute_uri(boost::urls::string_view(url.data(), url.size()));
  if (!parsed || !parsed->has_authority()) return "…";
  std::string out = std::string(parsed->scheme()) + "://" + std::string(parsed->encoded_host());
  if (parsed->has_port()) out += ":" + std::string(parsed->port());
  bool more = !parsed->encoded_path().empty() && parsed->encoded_path() != "/";
  return out + (more || parsed->has_query() ? "/…" : "/");
}

std::variant<net::HttpResponse, net::HttpError> post_json(const SendContext& ctx, std::string url,
                                                          std::string body,
                                                          net::HttpHeaders headers) {
  net::HttpRequest req;
  req.method = "POST";
  req.url = std::move(url);
  req.body = std::move(body);
  req.headers = std::move(headers);
  req.headers.emplace_back("Content-Type", "application/json");
  req.timeout = std::chrono::seconds(10);
  req.max_redirects = 0;
  req.allow_private = ctx.config.allow_private_destinations;
  return ctx.http.send(req);
}

}  // namespace builtin

}  // namespace peto::notify
