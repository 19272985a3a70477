// Telegram: a bot the person created sends them a message (Bot API
// sendMessage). The bot token is the whole credential: it is never written
// into a message or a log, and any text that could echo it is scrubbed.
#include <regex>

#include "core/utf8.h"
#include "notify/builtin.h"
#include "notify/notifiers.h"

namespace peto::notify {
namespace {

// Telegram cuts at 4096 characters; bytes are a safe, simpler bound.
constexpr std::size_t kMaxText = 4000;

bool valid_token(const std::string& token) {
  static const std::regex pattern("[0-9]{1,20}:[A-Za-z0-9_-]{20,100}");
  return std::regex_match(token, pattern);
}

bool valid_chat(const std::string& chat) {
  static const std::regex pattern("-?[0-9]{1,20}|@[A-Za-z][A-Za-z0-9_]{3,31}");
  return std::regex_match(chat, pattern);
}

std::string scrub(std::string text, const std::string& token) {
  if (token.empty()) return text;
  for (auto at = text.find(token); at != std::string::npos; at = text.find(token, at))
    text.replace(at, token.size(), "<token>");
  return text;
}

// The text cut at `max` bytes, on a UTF-8 character boundary.
std::string cut(std::string text, std::size_t max) {
  if (text.size() <= max) return text;
  text.resize(utf8_prefix(text, max));
  return text + "…";
}

std::string message_text(const Notification& n) {
  std::string text = n.title;
  for (const std::string* part : {&n.body, &n.url})
    if (!part->empty()) text += "\n\n" + *part;
  return cut(std::move(text), kMaxText);
}

// Telegram's own reason ("Bad Request: chat not found"), when it gave one.
std::string description(const std::variant<net::HttpResponse, net::HttpError>& answer) {
  const auto* r = std::get_if<net::HttpResponse>(&answer);
  if (r == nullptr) return "";
  auto body = nlohmann::json::parse(r->body, nullptr, false);
  if (!body.is_object() || !body.contains("description") || !body["description"].is_string())
    return "";
  return cut(body["description"].get<std::string>(), 200);
}

class Telegram final : public Notifier {
 public:
  std::string_view name() const override { return "telegram"; }
  std::string_view label_key() const override { return "notifier_telegram"; }

  std::vector<FieldSpec> fields() const override {
    return {builtin::field("telegram", "bot_token", FieldSpec::Type::password, {.secret = true}),
            builtin::field("telegram", "chat_id", FieldSpec::Type::text)};
  }

  ConfigErrors validate(const nlohmann::json& config, const Config&) const override {
    ConfigErrors errors;
    if (!valid_token(builtin::text(config, "bot_token")))
      errors["bot_token"] = "error_telegram_token";
    if (!valid_chat(builtin::text(config, "chat_id"))) errors["chat_id"] = "error_telegram_chat";
    return errors;
  }

  std::string summary(const nlohmann::json& config) const override {
    return "Telegram " + builtin::text(config, "chat_id");
  }

  plugin::Outcome send(const Notification& n, const nlohmann::json& config, const Recipient&,
                       const SendContext& ctx) const override {
    std::string token = builtin::text(config, "bot_token");
    nlohmann::json message = {{"chat_id", builtin::text(config, "chat_id")},
                              {"text", message_text(n)},
                              {"disable_web_page_preview", true}};
    std::string url = builtin::without_trailing_slash(ctx.config.telegram_api_url) + "/bot" +
                      token + "/sendMessage";
    auto answer = builtin::post_json(
        ctx, url, message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    plugin::Outcome r = read_http_answer(answer);
    std::string why = description(answer);
    switch (r.http_status.value_or(0)) {
      case 401:
        r.kind = plugin::Outcome::Kind::unusable;
        r.keep_secrets = false;
        r.message =
            "Telegram no longer accepts this bot token (it was revoked "
            "or replaced); "
            "connect again with the bot's current token.";
        break;
      case 403:
        // The person blocked the bot or left the chat: unblocking it brings
        // the same connection back, so its token stays.
        r.kind = plugin::Outcome::Kind::unusable;
        r.keep_secrets = true;
        r.message =
            "The bot may not write to this chat (it was blocked or "
            "removed); unblock it "
            "in Telegram, then switch the connection back on.";
        break;
      case 400:
        r.kind = plugin::Outcome::Kind::final;
        r.message = "Telegram refused the message" + (why.empty() ? "" : ": " + why) +
                    ". Check the chat id, and send the bot a message first.";
        break;
      default:
        if (!why.empty() && r.kind != plugin::Outcome::Kind::done)
          r.message += " Telegram said: " + why;
    }
    r.message = scrub(std::move(r.message), token);
    return r;
  }
};

}  // namespace

const Notifier& telegram_notifier() {
  static const Telegram telegram;
  return telegram;
}

}  // namespace peto::notify
