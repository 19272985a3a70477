// `peto verify-media` and `peto prune-media`: the scrub and the orphan sweep,
// all at once and by hand.
#include <iostream>

#include "app/app.h"
#include "media/documents.h"
#include "media/uploads.h"
#include "steps/sweep.h"

namespace peto::app {

namespace {

constexpr int kPage = 500;

}  // namespace

// Checks every upload now (recording verified_at and damage as the scrub
// does), then lists the files no row names. One line per damaged upload and
// per stray file on stdout, a summary line last; progress on stderr every 500
// uploads. Exit 1 when any upload is damaged.
int cmd_verify_media(App& app) {
  if (int rc = app.open_migrated_db(); rc != 0) return rc;
  const std::string media_dir = app.config.media_dir();
  const store::Value now = store::now_param(*app.clock);
  std::int64_t total = media::count_uploads_with_files(*app.db);
  std::int64_t checked = 0, missing = 0, changed = 0, after = 0;
  while (true) {
    auto rows = media::uploads_after(*app.db, after, kPage);
    if (rows.empty()) break;
    for (const auto& row : rows) {
      after = row.int_at("id");
      auto damage = media::check_upload(*app.db, media_dir, row, now);
      ++checked;
      if (damage == media::Damage::missing) ++missing;
      if (damage == media::Damage::changed) ++changed;
      if (damage != media::Damage::none)
        std::cout << media::damage_name(damage) << " " << row.text("file") << " (upload "
                  << row.int_at("id") << ")\n";
      if (checked % kPage == 0)
        std::cerr << "peto: checked " << checked << " of " << total << " uploads\n";
    }
  }
  auto stray = steps::sweep_media(*app.db, media::Uploads::file_columns(), media_dir,
                                  app.clock->now_ms(), 0, false);
  for (const auto& file : stray.removed) std::cout << "stray " << file << "\n";
  std::cout << checked << " uploads checked: " << missing << " missing, " << changed << " changed; "
            << stray.removed.size() << " stray files\n";
  return missing + changed > 0 ? 1 : 0;
}

// Lists the files under the media folder that no row names; with `remove`,
// deletes them. No grace: run it when nothing is uploading.
int cmd_prune_media(App& app, bool remove) {
  if (int rc = app.open_migrated_db(); rc != 0) return rc;
  auto stray = steps::sweep_media(*app.db, media::Uploads::file_columns(), app.config.media_dir(),
                                  app.clock->now_ms(), 0, remove);
  if (remove) app.say_database();
  for (const auto& file : stray.removed)
    std::cout << (remove ? "removed " : "stray ") << file << "\n";
  std::cout << stray.removed.size() << (remove ? " stray files removed\n" : " stray files\n");
  return 0;
}

}  // namespace peto::app
