#include "purge/accounts.h"

#include <filesystem>
#include <system_error>
#include <vector>

#include "capture/kept_pages.h"
#include "core/clock.h"
#include "core/log.h"
#include "domain/accounts.h"
#include "engine/queue.h"
#include "media/exports.h"
#include "media/uploads.h"

namespace peto::purge {

namespace fs = std::filesystem;

std::optional<DeletedAccount> delete_account(store::Db& db, const Clock& clock,
                                             const Config& config, std::int64_t id) {
  auto account = domain::Accounts(db, clock).find(id);
  if (!account) return std::nullopt;
  // Files of rows that go: listed in the transaction that deletes the rows,
  // so an upload finishing meanwhile either is listed or fails on its owner.
  std::vector<fs::path> files;
  const bool erased = db.write([&](store::Conn& c) {
    files = media::owner_upload_files(c, config.media_dir(), id);
    for (auto& f : media::owner_archive_files(c, config.exports_dir(), id)) files.push_back(f);
    engine::Queue::forget_owner_in(c, id);
    return domain::Accounts::erase_in(c, id);
  });
  if (!erased) return std::nullopt;
  // Folders only the account writes into.
  files.push_back(capture::KeptPages(db, clock, config.pages_dir()).owner_folder(id));
  files.push_back(fs::path(config.local_store_root()) / std::to_string(id));

  DeletedAccount out{account->email, 0};
  for (const auto& f : files) {
    std::error_code ec;
    const auto removed = fs::remove_all(f, ec);
    if (ec) {
      log::warn("purge", "a file of a deleted account could not be removed",
                {{"user", id}, {"path", f.string()}, {"error", ec.message()}});
    } else if (removed > 0) {
      ++out.files;
    }
  }
  log::info("purge", "account deleted", {{"user", id}, {"files", out.files}});
  return out;
}

}  // namespace peto::purge
