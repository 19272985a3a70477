// Gotify: one message per notification, through the application token.
#include "notify/builtin.h"
#include "notify/notifiers.h"

namespace peto::notify {
namespace {

class Gotify final : public Notifier {
 public:
  std::string_view name() const override { return "gotify"; }
  std::string_view label_key() const override { return "notifier_gotify"; }

  std::vector<FieldSpec> fields() const override {
    return {builtin::field("gotify", "server", FieldSpec::Type::url),
            builtin::field("gotify", "token", FieldSpec::Type::password, {.secret = true})};
  }

  ConfigErrors validate(const nlohmann::json& config, const Config& instance) const override {
    ConfigErrors errors;
    if (std::string e = builtin::check_http_url(builtin::text(config, "server"), instance);
        !e.empty())
      errors["server"] = e;
    if (builtin::text(config, "token").empty()) errors["token"] = "error_required";
    return errors;
  }

  std::string summary(const nlohmann::json& config) const override {
    return builtin::masked_url(builtin::text(config, "server"));
  }

  plugin::Outcome send(const Notification& n, const nlohmann::json& config, const Recipient&,
                       const SendContext& ctx) const override {
    nlohmann::json message = {
        {"title", n.title}, {"message", n.body.empty() ? n.title : n.body}, {"priority", 5}};
    // The Gotify app opens the click URL as given: a bare path leads nowhere.
    if (n.url.starts_with("https://") || n.url.starts_with("http://"))
      message["extras"] = {{"client::notification", {{"click", {{"url", n.url}}}}}};
    std::string url = builtin::without_trailing_slash(builtin::text(config, "server")) + "/message";
    plugin::Outcome r = read_http_answer(builtin::post_json(
        ctx, url, message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
        {{"X-Gotify-Key", builtin::text(config, "token")}}));
    if (r.http_status == 401 || r.http_status == 403) {
      r.kind = plugin::Outcome::Kind::unusable;
      r.keep_secrets = false;
      r.message = "The Gotify server no longer accepts this application token (" +
                  std::to_string(*r.http_status) + "); create a new one and connect again.";
    }
    return r;
  }
};

}  // namespace

const Notifier& gotify_notifier() {
  static const Gotify gotify;
  return gotify;
}

}  // namespace peto::notify
