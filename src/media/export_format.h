// The layout of peto.json that the writer (exports.cpp) and the reader
// (import_read.cpp, import_records.cpp) share: which columns of each table
// travel, and their types. Internal to media/.
#pragma once

#include <string>
#include <vector>

namespace peto::media::format {

struct Column {
  std::string name;
  bool number = false;  // an integer (else text); null is allowed for both
};

// The columns a record kind carries beyond its fields and created_at /
// updated_at: the scheduler's marks that an announcement was made.
inline std::vector<Column> kind_marks(const std::string& kind) {
  if (kind == "listings") return {{"closed_at", true}, {"closing_announced_for", false}};
  if (kind == "applications") return {{"quiet_announced_at", true}};
  // made_from names a record of the kind made_for says (auto_reminders.h).
  if (kind == "reminders") return {{"notified_at", true}, {"made_for", false}, {"made_from", true}};
  return {};
}

// The record kinds in the order they are imported (each refers only to the
// kinds before it).
inline const std::vector<std::string>& kind_order() {
  static const std::vector<std::string> order = {
      "companies", "contacts",  "listings", "applications", "interviews",
      "offers",    "reminders", "notes",    "tags",         "career",  // version 2 on
      "cvs",       "letters"};
  return order;
}

// Every list of an archive's peto.json: the kinds, then what hangs on them.
// A list an older archive lacks reads as empty.
inline const std::vector<std::string>& sections() {
  static const std::vector<std::string> all = [] {
    std::vector<std::string> out = kind_order();
    for (const char* n : {"application_tags", "application_events", "captures", "listing_events",
                          "documents", "saved_views"})
      out.emplace_back(n);
    return out;
  }();
  return all;
}

inline const std::vector<Column>& event_columns() {
  static const std::vector<Column> c = {
      {"id", true},           {"application_id", true}, {"kind", false},
      {"occurred_at", true},  {"summary", false},       {"body", false},
      {"from_status", false}, {"to_status", false},     {"end_reason", false},
      {"interview_id", true}, {"upload_id", true},      {"actor", false},
      {"created_at", true}};
  return c;
}

inline const std::vector<Column>& capture_columns() {
  static const std::vector<Column> c = {
      {"id", true},         {"url", false},           {"origin", false},    {"status", false},
      {"parser", false},    {"parser_version", true}, {"data", false},      {"error", false},
      {"listing_id", true}, {"application_id", true}, {"created_at", true}, {"updated_at", true}};
  return c;
}

inline const std::vector<Column>& listing_event_columns() {
  static const std::vector<Column> c = {
      {"id", true},           {"listing_id", true}, {"kind", false},      {"occurred_at", true},
      {"summary", false},     {"body", false},      {"capture_id", true}, {"actor", false},
      {"external_id", false}, {"created_at", true}};
  return c;
}

inline const std::vector<Column>& document_columns() {
  static const std::vector<Column> c = {{"id", true},
                                        {"title", false},
                                        {"kind", false},
                                        {"filename", false},
                                        {"content_type", false},
                                        {"language", false},
                                        {"notes", false},
                                        {"version", true},
                                        {"replaces", true},
                                        {"subject_kind", false},
                                        {"subject_id", true},
                                        {"made_from", false},  // version 2 on
                                        {"source_text", false},
                                        {"sha256", false},
                                        {"size", true},
                                        {"damage", false},
                                        {"created_at", true},
                                        {"updated_at", true}};
  return c;
}

}  // namespace peto::media::format
