// The recovery link by e-mail: "Forgot your password?" on the sign-in page
// when this peto can send mail (PETO_SMTP_URL).
//
//   queue.enqueue(notify::recovery_mail_task(typed_address));  // the page
//   notify::send_recovery_mail(db, clock, config, http, task);  // the worker
//
// The page enqueues the same task whatever the address, and answers the same
// words: neither what it says nor how long it takes tells whether an account
// has that address. The worker looks the address up; for an active account it
// makes a recovery link (domain::Accounts::create_recovery: an hour, once,
// replacing earlier ones) and mails it, in the account's language, to the
// account's own address. For any other address it sends nothing. A mail the
// server refuses is not retried: the person asks again.
#pragma once

#include <string>

#include "core/clock.h"
#include "core/config.h"
#include "core/status.h"
#include "engine/queue.h"
#include "net/http.h"
#include "store/db.h"

namespace peto::notify {

inline constexpr const char* kRecoveryMailTask = "recovery_mail";

engine::NewTask recovery_mail_task(const std::string& typed_address);

// "sent", "no account" (nothing sent), or the mail server's refusal.
Result<std::string> send_recovery_mail(store::Db& db, const Clock& clock, const Config& config,
                                       const net::HttpClient& http, const engine::Task& task);

}  // namespace peto::notify
