// What the parts of import_archive (media/exports.h) share (internal to
// media/): import_read.cpp reads and checks the zip and peto.json,
// import_records.cpp creates the records with their ids remapped, and
// imports.cpp unpacks the documents' files and runs the whole.
#pragma once

#include <zip.h>

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>

#include "core/clock.h"
#include "media/exports.h"
#include "store/db.h"

namespace peto::media::import_detail {

// Thrown while checking or importing: the archive is refused with this line
// (the transaction, if one is open, rolls back).
struct Refusal {
  std::string message;
};
[[noreturn]] inline void refuse(std::string message) { throw Refusal{std::move(message)}; }

// --- the zip and peto.json (import_read.cpp) -----------------------------------

struct Entry {
  zip_uint64_t index = 0;
  std::string name;
  std::int64_t size = 0;         // as the header says
  std::int64_t packed_size = 0;  // as the header says
};

// Every entry, checked by name, type and declared size.
std::map<std::string, Entry> list_entries(zip_t* za, const ImportLimits& limits);

// Reads one entry in chunks, never past `limit` bytes, the header's size,
// the ratio or the archive's total; hands each chunk to `sink`.
void read_entry(zip_t* za, const Entry& e, std::int64_t limit, const ImportLimits& limits,
                std::int64_t& total, const std::function<void(const char*, std::size_t)>& sink);

// peto.json, read within the limits and checked: the format, its version, and
// every section a list of records (a missing one becomes an empty list).
nlohmann::json read_document(zip_t* za, const std::map<std::string, Entry>& entries,
                             const ImportLimits& limits, std::int64_t& total);

// --- checking values (import_read.cpp) -----------------------------------------
// `at` names the record in a refusal ("documents 3"); a value of the wrong
// type or too long is refused, a missing one is nullopt (or "").

std::string where(const std::string& section, const nlohmann::json& o);
const nlohmann::json& field(const nlohmann::json& o, const std::string& name);
std::optional<std::int64_t> opt_int(const std::string& at, const nlohmann::json& o,
                                    const std::string& name);
std::int64_t req_int(const std::string& at, const nlohmann::json& o, const std::string& name);
std::optional<std::string> opt_text(const std::string& at, const nlohmann::json& o,
                                    const std::string& name, std::size_t max_chars);
std::string text_or(const std::string& at, const nlohmann::json& o, const std::string& name,
                    std::size_t max_chars);

// --- the records (import_records.cpp) ------------------------------------------

// What the importer stores for a document's file: where it lives and the
// type its bytes say (never the JSON's word).
struct StoredFile {
  std::string relative;
  std::string content_type;
};

// True when `owner` has any uploads, records or captures.
bool account_has_records(store::Conn& conn, std::int64_t owner);

// Creates the records of `doc` in `owner`'s account on `conn` (inside the
// caller's transaction), each reference mapped to the new id of the record
// it names; `files` gives each document id its stored file.
ImportFacts import_records(store::Db& db, store::Conn& conn, const Clock& clock, std::int64_t owner,
                           const std::map<std::int64_t, StoredFile>& files,
                           const nlohmann::json& doc);

}  // namespace peto::media::import_detail
