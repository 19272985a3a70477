// The signed webhook: POSTs the version-1 payload, signed with the
// connection's secret, to the connection's URL (docs/SPEC.md §6, and §5.1).
#include <sodium.h>

#include <charconv>

#include "notify/builtin.h"
#include "notify/notifiers.h"

namespace peto::notify {
namespace {

constexpr std::size_t kMinSecret = 16;
constexpr std::int64_t kTolerance = 300;  // seconds either side of the receiver's clock

std::string hmac_hex(std::string_view secret, std::string_view message) {
  if (sodium_init() < 0) throw std::runtime_error("libsodium failed to start");
  crypto_auth_hmacsha256_state state;
  crypto_auth_hmacsha256_init(&state, reinterpret_cast<const unsigned char*>(secret.data()),
                              secret.size());
  crypto_auth_hmacsha256_update(&state, reinterpret_cast<const unsigned char*>(message.data()),
                                message.size());
  unsigned char mac[crypto_auth_hmacsha256_BYTES];
  crypto_auth_hmacsha256_final(&state, mac);
  char hex[crypto_auth_hmacsha256_BYTES * 2 + 1];
  sodium_bin2hex(hex, sizeof(hex), mac, sizeof(mac));
  return hex;
}

std::string signed_text(std::int64_t unix_s, std::string_view body) {
  std::string out = std::to_string(unix_s);
  out += '.';
  out += body;
  return out;
}

class Webhook final : public Notifier {
 public:
  std::string_view name() const override { return "webhook"; }
  std::string_view label_key() const override { return "notifier_webhook"; }

  std::vector<FieldSpec> fields() const override {
    return {builtin::field("webhook", "url", FieldSpec::Type::url),
            builtin::field("webhook", "secret", FieldSpec::Type::password, {.secret = true})};
  }

  // A webhook usually feeds another tool that keeps its own record, so it
  // hears about what the person did too.
  std::optional<bool> event_default(std::string_view event) const override {
    if (event == "status_changed" || event == "interview_scheduled" || event == "offer_recorded")
      return true;
    return std::nullopt;
  }

  ConfigErrors validate(const nlohmann::json& config, const Config& instance) const override {
    ConfigErrors errors;
    if (std::string e = builtin::check_http_url(builtin::text(config, "url"), instance); !e.empty())
      errors["url"] = e;
    if (builtin::text(config, "secret").size() < kMinSecret)
      errors["secret"] = "error_secret_short";
    return errors;
  }

  std::string summary(const nlohmann::json& config) const override {
    return builtin::masked_url(builtin::text(config, "url"));
  }

  plugin::Outcome send(const Notification& n, const nlohmann::json& config, const Recipient&,
                       const SendContext& ctx) const override {
    std::string secret = builtin::text(config, "secret");
    if (secret.empty()) {
      plugin::Outcome r;
      r.kind = plugin::Outcome::Kind::final;
      r.message =
          "The webhook has no secret to sign with; edit the connection "
          "and set one.";
      return r;
    }
    std::string body = payload(n);
    std::int64_t now = ctx.clock.now_ms() / 1000;  // fresh on every attempt
    net::HttpHeaders headers = {{"Peto-Signature", webhook_signature(secret, now, body)},
                                {"Peto-Event", n.event},
                                {"Peto-Delivery", ctx.delivery_id}};
    return read_http_answer(
        builtin::post_json(ctx, builtin::text(config, "url"), std::move(body), std::move(headers)));
  }
};

}  // namespace

const Notifier& webhook_notifier() {
  static const Webhook webhook;
  return webhook;
}

std::string webhook_signature(std::string_view secret, std::int64_t unix_s, std::string_view body) {
  return "t=" + std::to_string(unix_s) + ",v1=" + hmac_hex(secret, signed_text(unix_s, body));
}

bool verify_webhook_signature(std::string_view header, std::string_view secret,
                              std::string_view body, std::int64_t now_unix_s) {
  std::optional<std::int64_t> t;
  std::vector<std::string_view> candidates;  // every v1 (a receiver may see several)
  while (!header.empty()) {
    auto comma = header.find(',');
    std::string_view part = header.substr(0, comma);
    header.remove_prefix(comma == std::string_view::npos ? header.size() : comma + 1);
    auto eq = part.find('=');
    if (eq == std::string_view::npos) return false;
    std::string_view key = part.substr(0, eq), value = part.substr(eq + 1);
    if (key == "t") {
      std::int64_t v = 0;
      auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
      if (ec != std::errc() || end != value.data() + value.size() || t) return false;
      t = v;
    } else if (key == "v1") {
      candidates.push_back(value);
    }
  }
  if (!t || candidates.empty()) return false;
  if (*t > now_unix_s + kTolerance || *t < now_unix_s - kTolerance) return false;
  std::string expected = hmac_hex(secret, signed_text(*t, body));
  bool ok = false;
  for (std::string_view v1 : candidates) {
    // The length of a hex HMAC is public; only its bytes need a constant-time
    // look.
    if (v1.size() == expected.size() && sodium_memcmp(v1.data(), expected.data(), v1.size()) == 0)
      ok = true;
  }
  return ok;
}

}  // namespace peto::notify
