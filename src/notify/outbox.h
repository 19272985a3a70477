// Outbox: how an announcement reaches a person, exactly once per connection.
//
// Announcing (inside the transaction that claims what is announced — the
// reminder's notified_at, the application's quiet_announced_at):
//
//   store::with_write(conn, [&](store::Conn& c) {
//     if (!claim(c, reminder)) return;
//     auto targets = Outbox::targets(c, {owner});          // one query for many owners
//     outbox.announce(c, recipient, notification, targets[owner]);
//   });
//
// announce() leaves the notice in the person's inbox (unless the event is
// about what they did) and writes one delivery row per enabled connection
// that wants the event, unique on (connection, key): a claim that commits has
// its deliveries, one that rolls back has none, and a second announcement of
// the same key adds nothing.
//
// Delivering (the scheduler's delivery step, deliver_due()): rows that are
// pending or failed, due, with an enabled connection (or none) and an active
// owner, in batches of 50 ordered by (next_attempt_at, id), sent by 4
// senders at once. Each row is claimed with a conditional UPDATE that moves next_attempt_at 15
// minutes on (the lease: a crash mid-send brings it back then), then sent through its notifier. The
// notifier's plugin::Outcome decides (plugin::next_attempt with
// kDeliveryBackoff, plugin::settle for the connection):
//   done     → status sent, sent_at, body cleared; the connection's last_ok_at;
//   retry    → status failed, attempt n of 8: again at now + 5 min × 2^(n−1);
//              the 8th gives up;
//   final    → given_up;
//   unusable → given_up, and the connection is retired.
// A row whose connection was removed is given up; secrets that no longer open
// give up the row and say so on the connection. Every attempt sends the same
// payload (the stored bytes) with the same key; Peto-Delivery is the row id,
// so a receiver can drop repeats.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/config.h"
#include "engine/step.h"
#include "net/http.h"
#include "notify/notification.h"
#include "notify/notifier.h"
#include "plugin/attempt.h"
#include "store/db.h"

namespace peto::notify {

inline constexpr int kDeliveryBatch = 50;
inline constexpr std::size_t kSendThreads = 4;  // senders at once (the Db pool's default size)
inline constexpr int kMaxAttempts = 8;
inline constexpr Millis kFirstRetryMs = 5 * 60 * 1000;
inline constexpr plugin::Backoff kDeliveryBackoff{kMaxAttempts, kFirstRetryMs};
inline constexpr Millis kSendingLeaseMs = 15 * 60 * 1000;
inline constexpr Millis kInboxKeepMs = 7LL * 24 * 3600 * 1000;
inline constexpr Millis kDeliveryKeepMs = 7LL * 24 * 3600 * 1000;

// The wait before attempt n+1 after failed attempt n (1-based): 5, 10, 20 … min.
Millis retry_delay_ms(int attempts);

// A connection an announcement may go to: what announce() needs to decide.
struct Target {
  std::int64_t connection_id = 0;
  std::string plugin;
  nlohmann::json config;  // non-secret config, with the event_* switches
};

struct InboxNotice {
  std::int64_t id = 0;
  std::string event, title, body, url, key;
  Millis created_at = 0;
  bool shown = false;
};

// For an event outside the scheduler (a status the person changed, an
// interview they booked, a page captured for them): in the caller's
// transaction, reads the owner's connections and, only if the inbox or one of
// them wants `event`, the owner's profile, then announces what `build`
// makes for them. Returns the deliveries written. Links stay paths here; the
// delivery step puts PETO_PUBLIC_URL in front.
int announce_event(store::Conn& conn, Millis at, std::int64_t owner, std::string_view event,
                   const std::function<Notification(const Recipient&)>& build);

class Outbox {
 public:
  Outbox(const Clock& clock, const Config& config);

  // Active recipients by id, with their profiles, in one query.
  static std::map<std::int64_t, Recipient> recipients(store::Conn& conn,
                                                      const std::vector<std::int64_t>& owners);
  // The enabled notifier connections of `owners`, in one query.
  static std::map<std::int64_t, std::vector<Target>> targets(
      store::Conn& conn, const std::vector<std::int64_t>& owners);

  // Writes the inbox notice and the deliveries of `n` for `to`; returns how
  // many deliveries were written (0 when every one already existed).
  int announce(store::Conn& conn, const Recipient& to, const Notification& n,
               const std::vector<Target>& targets) const;

  struct Announcement {
    const Recipient* to = nullptr;
    Notification notification;
    const std::vector<Target>* targets = nullptr;
  };
  // announce() for many at once, in a few multi-row statements (an
  // announcer's batch of reminders).
  int announce_all(store::Conn& conn, const std::vector<Announcement>& all) const;
  // The same, written as made at `now`.
  static int announce_all_at(store::Conn& conn, const std::vector<Announcement>& all, Millis now);

  // One run of the delivery step: batches until nothing is due or `budget`
  // is spent. Figures: sent, failed (will retry), given_up, retired, errors.
  engine::StepResult deliver_due(store::Db& db, const net::HttpClient& http,
                                 const engine::Budget& budget) const;

  // Deletes sent and given-up deliveries older than 7 days, inbox notices
  // older than 7 days and those shown more than a day ago. Returns rows deleted.
  std::int64_t forget_old(store::Conn& conn) const;

  // A delivery that was given up: what it was and why.
  struct GivenUp {
    std::int64_t id = 0;
    std::string title;  // the notice's title, in the recipient's language
    std::string error;  // the last attempt's error
    Millis last_attempt_at = 0;
  };
  // The owner's given-up deliveries through `connection`, newest first.
  static std::vector<GivenUp> given_up(store::Conn& conn, std::int64_t owner,
                                       std::int64_t connection, int limit = 20);
  // "Send again": every given-up delivery through `connection` goes back in
  // line, due now, with its attempts counted from nought (what stopped it, a
  // destination refused by one run's settings say, may be fixed). Returns
  // how many.
  std::int64_t send_again(store::Conn& conn, std::int64_t owner, std::int64_t connection) const;

  // The inbox, for the bell and its page.
  static std::int64_t unread(store::Conn& conn, std::int64_t owner);
  // The newest `limit` notices, newest first. Reading them changes nothing.
  std::vector<InboxNotice> inbox(store::Conn& conn, std::int64_t owner, int limit = 50) const;
  // Marks `owner`'s unread notices shown, those up to id `upto` when it is
  // given (what the page showed: a notice that came since stays new).
  // Returns how many.
  std::int64_t mark_shown(store::Conn& conn, std::int64_t owner,
                          std::optional<std::int64_t> upto = std::nullopt) const;

 private:
  const Clock& clock_;
  const Config& config_;
};

}  // namespace peto::notify
