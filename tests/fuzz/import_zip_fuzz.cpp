// Fuzzes the import of an export archive (media/exports.h, import_archive):
// the zip's entries (names, types, declared and real sizes, the ratio),
// peto.json (nesting, the count of its values, the format and version, every
// section and record) and the documents' files (size, SHA-256, type), into a
// real SQLite file in a temporary folder.
//
// An input that starts with "PK" is the zip itself. Any other is the list
// of entries of a zip the target writes with libzip, so that mutations reach
// peto's checks rather than the zip's checksums: each entry is a line
// "@@ NAME" followed by its bytes, up to the next "\n@@ " line.
//
// Each input is written to a file and imported into an empty account with
// the limits scaled down (so a small input can reach them). A refused archive
// must leave nothing behind (no row, no file); an accepted one is imported
// into a fresh account, so the next input starts from an empty one again.
// A database error is a finding: a bad archive must be refused with a line
// saying why, never fail half-way with a 500.
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string_view>

#include <zip.h>
#include <string>

#include "media/exports.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using namespace peto;
namespace fs = std::filesystem;

struct State {
  State() : w(fuzz::world()) {
    owner = w.new_account();
    media = w.dir / "media";
    zip = w.dir / "input.zip";
    fs::create_directories(media);
  }
  std::int64_t rows() {
    std::int64_t n = 0;
    for (const char* t : {"companies", "contacts", "listings", "applications", "reminders",
                          "interviews", "offers", "notes", "tags", "uploads", "captures"})
      n += w.db->query(std::string("SELECT COUNT(*) FROM ") + t)[0].int_at(0);
    return n;
  }
  std::int64_t files() {
    std::int64_t n = 0;
    for (auto it = fs::recursive_directory_iterator(media);
         it != fs::recursive_directory_iterator(); ++it)
      n += it->is_regular_file() ? 1 : 0;
    return n;
  }
  fuzz::World& w;
  std::int64_t owner = 0;
  fs::path media;
  fs::path zip;
};

// Writes the entries `text` lists (see the header comment) as a zip at `path`;
// false when libzip refuses them (a name it cannot take).
bool write_entries(const fs::path& path, std::string_view text) {
  int err = 0;
  zip_t* za = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
  if (za == nullptr) return false;
  bool deflate = false;
  while (text.starts_with("@@ ")) {
    std::size_t eol = text.find('\n');
    std::string name(text.substr(3, eol == std::string_view::npos ? eol : eol - 3));
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    std::size_t next = text.find("\n@@ ");
    std::string_view bytes = text.substr(0, next);
    text = next == std::string_view::npos ? std::string_view() : text.substr(next + 1);
    zip_source_t* src = zip_source_buffer(za, bytes.data(), bytes.size(), 0);
    if (src == nullptr) break;
    zip_int64_t i = zip_file_add(za, name.c_str(), src, ZIP_FL_ENC_UTF_8);
    if (i < 0) {
      zip_source_free(src);
      continue;
    }
    // Every other entry compressed, as an export's are.
    zip_set_file_compression(za, static_cast<zip_uint64_t>(i),
                             deflate ? ZIP_CM_DEFLATE : ZIP_CM_STORE, 0);
    deflate = !deflate;
  }
  if (zip_close(za) != 0) {
    zip_discard(za);
    return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static State s;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  if (input.starts_with("PK")) {
    std::ofstream out(s.zip, std::ios::binary | std::ios::trunc);
    out.write(input.data(), static_cast<std::streamsize>(input.size()));
  } else if (!write_entries(s.zip, input)) {
    return 0;
  }
  media::ImportLimits limits;
  limits.max_total_bytes = 4 << 20;
  limits.max_file_bytes = 1 << 20;
  limits.max_json_bytes = 2 << 20;
  limits.max_json_values = 20000;
  limits.max_entries = 50;
  const std::int64_t rows_before = s.rows();
  const std::int64_t files_before = s.files();
  std::optional<Result<media::ImportFacts>> done;
  try {
    done.emplace(media::import_archive(*s.w.db, s.w.clock, s.media.string(), s.owner,
                                       s.zip.string(), limits, false));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "import threw: %s\n", e.what());
    fuzz::broken("an archive made the import throw instead of refusing it");
  }
  if (*done) {
    // Imported: the next input gets an empty account, and the files go.
    s.owner = s.w.new_account();
    std::error_code ec;
    fs::remove_all(s.media / "documents", ec);
    return 0;
  }
  if (done->status().message().empty()) fuzz::broken("a refusal without a reason");
  if (s.rows() != rows_before) fuzz::broken("a refused archive left rows behind");
  if (s.files() != files_before) fuzz::broken("a refused archive left files behind");
  return 0;
}
