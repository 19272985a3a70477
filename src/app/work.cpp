// `peto work`: the worker, and the task kinds peto knows.
#include <iostream>

#include "app/app.h"
#include "app/signals.h"
#include "capture/errand.h"
#include "connections/tries.h"
#include "core/log.h"
#include "engine/worker.h"
#include "media/backups.h"
#include "media/exports.h"
#include "media/sent.h"
#include "notify/recovery_mail.h"

namespace peto::app {

// The kinds of task this worker runs, bound to the app's database.
engine::TaskKinds task_kinds(App& app) {
  engine::TaskKinds k;
  // A task that does nothing: for checking a deployment and for benchmarks.
  engine::TaskKind noop;
  noop.name = "noop";
  noop.handler = [](const engine::Task&) -> Result<std::string> { return std::string(); };
  k.add(std::move(noop));
  // Reading the page of a capture made from a link (an errand: never retried).
  engine::TaskKind fetch;
  fetch.name = capture::kFetchTask;
  fetch.max_attempts = 1;
  auto http = std::make_shared<net::HttpClient>();
  auto pages = std::make_shared<capture::KeptPages>(*app.db, *app.clock, app.config.pages_dir());
  capture::FetchOptions options;
  options.honour_robots = app.config.capture_robots;
  options.pages = pages.get();
  fetch.handler = [&app, http, pages, options](const engine::Task& task) {
    return capture::run_fetch(*app.db, *app.clock, *http, task, options);
  };
  k.add(std::move(fetch));
  // The scheduled backup, claimed by the scheduler after its pass; not
  // retried (the next slot runs it again), its outcome is in backup_state.
  engine::TaskKind backup;
  backup.name = media::kScheduledBackupTask;
  backup.max_attempts = 1;
  backup.handler = [&app](const engine::Task&) -> Result<std::string> {
    Status s = media::run_scheduled_backup(app.config, *app.db, *app.clock);
    if (!s) return s;
    return std::string();
  };
  k.add(std::move(backup));
  // Packing up a person's data into an archive kept for a day (an errand).
  engine::TaskKind packing;
  packing.name = media::kExportTask;
  packing.max_attempts = 1;
  packing.handler = [&app](const engine::Task& task) {
    return media::run_export_task(*app.db, *app.clock, app.config, task.id, task.owner);
  };
  k.add(std::move(packing));
  // "Record as sent": a CV and letter typeset for an application (an errand).
  engine::TaskKind sending;
  sending.name = media::kSendTask;
  sending.max_attempts = 1;
  sending.handler = [&app](const engine::Task& task) {
    return media::Sender(*app.db, *app.clock, app.config).run_task(task);
  };
  k.add(std::move(sending));
  // A recovery link asked for on the sign-in page, mailed (never retried:
  // the person asks again).
  engine::TaskKind recovery;
  recovery.name = notify::kRecoveryMailTask;
  recovery.max_attempts = 1;
  recovery.handler = [&app, http](const engine::Task& task) {
    return notify::send_recovery_mail(*app.db, *app.clock, app.config, *http, task);
  };
  k.add(std::move(recovery));
  // A person's "Send a test", "Sync now" and a copy's "Send now" (errands).
  auto tries = std::make_shared<connections::Tries>(*app.db, *app.clock, app.config, *http);
  for (const char* name :
       {connections::kTestTask, connections::kSyncTask, connections::kCopyTask}) {
    engine::TaskKind one;
    one.name = name;
    one.max_attempts = 1;
    one.handler = [tries, http](const engine::Task& task) { return tries->run(task); };
    k.add(std::move(one));
  }
  return k;
}

engine::Worker::Options worker_options(const App& app, const WorkOptions& o) {
  engine::Worker::Options w;
  w.queue = o.queue;
  w.concurrency = o.concurrency;
  w.every = std::chrono::milliseconds(static_cast<long long>(o.every_s * 1000));
  w.heartbeat_path = app.config.worker_heartbeat();
  if (app.db->dialect() == store::Dialect::postgres) {
    w.listen_url = app.config.database_url;  // NOTIFY wakes it: poll rarely
    w.idle_ceiling = std::chrono::seconds(60);
  } else {
    w.idle_ceiling = std::chrono::seconds(10);
  }
  return w;
}

bool worker_loop(App& app, const WorkOptions& o, StopSignals& signals) {
  const engine::TaskKinds kinds = task_kinds(app);
  engine::Worker worker(*app.db, *app.clock, kinds, worker_options(app, o));
  const auto unhook = signals.on_stop([&worker] { worker.stop(); });
  bool clean = worker.run();
  log::info("worker", "worker stopped");
  return clean;
}

int cmd_work(App& app, const WorkOptions& o) {
  StopSignals signals;
  if (int rc = app.open_db(); rc != 0) return rc;
  if (o.once) {
    const engine::TaskKinds kinds = task_kinds(app);
    engine::Worker worker(*app.db, *app.clock, kinds, worker_options(app, o));
    try {
      while (!signals.stopping() && worker.run_pass() > 0) {
      }
    } catch (const std::exception& e) {
      std::cerr << "peto: the worker failed: " << e.what() << "\n";
      return 1;
    }
    return 0;
  }
  if (!worker_loop(app, o, signals)) std::_Exit(0);  // handlers still running: end now
  return 0;
}

}  // namespace peto::app
