// Fuzzes the iCalendar and vCard text a CalDAV or CardDAV server sends
// (sync/cards.h). The first byte picks what is done with the rest:
//   0  read_calendar, then interview_values and reminder_values
//   1  read_card, then contact_values
//   2  merge_member of the text with an interview's VEVENT peto wrote
//   3  merge_member of the text with a reminder's VTODO
//   4  merge_member of the text with a contact's VCARD
//
// Promises checked (cards.h): junk is an error message, never an exception;
// read text holds no control characters but tab and line end; the record
// values are cut to their field's length; a merge ends every line in CRLF,
// and when their text was a readable member of the same type the merge is
// one too, with peto's properties read back as peto wrote them.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "core/utf8.h"
#include "domain/cards.h"
#include "domain/kinds.h"
#include "formats/ical.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using namespace peto;
using nlohmann::json;
using peto::fuzz::broken;

const std::string kZone = "Europe/Lisbon";

void clean_text(const std::string& s) {
  for (unsigned char c : s)
    if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7F)
      broken("read text keeps a control character");
}

void fits(const json& values, std::string_view kind) {
  for (const auto& [name, v] : values.items()) {
    if (!v.is_string()) continue;
    const domain::Field* f = domain::kind(kind).field(name);
    if (f == nullptr) broken("a value for a field the record does not have");
    if (utf8_length(v.get<std::string>()) > static_cast<std::size_t>(f->max_length))
      broken("a value longer than its field");
  }
}

void check(const formats::CalItem& item) {
  for (const auto* s : {&item.uid, &item.summary, &item.location, &item.description})
    clean_text(*s);
  fits(domain::interview_values(item), "interviews");
  fits(domain::reminder_values(item), "reminders");
}

void check(const formats::Card& card) {
  for (const auto* s : {&card.uid, &card.name, &card.email, &card.phone, &card.role, &card.notes})
    clean_text(*s);
  fits(domain::contact_values(card), "contacts");
}

const std::string& ours(int which) {
  static const std::string event = [] {
    json interview = {{"id", 7},
                      {"place", "Office, 3rd floor; room \"B\""},
                      {"notes", "Bring the portfolio.\nAsk about the team."},
                      {"starts_at", 1800000000000},
                      {"ends_at", 1800003600000},
                      {"outcome", "pending"}};
    return formats::write_calendar(
        {domain::interview_item(interview, "peto-interview-7-1", "Interview: Backend engineer")},
        1800000000000);
  }();
  static const std::string todo = [] {
    json reminder = {{"id", 3}, {"title", "Follow up with Acme"}, {"due_at", 1800100000000}};
    return formats::write_calendar({domain::reminder_item(reminder, "peto-reminder-3-1")},
                                   1800000000000);
  }();
  static const std::string card = [] {
    json contact = {{"id", 5},
                    {"name", "Ana Lima"},
                    {"email", "ana@acme.example"},
                    {"phone", "+351 21 000 0000"},
                    {"role", "Recruiter"},
                    {"company_name", "Acme"},
                    {"notes", "Met at the fair"}};
    return formats::write_card(domain::contact_card(contact, "peto-contact-5-1"));
  }();
  return which == 2 ? event : which == 3 ? todo : card;
}

void crlf_only(const std::string& text) {
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n' && (i == 0 || text[i - 1] != '\r')) broken("a merged line ends without CR");
}

// What peto reads back from an item as the record's values: a merge keeps
// the other properties of theirs, but these must be peto's own.
bool same_peto_fields(const formats::CalItem& a, const formats::CalItem& b) {
  if (a.type != b.type) return false;
  return a.type == formats::CalItem::Type::event
             ? domain::interview_values(a) == domain::interview_values(b)
             : domain::reminder_values(a) == domain::reminder_values(b);
}

bool same_peto_fields(const formats::Card& a, const formats::Card& b) {
  json x = domain::contact_values(a), y = domain::contact_values(b);
  return x["name"] == y["name"] && x["role"] == y["role"] && x["notes"] == y["notes"];
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const int which = data[0] % 5;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (which == 0) {
    auto read = formats::read_calendar(text, kZone);
    if (auto* item = std::get_if<formats::CalItem>(&read))
      check(*item);
    else if (std::get<std::string>(read).empty())
      broken("an error without a message");
    return 0;
  }
  if (which == 1) {
    auto read = formats::read_card(text);
    if (auto* card = std::get_if<formats::Card>(&read))
      check(*card);
    else if (std::get<std::string>(read).empty())
      broken("an error without a message");
    return 0;
  }
  const std::string& mine = ours(which);
  const std::string merged = formats::merge_member(text, mine);
  crlf_only(merged);
  // The line limit leaves room for the lines the merge may add.
  const bool room = std::count(text.begin(), text.end(), '\n') < 9000;
  if (which == 4) {
    auto theirs = formats::read_card(text);
    auto back = formats::read_card(merged);
    if (std::holds_alternative<formats::Card>(theirs) && room) {
      if (!std::holds_alternative<formats::Card>(back))
        broken("a merge made a readable card unreadable");
      const auto want = formats::read_card(mine);
      if (!same_peto_fields(std::get<formats::Card>(back), std::get<formats::Card>(want)))
        broken("a merge lost peto's values");
    }
    return 0;
  }
  auto theirs = formats::read_calendar(text, kZone);
  const auto mine_read = formats::read_calendar(mine, kZone);
  const auto& want = std::get<formats::CalItem>(mine_read);
  if (auto* t = std::get_if<formats::CalItem>(&theirs); t && t->type == want.type && room) {
    auto back = formats::read_calendar(merged, kZone);
    if (!std::holds_alternative<formats::CalItem>(back))
      broken("a merge made a readable item unreadable");
    if (!same_peto_fields(std::get<formats::CalItem>(back), want))
      broken("a merge lost peto's values");
  }
  return 0;
}
