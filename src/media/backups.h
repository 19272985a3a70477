// Backup and restore of the whole instance (SPEC §6), and the scheduled
// backup that runs after the pass, outside its lease.
#pragma once

#include <vector>

#include "store/migrate.h"

namespace peto::media {

struct Backups {
  // Migration 12: backup_state, one row: the schedule's claim (last_run_at)
  // and the outcome of the last run.
  static std::vector<store::Migration> migrations();
};

}  // namespace peto::media
