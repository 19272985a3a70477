#include "notify/announcements.h"

#include <charconv>

#include "core/i18n.h"
#include "core/timezone.h"

namespace peto::notify {

namespace {

constexpr std::size_t kNamedAtMost = 5;

const Catalogue& words() { return Catalogue::shared(); }

std::string when(const Recipient& to, Millis at) {
  return format_local(at, to.time_zone.empty() ? "UTC" : to.time_zone);
}

std::string named(const std::string& lang, const Named& n) {
  if (n.company.empty()) return n.role;
  return words().fill(lang, "notice_role_at_company", {{"role", n.role}, {"company", n.company}});
}

// "one" or "other" form of `key` ("<key>_one" / "<key>_other") with {n}.
std::string counted(const std::string& lang, const std::string& key, std::size_t n,
                    std::map<std::string, std::string> vars = {}) {
  vars["n"] = std::to_string(n);
  return words().fill(lang, key + (n == 1 ? "_one" : "_other"), vars);
}

// Up to five lines, then "and N more".
std::string list_lines(const std::string& lang, const std::vector<std::string>& lines) {
  std::string out;
  for (std::size_t i = 0; i < lines.size() && i < kNamedAtMost; ++i) out += "- " + lines[i] + "\n";
  if (lines.size() > kNamedAtMost)
    out += counted(lang, "notice_and_more", lines.size() - kNamedAtMost) + "\n";
  if (!out.empty()) out.pop_back();
  return out;
}

Notification base(const Recipient& to, std::string event) {
  Notification n;
  n.event = std::move(event);
  n.language = language_of(to);
  return n;
}

}  // namespace

std::string language_of(const Recipient& to) {
  if (!to.language.empty() && words().has_language(to.language)) return to.language;
  return "en";
}

Notification reminder_due(const Recipient& to, std::int64_t reminder_id, const std::string& title,
                          Millis due_at, const std::optional<Named>& application,
                          const std::string& public_url) {
  Notification n = base(to, "reminder_due");
  n.title = title;  // the person's own words, not translated
  if (application) n.body = named(n.language, *application);
  n.url = absolute_url(public_url, application ? "/applications/" + std::to_string(application->id)
                                               : "/reminders/" + std::to_string(reminder_id));
  n.key = "reminder:" + std::to_string(reminder_id) + ":" + format_time_s(due_at);
  n.occurred_at = due_at;
  n.data = {{"reminder_id", reminder_id},
            {"due_at", format_time_s(due_at)},
            {"application_id", application ? nlohmann::json(application->id) : nullptr},
            {"due_local", when(to, due_at)}};
  return n;
}

std::int64_t reminder_of_key(std::string_view key) {
  constexpr std::string_view prefix = "reminder:";
  if (!key.starts_with(prefix)) return 0;
  key.remove_prefix(prefix.size());
  const auto end = key.find(':');
  if (end == std::string_view::npos) return 0;
  std::int64_t id = 0;
  const auto [stop, ec] = std::from_chars(key.data(), key.data() + end, id);
  return ec == std::errc() && stop == key.data() + end && id > 0 ? id : 0;
}

Notification went_quiet(const Recipient& to, const std::vector<QuietItem>& items, Millis now,
                        const std::string& public_url) {
  Notification n = base(to, "went_quiet");
  n.title = counted(n.language, "notice_went_quiet_title", items.size());
  std::vector<std::string> lines;
  std::vector<std::string> parts{format_time_s(now)};
  nlohmann::json ids = nlohmann::json::array();
  for (const auto& item : items) {
    auto days = static_cast<std::size_t>(std::max<Millis>(0, now - item.last_activity) / 86400000);
    lines.push_back(named(n.language, item.application) + " — " +
                    counted(n.language, "notice_days_quiet", days));
    parts.push_back(std::to_string(item.application.id));
    ids.push_back(item.application.id);
  }
  n.body = list_lines(n.language, lines);
  n.url = absolute_url(public_url, items.size() == 1
                                       ? "/applications/" + std::to_string(items[0].application.id)
                                       : "/applications");
  n.key = announcement_key("went_quiet", parts);
  n.occurred_at = now;
  n.data = {{"application_ids", ids}};
  return n;
}

Notification posting_closing(const Recipient& to, const std::vector<ClosingItem>& items,
                             const std::string& public_url) {
  Notification n = base(to, "posting_closing");
  n.title = counted(n.language, "notice_closing_title", items.size());
  std::vector<std::string> lines;
  std::vector<std::string> parts;
  nlohmann::json listings = nlohmann::json::array();
  for (const auto& item : items) {
    lines.push_back(
        words().fill(n.language, "notice_closes_on",
                     {{"what", named(n.language, item.listing)}, {"date", item.closes_on}}));
    parts.push_back(std::to_string(item.listing.id) + "@" + item.closes_on);
    listings.push_back({{"listing_id", item.listing.id}, {"closes_on", item.closes_on}});
  }
  n.body = list_lines(n.language, lines);
  n.url = absolute_url(public_url, items.size() == 1
                                       ? "/listings/" + std::to_string(items[0].listing.id)
                                       : "/listings");
  n.key = announcement_key("posting_closing", parts);
  n.data = {{"listings", listings}};
  return n;
}

Notification status_changed(const Recipient& to, const Named& application, std::int64_t event_id,
                            const std::string& from_status, const std::string& to_status, Millis at,
                            const std::string& public_url) {
  Notification n = base(to, "status_changed");
  n.title = words().fill(n.language, "notice_status_changed_title",
                         {{"what", named(n.language, application)},
                          {"status", words().text(n.language, "choice_status_" + to_status)}});
  n.url = absolute_url(public_url, "/applications/" + std::to_string(application.id));
  n.key = "status:" + std::to_string(application.id) + ":" + std::to_string(event_id);
  n.occurred_at = at;
  n.data = {{"application_id", application.id}, {"from", from_status}, {"to", to_status}};
  return n;
}

Notification interview_scheduled(const Recipient& to, const Named& application,
                                 std::int64_t interview_id, Millis starts_at,
                                 const std::string& public_url) {
  Notification n = base(to, "interview_scheduled");
  n.title = words().fill(n.language, "notice_interview_title",
                         {{"what", named(n.language, application)}, {"when", when(to, starts_at)}});
  n.url = absolute_url(public_url, "/applications/" + std::to_string(application.id));
  n.key = "interview:" + std::to_string(interview_id) + ":" + format_time_s(starts_at);
  n.occurred_at = starts_at;
  n.data = {{"application_id", application.id},
            {"interview_id", interview_id},
            {"starts_at", format_time_s(starts_at)}};
  return n;
}

Notification offer_recorded(const Recipient& to, const Named& application, std::int64_t offer_id,
                            Millis at, const std::string& public_url) {
  Notification n = base(to, "offer_recorded");
  n.title =
      words().fill(n.language, "notice_offer_title", {{"what", named(n.language, application)}});
  n.url = absolute_url(public_url, "/applications/" + std::to_string(application.id));
  n.key = "offer:" + std::to_string(offer_id);
  n.occurred_at = at;
  n.data = {{"application_id", application.id}, {"offer_id", offer_id}};
  return n;
}

Notification capture_received(const Recipient& to, std::int64_t capture_id, const std::string& role,
                              const std::string& company, Millis at,
                              const std::string& public_url) {
  Notification n = base(to, "capture_received");
  n.title = words().fill(n.language, "notice_capture_title",
                         {{"what", named(n.language, Named{0, role, company})}});
  n.url = absolute_url(public_url, "/captures/" + std::to_string(capture_id));
  n.key = "capture:" + std::to_string(capture_id);
  n.occurred_at = at;
  n.data = {{"capture_id", capture_id}};
  return n;
}

}  // namespace peto::notify
