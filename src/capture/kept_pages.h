// Kept pages: the source of a captured page, gzipped, with its SHA-256, so
// the person can see later what the listing said when they saved it.
//
//   KeptPages pages(db, clock, config.pages_dir());
//   pages.keep(conn, owner, capture_id, html);   // false when over the caps
//   auto html = pages.read(owner, capture_id);   // nullopt if gone or changed
//   pages.expire(config.capture_page_keep_days); // the upkeep step, hourly
//
// Files live under <dir>/<owner>/<capture id>.html.gz (outside the media
// folder, so the orphan sweep never sees them); the captures row records the
// file, the SHA-256 (hex) of the page as captured and its gzipped size. Per
// account at most Limits::pages kept pages and Limits::bytes of them; past
// either the page is simply not kept (the capture is unaffected). A page of a
// capture that was not accepted goes after `keep_days` (0 = kept for good);
// an accepted capture's page stays with its listing.
//
// Files are written to a temporary name and renamed, so a reader never sees
// half a page. Thread-safe (state is in the Db and the files).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "core/clock.h"
#include "store/db.h"

namespace peto::capture {

// Per account.
struct KeptPageLimits {
  std::int64_t pages = 500;
  std::int64_t bytes = 200LL << 20;  // gzipped
};

class KeptPages {
 public:
  using Limits = KeptPageLimits;

  KeptPages(store::Db& db, const Clock& clock, std::filesystem::path dir, Limits limits = {})
      : db_(db), clock_(clock), dir_(std::move(dir)), limits_(limits) {}

  // Keeps `html` for the owner's capture `capture_id`, recording it on
  // `conn` (inside the caller's transaction if it has one). False when the
  // account is at its caps or the capture is not the owner's.
  bool keep(store::Conn& conn, std::int64_t owner, std::int64_t capture_id, std::string_view html);
  bool keep(std::int64_t owner, std::int64_t capture_id, std::string_view html);
  // The page as captured; nullopt when none is kept, the file is gone, or
  // its SHA-256 no longer matches.
  std::optional<std::string> read(std::int64_t owner, std::int64_t capture_id);
  // The folder of `owner`'s kept pages (which may not exist).
  std::filesystem::path owner_folder(std::int64_t owner) const {
    return dir_ / std::to_string(owner);
  }
  // Removes the kept pages of captures not accepted, last changed more than
  // `keep_days` ago; returns how many. 0 keeps everything.
  std::int64_t expire(int keep_days);

 private:
  store::Db& db_;
  const Clock& clock_;
  std::filesystem::path dir_;
  Limits limits_;
};

}  // namespace peto::capture
