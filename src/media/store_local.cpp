// The local-folder store: copies a document into a folder of this machine,
// below the account's own folder of Config::local_store_root()
// (PETO_STORE_LOCAL_ROOT/<account id>) and nowhere else, so that one account
// cannot write into another's.
//
// The connection names a folder relative to that root ("cv"). Nothing
// may lead out of the root: not "..", not an absolute path, and not a
// symbolic link inside the root that points elsewhere — the folder is
// resolved (every link followed) and must still be below the resolved root,
// both when the connection is saved and before every copy. The file is
// written whole to a temporary name in the same folder and renamed over the
// final name, so a reader never sees half a file; the temporary file is
// opened with O_EXCL | O_NOFOLLOW, and rename() replaces a link at the final
// name instead of following it.
#include <fcntl.h>
#include <sodium.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "media/stores.h"

namespace peto::media {

namespace fs = std::filesystem;

namespace {

// The folder as written is acceptable: relative, no "..", no empty or "."
// segments beyond trailing slashes, printable.
bool plain_folder(const std::string& folder) {
  if (folder.empty()) return true;
  if (folder.front() == '/' || folder.size() > 500) return false;
  std::size_t start = 0;
  while (start <= folder.size()) {
    auto end = folder.find('/', start);
    if (end == std::string::npos) end = folder.size();
    std::string seg = folder.substr(start, end - start);
    if (seg == ".." || seg == ".") return false;
    if (seg.empty() && end != folder.size()) return false;
    for (unsigned char c : seg)
      if (c < 0x20 || c == 0x7f || c == '\\') return false;
    start = end + 1;
  }
  return true;
}

// Whether `inner` (resolved) is `root` (resolved) or below it.
bool below(const fs::path& root, const fs::path& inner) {
  auto r = root.begin(), i = inner.begin();
  for (; r != root.end(); ++r, ++i)
    if (i == inner.end() || *r != *i) return false;
  return true;
}

// The resolved folder for `folder` below the root, made if absent; an empty
// path and the reason when it leads out of the root or cannot be made.
std::pair<fs::path, std::string> resolved_folder(const std::string& folder,
                                                 const fs::path& root_path, bool make) {
  if (!plain_folder(folder)) return {{}, "The folder must be a relative path without '..'."};
  std::error_code ec;
  if (make) fs::create_directories(root_path, ec);
  if (!make && !fs::exists(root_path, ec))
    return {root_path / folder, ""};  // nothing to follow yet
  fs::path root = fs::canonical(root_path, ec);
  if (ec) return {{}, "The local store folder does not exist."};
  fs::path target = root / folder;
  // Resolve what exists before making anything: a link inside the root must
  // not lead the new folders elsewhere.
  fs::path existing = fs::weakly_canonical(target, ec);
  if (ec || !below(root, existing))
    return {{}, "The folder leads out of your local store folder; peto writes only inside it."};
  if (make) {
    fs::create_directories(existing, ec);
    if (ec) return {{}, "Could not make the folder " + existing.string() + ": " + ec.message()};
    fs::path made = fs::canonical(existing, ec);
    if (ec || !below(root, made))
      return {{}, "The folder leads out of your local store folder; peto writes only inside it."};
    existing = made;
  }
  return {existing, ""};
}

// The account's own folder below the local store root.
fs::path account_root(const Config& instance, std::int64_t owner) {
  return fs::path(instance.local_store_root()) / std::to_string(owner);
}

std::string hex_random() {
  unsigned char bytes[8];
  randombytes_buf(bytes, sizeof bytes);
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) {
    out += digits[b >> 4];
    out += digits[b & 15];
  }
  return out;
}

// Copies `from` into the open descriptor `fd`; "" or the reason it failed.
std::string copy_into(const std::string& from, int fd) {
  std::ifstream in(from, std::ios::binary);
  if (!in) return "The document's file could not be read.";
  char buf[64 * 1024];
  while (in) {
    in.read(buf, sizeof buf);
    std::streamsize n = in.gcount();
    const char* p = buf;
    while (n > 0) {
      ssize_t w = ::write(fd, p, static_cast<size_t>(n));
      if (w < 0) {
        if (errno == EINTR) continue;
        return std::string("Writing the copy failed: ") + std::strerror(errno) + ".";
      }
      p += w;
      n -= w;
    }
  }
  if (in.bad()) return "The document's file could not be read.";
  if (::fsync(fd) != 0) return std::string("Writing the copy failed: ") + std::strerror(errno);
  return "";
}

class LocalStore final : public Store {
 public:
  std::string_view name() const override { return "local"; }
  std::string_view label_key() const override { return "store_local"; }
  std::vector<FieldSpec> fields() const override {
    FieldSpec folder;
    folder.name = "folder";
    folder.label_key = "store_field_folder";
    folder.help_key = "store_local_folder_help";
    folder.required = false;
    return {folder};
  }

  ConfigErrors validate(const nlohmann::json& config, const Config& instance) const override {
    ConfigErrors errors;
    std::string folder = config.value("folder", "");
    if (!plain_folder(folder)) {
      errors["folder"] = "store_error_folder";
      return errors;
    }
    if (!resolved_folder(folder, instance.local_store_root(), false).second.empty())
      errors["folder"] = "store_error_folder_outside";
    return errors;
  }

  std::string summary(const nlohmann::json& config) const override {
    std::string folder = config.value("folder", "");
    return folder.empty() ? "/" : folder;
  }

  std::string refusal(const nlohmann::json& config, const Config& instance,
                      std::int64_t owner) const override {
    return resolved_folder(config.value("folder", ""), account_root(instance, owner), false).second;
  }

  PutResult put(const PutFile& file, const nlohmann::json& config,
                const PutContext& ctx) const override {
    if (ctx.owner <= 0) return PutResult::declined("A copy to a local folder needs its account.");
    const fs::path root_path = account_root(ctx.config, ctx.owner);
    auto [folder, why] = resolved_folder(config.value("folder", ""), root_path, true);
    if (!why.empty()) return PutResult::failed(why);
    const std::string name = safe_name(file.remote_name);
    const fs::path final_path = folder / name;
    const fs::path temp = folder / ("." + name + "." + hex_random() + ".part");
    int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0640);
    if (fd < 0)
      return PutResult::failed("Could not write in " + folder.string() + ": " +
                               std::strerror(errno) + ".");
    std::string failed = copy_into(file.path, fd);
    if (::close(fd) != 0 && failed.empty()) failed = "Writing the copy failed.";
    if (failed.empty() && ::rename(temp.c_str(), final_path.c_str()) != 0)
      failed = std::string("Could not name the copy: ") + std::strerror(errno) + ".";
    if (!failed.empty()) {
      ::unlink(temp.c_str());
      return PutResult::failed(failed);
    }
    // The folder's entry for the new name is durable too.
    int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
      ::fsync(dir);
      ::close(dir);
    }
    std::error_code ec;
    fs::path root = fs::canonical(root_path, ec);
    return PutResult::sent(fs::relative(final_path, root, ec).string(),
                           "file://" + final_path.string());
  }
};

}  // namespace

const Store& local_store() {
  static const LocalStore store;
  return store;
}

}  // namespace peto::media
