// import_archive (media/exports.h): reads a peto export back, refusing
// anything it does not understand before it writes a thing. The documents'
// files are unpacked here, each checked against peto.json and given its own
// name before the transaction that creates the records (import_records.cpp);
// reading the zip and peto.json is import_read.cpp's.
#include <fcntl.h>
#include <unistd.h>
#include <zip.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/token.h"
#include "media/exports.h"
#include "media/import_internal.h"
#include "media/sniff.h"

namespace peto::media {

namespace fs = std::filesystem;
using import_detail::account_has_records;
using import_detail::Entry;
using import_detail::field;
using import_detail::import_records;
using import_detail::list_entries;
using import_detail::opt_int;
using import_detail::opt_text;
using import_detail::read_document;
using import_detail::read_entry;
using import_detail::Refusal;
using import_detail::refuse;
using import_detail::req_int;
using import_detail::StoredFile;
using import_detail::text_or;
using import_detail::where;
using nlohmann::json;

ImportLimits ImportLimits::from(const Config& config) {
  ImportLimits l;
  l.max_file_bytes = static_cast<std::int64_t>(config.upload_max_mb) << 20;
  return l;
}

namespace {

// Thrown inside the transaction when the account turned out not to be empty.
struct NotEmpty {};

class Zip {
 public:
  explicit Zip(const std::string& path) {
    int err = 0;
    za_ = zip_open(path.c_str(), ZIP_RDONLY | ZIP_CHECKCONS, &err);
  }
  ~Zip() {
    if (za_ != nullptr) zip_discard(za_);
  }
  Zip(const Zip&) = delete;
  Zip& operator=(const Zip&) = delete;
  zip_t* get() const { return za_; }

 private:
  zip_t* za_ = nullptr;
};

// A document's file: unpacked under a temporary name, then given its own
// name before the transaction (removed again if the import is refused).
struct Staged {
  std::string temp;   // absolute path
  std::string final;  // absolute path
  bool renamed = false;
};

// Which document each file entry belongs to; every entry but peto.json must
// be one document's file, and every file a document names must be there.
std::map<std::int64_t, const Entry*> match_files(const json& doc,
                                                 const std::map<std::string, Entry>& entries) {
  std::map<std::int64_t, const Entry*> files;
  std::set<std::string> named;
  for (const json& d : field(doc, "documents")) {
    // Every document is checked before any is used: an id, and a file
    // name and filename that are text when present.
    std::string at = where("documents", d);
    std::int64_t id = req_int(at, d, "id");
    text_or(at, d, "filename", 255);
    auto name = opt_text(at, d, "file", 300);
    if (!name) continue;
    auto it = entries.find(*name);
    if (it == entries.end()) refuse(at + ": its file \"" + *name + "\" is not in the archive");
    if (!named.insert(*name).second) refuse(at + ": its file is another document's too");
    if (!files.emplace(id, &it->second).second) refuse(at + ": the id appears twice");
    std::string sha = text_or(at, d, "sha256", 64);
    if (sha.size() != 64) refuse(at + ": sha256 is not a SHA-256");
  }
  for (const auto& [name, _] : entries)
    if (name != kExportJson && named.count(name) == 0)
      refuse("the entry \"" + name + "\" is not named by peto.json");
  return files;
}

// Unpacks one document's file to a temporary name, checking its size and
// SHA-256 against the JSON on the way.
void unpack(zip_t* za, const Entry& e, const json& d, const std::string& temp,
            const ImportLimits& limits, std::int64_t& total) {
  std::string at = where("documents", d);
  // Readable by peto alone, as an upload is.
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) throw std::runtime_error("could not write " + temp + ": " + std::strerror(errno));
  struct Closer {
    int& fd;
    ~Closer() {
      if (fd >= 0) ::close(fd);
    }
  } closer{fd};
  Sha256 sum;
  std::int64_t size = 0;
  read_entry(za, e, limits.max_file_bytes, limits, total, [&](const char* p, std::size_t n) {
    sum.update(std::string_view(p, n));
    size += static_cast<std::int64_t>(n);
    while (n > 0) {
      ssize_t w = ::write(fd, p, n);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) throw std::runtime_error("could not write " + temp + ": " + std::strerror(errno));
      p += w;
      n -= static_cast<std::size_t>(w);
    }
  });
  int closed = ::close(fd);
  fd = -1;
  if (closed != 0)
    throw std::runtime_error("could not write " + temp + ": " + std::strerror(errno));
  if (text_or(at, d, "sha256", 64) != sum.hex_digest())
    refuse(at + ": its file's SHA-256 is not the one peto.json gives");
  if (auto want = opt_int(at, d, "size"); want && *want != size)
    refuse(at + ": its file's size is not the one peto.json gives");
}

}  // namespace

Result<ImportFacts> import_archive(store::Db& db, const Clock& clock, const std::string& media_dir,
                                   std::int64_t owner, const std::string& zip_path,
                                   const ImportLimits& limits, bool force) {
  std::vector<Staged> staged;
  const fs::path folder_path = fs::path(media_dir) / "documents" / std::to_string(owner);
  std::error_code exists_ec;
  const bool had_folder = fs::exists(folder_path, exists_ec);
  auto discard = [&] {
    std::error_code ec;
    for (const auto& s : staged) {
      fs::remove(s.temp, ec);
      if (s.renamed) fs::remove(s.final, ec);
    }
    if (!had_folder) fs::remove(folder_path, ec);  // only if empty
  };
  try {
    std::error_code ec;
    // The message names no path: on the web it would show the server's folders.
    if (!fs::is_regular_file(zip_path, ec)) refuse("the archive is not a file");
    Zip zip(zip_path);
    if (zip.get() == nullptr) refuse("the archive is not a zip archive");
    auto entries = list_entries(zip.get(), limits);
    std::int64_t total = 0;
    json doc = read_document(zip.get(), entries, limits, total);
    auto files = match_files(doc, entries);
    if (!force) {
      auto conn = db.acquire();
      if (account_has_records(*conn, owner)) throw NotEmpty{};
    }
    // The files, unpacked under temporary names beside where they will live.
    const std::string folder = "documents/" + std::to_string(owner);
    if (!files.empty()) fs::create_directories(folder_path);
    // Each file is unpacked under a temporary name, its type read from its
    // bytes (as an upload's is), then it takes its own name before the
    // transaction: rows never name a file that is not there. Should peto
    // stop before the commit, the orphan sweep removes the unnamed files.
    std::map<std::int64_t, StoredFile> final_names;
    for (const json& d : field(doc, "documents")) {
      std::string at = where("documents", d);
      std::int64_t id = req_int(at, d, "id");
      auto f = files.find(id);
      if (f == files.end()) continue;
      std::string token = random_token(16);
      auto& s = staged.emplace_back(
          Staged{media_dir + "/" + folder + "/.import-" + token, std::string(), false});
      unpack(zip.get(), *f->second, d, s.temp, limits, total);
      Sniffed type = sniff_file(s.temp);
      if (!type.allowed)
        refuse(at + ": its file is not a kind of file peto accepts (" + type.detected + ")");
      std::string relative =
          folder + "/" + token + (type.extension.empty() ? "" : "." + type.extension);
      s.final = media_dir + "/" + relative;
      std::error_code rename_ec;
      fs::rename(s.temp, s.final, rename_ec);
      if (rename_ec)
        throw std::runtime_error("could not move " + s.temp + " to " + s.final + ": " +
                                 rename_ec.message());
      s.renamed = true;
      final_names[id] = StoredFile{relative, type.content_type};
    }
    ImportFacts facts = db.write([&](store::Conn& conn) {
      if (!force && account_has_records(conn, owner)) throw NotEmpty{};
      return import_records(db, conn, clock, owner, final_names, doc);
    });
    return facts;
  } catch (const Refusal& r) {
    discard();
    return Status::invalid(r.message);
  } catch (const NotEmpty&) {
    discard();
    return Status::conflict(
        "the account already has records; importing adds the archive's to them (use --force)");
  } catch (...) {
    discard();
    throw;
  }
}

}  // namespace peto::media
