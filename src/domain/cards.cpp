#include "domain/cards.h"

#include "core/i18n.h"
#include "core/text.h"
#include "core/utf8.h"
#include "domain/kinds.h"
#include "domain/records.h"

namespace peto::domain {

using formats::CalItem;
using formats::Card;

namespace {

using nlohmann::json;

constexpr std::int64_t kHourMs = 3600 * 1000;

using text::trimmed;
bool blank(std::string_view s) { return text::is_blank(s); }

// The characters of `text` up to the record field's max_length.
std::string cut_to_field(std::string_view text, std::string_view kind, std::string_view field) {
  const Field* f = domain::kind(kind).field(field);
  std::size_t max = f != nullptr ? static_cast<std::size_t>(f->max_length) : text.size();
  std::size_t chars = 0, i = 0;
  for (; i < text.size(); ++i) {
    bool lead = (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80;
    if (lead && chars++ == max) break;
  }
  return std::string(text.substr(0, i));
}

// Text for an optional record field: cut to the field, null when blank.
json optional_text(std::string_view text, std::string_view kind, std::string_view field) {
  if (blank(text)) return nullptr;
  return cut_to_field(text, kind, field);
}

json moment(const std::optional<std::int64_t>& ms) { return ms ? json(*ms) : json(nullptr); }

std::string string_field(const json& record, const char* name) {
  auto it = record.find(name);
  return it != record.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<std::int64_t> moment_field(const json& record, const char* name) {
  auto it = record.find(name);
  if (it == record.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<std::int64_t>();
}

}  // namespace

std::string record_uid(std::string_view kind, const json& record) {
  std::string own = string_field(record, "uid");
  if (!own.empty()) return own;
  const Kind* k = find_kind(kind);
  std::string id = record.contains("id") ? record["id"].dump() : "0";
  std::string created = record.contains("created_at") ? record["created_at"].dump() : "0";
  return "peto-" + (k ? k->singular : std::string(kind)) + "-" + id + "-" + created;
}

std::string interview_title(const std::string& lang, const json& interview) {
  const std::string language = lang.empty() ? "en" : lang;
  const Catalogue& words = Catalogue::shared();
  std::string role = string_field(interview, "application_role");
  std::string company = string_field(interview, "company_name");
  if (!role.empty() && !company.empty())
    role = words.fill(language, "notice_role_at_company", {{"role", role}, {"company", company}});
  return words.text(language, "kind_interview") + ": " + role;
}

CalItem interview_item(const json& interview, const std::string& uid, const std::string& title) {
  CalItem item;
  item.type = CalItem::Type::event;
  item.uid = uid;
  item.summary = title;
  item.location = string_field(interview, "place");
  item.description = string_field(interview, "notes");
  item.start = moment_field(interview, "starts_at");
  item.end = moment_field(interview, "ends_at");
  item.day = string_field(interview, "starts_on");
  // An interview without an end shows as an hour long.
  if (!item.end && item.start) item.end = *item.start + kHourMs;
  item.cancelled = string_field(interview, "outcome") == "cancelled";
  return item;
}

CalItem reminder_item(const json& reminder, const std::string& uid) {
  CalItem item;
  item.type = CalItem::Type::todo;
  item.uid = uid;
  item.summary = string_field(reminder, "title");
  item.due = moment_field(reminder, "due_at");
  item.day = string_field(reminder, "due_on");
  item.completed = moment_field(reminder, "done_at");
  return item;
}

Card contact_card(const json& contact, const std::string& uid) {
  Card card;
  card.uid = uid;
  card.name = string_field(contact, "name");
  card.email = string_field(contact, "email");
  card.phone = string_field(contact, "phone");
  card.role = string_field(contact, "role");
  card.organisation = string_field(contact, "company_name");
  card.notes = string_field(contact, "notes");
  return card;
}

json interview_values(const CalItem& item) {
  json v = json::object();
  // An all-day event is given by its day alone: peto derives the times.
  if (!item.day.empty()) {
    v["starts_on"] = item.day;
  } else {
    v["starts_on"] = nullptr;
    std::optional<std::int64_t> start = item.start ? item.start : item.due;
    if (start) v["starts_at"] = *start;
    v["ends_at"] = moment(item.end);
    if (start && item.end && *item.end < *start) v["ends_at"] = nullptr;
  }
  v["place"] = optional_text(item.location, "interviews", "place");
  v["notes"] = optional_text(item.description, "interviews", "notes");
  return v;
}

json reminder_values(const CalItem& item) {
  json v = json::object();
  if (!blank(item.summary)) v["title"] = cut_to_field(trimmed(item.summary), "reminders", "title");
  // Due on a day, at a moment, or (a task without DUE) not at all.
  std::optional<std::int64_t> due = item.due ? item.due : item.start;
  if (!item.day.empty()) {
    v["due_on"] = item.day;
  } else {
    v["due_on"] = nullptr;
    v["due_at"] = moment(due);
  }
  v["done_at"] = moment(item.completed);
  return v;
}

json contact_values(const Card& card) {
  json v = json::object();
  if (!blank(card.name)) v["name"] = cut_to_field(trimmed(card.name), "contacts", "name");
  const Field* email = kind("contacts").field("email");
  if (card.email.empty())
    v["email"] = nullptr;
  else if (plausible_email(card.email) &&
           (email == nullptr ||
            utf8_length(card.email) <= static_cast<std::size_t>(email->max_length)))
    v["email"] = card.email;
  v["phone"] = optional_text(card.phone, "contacts", "phone");
  v["role"] = optional_text(card.role, "contacts", "role");
  v["notes"] = optional_text(card.notes, "contacts", "notes");
  return v;
}

}  // namespace peto::domain
