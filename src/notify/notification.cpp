#include "notify/notification.h"

#include <algorithm>

#include "core/token.h"

namespace peto::notify {

namespace {

const std::vector<std::string> kEvents = {
    "reminder_due",   "capture_received",    "went_quiet",    "posting_closing",
    "status_changed", "interview_scheduled", "offer_recorded"};

}  // namespace

const std::vector<std::string>& events() { return kEvents; }

bool is_event(std::string_view event) {
  return std::find(kEvents.begin(), kEvents.end(), event) != kEvents.end();
}

bool about_what_you_did(std::string_view event) {
  return event == "status_changed" || event == "interview_scheduled" || event == "offer_recorded";
}

std::string payload(const Notification& n) {
  // nlohmann's object is a std::map: keys come out sorted, and dump() with no
  // indent writes ',' and ':' with no spaces and leaves UTF-8 as it is.
  nlohmann::json p = {{"version", 1},
                      {"event", n.event},
                      {"key", n.key},
                      {"occurred_at", n.occurred_at ? nlohmann::json(format_time_s(*n.occurred_at))
                                                    : nlohmann::json(nullptr)},
                      {"language", n.language},
                      {"title", n.title},
                      {"body", n.body},
                      {"url", n.url},
                      {"data", n.data.is_object() ? n.data : nlohmann::json::object()}};
  return p.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::optional<Notification> from_payload(std::string_view bytes) {
  nlohmann::json p = nlohmann::json::parse(bytes, nullptr, false);
  if (!p.is_object() || p.value("version", 0) != 1) return std::nullopt;
  auto text = [&](const char* k) {
    auto it = p.find(k);
    return it != p.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  Notification n;
  n.event = text("event");
  if (!is_event(n.event) && n.event != "test") return std::nullopt;
  n.key = text("key");
  n.language = text("language");
  n.title = text("title");
  n.body = text("body");
  n.url = text("url");
  if (auto at = text("occurred_at"); !at.empty()) n.occurred_at = parse_time(at);
  if (auto it = p.find("data"); it != p.end() && it->is_object()) n.data = *it;
  return n;
}

std::string announcement_key(std::string_view prefix, const std::vector<std::string>& parts) {
  std::string joined;
  for (const auto& part : parts) joined += part;
  return std::string(prefix) + ":" + sha256_hex(joined).substr(0, 40);
}

std::string bounded_key(const std::string& key) {
  if (key.size() <= 200) return key;
  return announcement_key(std::string_view(key).substr(0, 150), {key});
}

}  // namespace peto::notify
