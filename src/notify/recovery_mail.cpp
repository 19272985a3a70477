#include "notify/recovery_mail.h"

#include <nlohmann/json.hpp>

#include "core/i18n.h"
#include "core/log.h"
#include "domain/accounts.h"
#include "notify/notifiers.h"

namespace peto::notify {

engine::NewTask recovery_mail_task(const std::string& typed_address) {
  engine::EnqueueOptions once;
  once.max_attempts = 1;
  return {kRecoveryMailTask, nlohmann::json{{"email", typed_address}}.dump(), once};
}

Result<std::string> send_recovery_mail(store::Db& db, const Clock& clock, const Config& config,
                                       const net::HttpClient& http, const engine::Task& task) {
  auto payload = nlohmann::json::parse(task.payload, nullptr, false);
  const std::string typed = payload.is_object() ? payload.value("email", "") : "";
  domain::Accounts accounts(db, clock);
  auto account = accounts.find_by_email(typed);
  if (!account || !account->active) return std::string("no account");
  const std::string token = accounts.create_recovery(account->id, account->id);
  const Catalogue& words = Catalogue::shared();
  const std::string lang = account->language.empty() ? "en" : account->language;
  Notification n;
  n.event = "recovery_link";
  n.title = words.text(lang, "recovery_mail_title");
  n.body = words.fill(lang, "recovery_mail_body",
                      {{"minutes", std::to_string(domain::kRecoveryMinutes)}});
  n.url = absolute_url(config.public_url, "/recover/" + token);
  n.language = lang;
  Recipient to{account->id, account->email, account->language, account->time_zone, true};
  const auto outcome =
      email_notifier().send(n, nlohmann::json::object(), to, {http, config, clock, "recovery"});
  if (outcome.kind != plugin::Outcome::Kind::done) {
    log::warn("notify", "a recovery link could not be mailed",
              {{"user", account->id}, {"error", outcome.message}});
    return Status::unavailable(outcome.message);
  }
  log::info("notify", "recovery link mailed", {{"user", account->id}});
  return std::string("sent");
}

}  // namespace peto::notify
