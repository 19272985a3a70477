#include "steps/upkeep.h"

#include <filesystem>
#include <functional>

#include "capture/kept_pages.h"
#include "core/log.h"
#include "domain/trash.h"
#include "engine/queue.h"
#include "media/exports.h"
#include "notify/outbox.h"
#include "steps/sweep.h"

namespace peto::steps {

namespace {

// Removes the regular files directly in `dir` last written `age` or more
// before `now`, except those `keep` names; returns how many. A missing folder
// is nothing to do.
std::int64_t remove_old_files(const std::string& dir, Millis now, std::chrono::milliseconds age,
                              const std::function<bool(const std::string& name)>& keep,
                              const char* what) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::directory_iterator it(dir, ec), end;
  if (ec) return 0;
  std::int64_t removed = 0;
  for (; it != end; it.increment(ec)) {
    if (ec) break;
    std::error_code fe;
    if (!it->is_regular_file(fe) || fe) continue;
    auto written = mtime_ms(it->path());
    if (!written || now - *written < age.count()) continue;
    if (keep && keep(it->path().filename().string())) continue;
    if (fs::remove(it->path(), fe)) {
      ++removed;
    } else if (fe) {
      log::warn("upkeep", std::string("could not remove ") + what,
                {{"path", it->path().string()}, {"error", fe.message()}});
    }
  }
  return removed;
}

}  // namespace

std::int64_t remove_stale_temp_files(const std::string& dir, Millis now,
                                     std::chrono::milliseconds age) {
  return remove_old_files(dir, now, age, nullptr, "a stale temporary file");
}

std::int64_t remove_unrecorded_archives(store::Db& db, const std::string& exports_dir, Millis now,
                                        std::chrono::milliseconds age) {
  auto recorded = [&db](const std::string& name) {
    return media::ExportArchives::records_file(db, name);
  };
  return remove_old_files(exports_dir, now, age, recorded, "an unrecorded export archive");
}

engine::StepResult Upkeep::run(engine::PassContext& ctx) {
  static constexpr engine::Figure kReaped{"reaped", "{n} finished task or errand removed",
                                          "{n} finished tasks and errands removed"};
  static constexpr engine::Figure kArchivesReaped{"archives_reaped",
                                                  "{n} expired export archive removed",
                                                  "{n} expired export archives removed"};
  static constexpr engine::Figure kPagesExpired{"pages_expired", "{n} kept capture page expired",
                                                "{n} kept capture pages expired"};
  static constexpr engine::Figure kInterrupted{"interrupted", "{n} interrupted errand failed",
                                               "{n} interrupted errands failed"};
  static constexpr engine::Figure kTempRemoved{"temp_removed", "{n} stale temporary file removed",
                                               "{n} stale temporary files removed"};
  static constexpr engine::Figure kNoticesForgotten{"notices_forgotten"};
  static constexpr engine::Figure kTrashEmptied{"trash_emptied",
                                                "{n} trash entry older than 30 days emptied",
                                                "{n} trash entries older than 30 days emptied"};
  engine::StepResult result{kReaped,      kArchivesReaped,   kPagesExpired, kInterrupted,
                            kTempRemoved, kNoticesForgotten, kTrashEmptied};
  engine::Queue queue(ctx.db, ctx.clock);
  const Millis now = ctx.clock.now_ms();
  result.add(kInterrupted, queue.fail_interrupted_errands(kErrandTimeout));
  result.add(kReaped, queue.prune_finished(kKeepFinished));
  result.add(kPagesExpired, capture::KeptPages(ctx.db, ctx.clock, ctx.config.pages_dir())
                                .expire(ctx.config.capture_page_keep_days));
  result.add(kArchivesReaped, media::reap_archives(ctx.db, ctx.config.exports_dir(), now));
  result.add(kArchivesReaped,
             remove_unrecorded_archives(ctx.db, ctx.config.exports_dir(), now, kStrayArchiveAge));
  result.add(kNoticesForgotten,
             notify::Outbox(ctx.clock, ctx.config).forget_old(*ctx.db.acquire()));
  result.add(kTrashEmptied, domain::Trash(ctx.db, ctx.clock).empty_older_than());
  result.add(kTempRemoved,
             remove_stale_temp_files(ctx.config.data_dir + "/tmp", now, kTempFileAge));
  return result;
}

}  // namespace peto::steps
