// ntfy (ntfy.sh or a self-hosted server): one JSON publish per notification.
// JSON publishing carries a title in any language, where the Title header
// would need RFC 2047 words.
#include <regex>

#include "notify/builtin.h"
#include "notify/notifiers.h"

namespace peto::notify {
namespace {

constexpr const char* kDefaultServer = "https://ntfy.sh";

bool valid_topic(const std::string& topic) {
  static const std::regex pattern("[A-Za-z0-9_-]{1,64}");
  return std::regex_match(topic, pattern);
}

std::string server_of(const nlohmann::json& config) {
  std::string server = builtin::text(config, "server");
  return builtin::without_trailing_slash(server.empty() ? kDefaultServer : server);
}

bool is_web_address(const std::string& url) {
  return url.starts_with("https://") || url.starts_with("http://");
}

class Ntfy final : public Notifier {
 public:
  std::string_view name() const override { return "ntfy"; }
  std::string_view label_key() const override { return "notifier_ntfy"; }

  std::vector<FieldSpec> fields() const override {
    return {builtin::field("ntfy", "server", FieldSpec::Type::url,
                           {.required = false, .default_value = kDefaultServer}),
            builtin::field("ntfy", "topic", FieldSpec::Type::text),
            builtin::field("ntfy", "token", FieldSpec::Type::password,
                           {.required = false, .secret = true})};
  }

  ConfigErrors validate(const nlohmann::json& config, const Config& instance) const override {
    ConfigErrors errors;
    if (std::string e = builtin::check_http_url(server_of(config), instance); !e.empty())
      errors["server"] = e;
    if (!valid_topic(builtin::text(config, "topic"))) errors["topic"] = "error_ntfy_topic";
    return errors;
  }

  std::string summary(const nlohmann::json& config) const override {
    return server_of(config) + "/" + builtin::text(config, "topic");
  }

  plugin::Outcome send(const Notification& n, const nlohmann::json& config, const Recipient&,
                       const SendContext& ctx) const override {
    nlohmann::json message = {{"topic", builtin::text(config, "topic")},
                              {"title", n.title},
                              {"message", n.body.empty() ? n.title : n.body}};
    // ntfy opens `click` on a tap: only an absolute address means anything
    // there.
    if (is_web_address(n.url)) message["click"] = n.url;
    net::HttpHeaders headers;
    if (std::string token = builtin::text(config, "token"); !token.empty())
      headers.emplace_back("Authorization", "Bearer " + token);
    plugin::Outcome r = read_http_answer(
        builtin::post_json(ctx, server_of(config) + "/",
                           message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                           std::move(headers)));
    if (r.http_status == 401 || r.http_status == 403) {
      r.kind = plugin::Outcome::Kind::unusable;
      r.keep_secrets = false;
      r.message = "The ntfy server refused to publish to this topic (" +
                  std::to_string(*r.http_status) +
                  "); check the access token and the topic's permissions, then "
                  "connect again.";
    }
    return r;
  }
};

}  // namespace

const Notifier& ntfy_notifier() {
  static const Ntfy ntfy;
  return ntfy;
}

}  // namespace peto::notify
