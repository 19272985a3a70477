#include "media/backups.h"

namespace peto::media {

std::vector<store::Migration> Backups::migrations() {
  return {{12, "backup state",
           "CREATE TABLE backup_state (id INTEGER PRIMARY KEY CHECK (id = 1),"
           " last_run_at BIGINT, last_run_ok INTEGER, last_ok_at BIGINT,"
           " last_error TEXT NOT NULL DEFAULT '', failures INTEGER NOT NULL DEFAULT 0);"
           "INSERT INTO backup_state (id) VALUES (1);",
           ""}};
}

}  // namespace peto::media
