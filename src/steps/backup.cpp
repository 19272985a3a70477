#include "steps/backup.h"

#include "engine/queue.h"
#include "media/backups.h"

namespace peto::steps {

namespace {
constexpr engine::Figure kQueued{"queued", "backup queued", "{n} backups queued"};
constexpr engine::Figure kWritten{"written", "backup written", "{n} backups written"};
constexpr engine::Figure kFailed{"failed", "backup failed (see the log)",
                                 "{n} backups failed (see the log)"};
}  // namespace

engine::StepResult Backup::run(engine::PassContext& ctx) {
  engine::StepResult result{kQueued, kWritten, kFailed};
  std::function<bool()> enqueue;
  if (ctx.config.background_work)
    enqueue = [&ctx] {
      engine::Queue(ctx.db, ctx.clock).enqueue(engine::NewTask(media::kScheduledBackupTask));
      return true;
    };
  switch (media::start_scheduled_backup(ctx.config, ctx.db, ctx.clock, enqueue)) {
    case media::ScheduledStart::enqueued:
      result.add(kQueued);
      break;
    case media::ScheduledStart::ran:
      result.add(kWritten);
      break;
    case media::ScheduledStart::failed:
      result.add(kFailed);
      break;
    default:
      break;
  }
  return result;
}

}  // namespace peto::steps
