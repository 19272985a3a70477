// Announcements: the words of each event, in the recipient's language.
//
// The announcers (steps/announce.h) and the domain's events read what they
// announce and call these to build the Notification; the Outbox then delivers
// it. Texts come from locales/<lang>/notify.json through Catalogue::shared();
// times are shown in the recipient's time zone. Keys follow docs/SPEC.md §6:
// reminder:<id>:<due ISO>, went_quiet:<hash>, posting_closing:<hash>,
// status:<application>:<event id>, interview:<id>:<starts ISO>,
// offer:<id>:<event id>, capture:<id>.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "notify/notification.h"
#include "notify/notifier.h"

namespace peto::notify {

// The language the words are written in: the profile's if the catalogue has
// it, else "en".
std::string language_of(const Recipient& to);

// A record an announcement names: "<role> at <company>".
struct Named {
  std::int64_t id = 0;
  std::string role;
  std::string company;
};

Notification reminder_due(const Recipient& to, std::int64_t reminder_id, const std::string& title,
                          Millis due_at, const std::optional<Named>& application,
                          const std::string& public_url);
// The reminder a reminder_due notice's key names ("reminder:12:…"), else 0.
std::int64_t reminder_of_key(std::string_view key);

struct QuietItem {
  Named application;
  Millis last_activity = 0;
};
// One message for all of `items` (at most 5 named, then "and N more").
Notification went_quiet(const Recipient& to, const std::vector<QuietItem>& items, Millis now,
                        const std::string& public_url);

struct ClosingItem {
  Named listing;
  std::string closes_on;  // YYYY-MM-DD
};
Notification posting_closing(const Recipient& to, const std::vector<ClosingItem>& items,
                             const std::string& public_url);

Notification status_changed(const Recipient& to, const Named& application, std::int64_t event_id,
                            const std::string& from_status, const std::string& to_status, Millis at,
                            const std::string& public_url);
Notification interview_scheduled(const Recipient& to, const Named& application,
                                 std::int64_t interview_id, Millis starts_at,
                                 const std::string& public_url);
Notification offer_recorded(const Recipient& to, const Named& application, std::int64_t offer_id,
                            Millis at, const std::string& public_url);
Notification capture_received(const Recipient& to, std::int64_t capture_id, const std::string& role,
                              const std::string& company, Millis at, const std::string& public_url);

}  // namespace peto::notify
