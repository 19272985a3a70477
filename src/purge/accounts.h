// Deleting an account for good: what `peto user delete`, the person's own
// "Delete my account" and the administrator's Delete button do.
//
//   auto gone = purge::delete_account(db, clock, config, id);  // nullopt: no such account
//
// In one transaction: the account's tasks (they name their owner without a
// foreign key) and the account's row, which every other table that names the
// account follows (ON DELETE CASCADE: records, timelines, documents, copies'
// rows, captures, connections, deliveries, notices, tokens, the calendar
// feed, sessions, recovery links, saved views, the trash, security events;
// the search index follows its records). The files are listed in that same
// transaction and removed once it commits: every version of every uploaded
// document, the export archives, the kept capture pages and the account's
// folder of the local-folder store. A file that cannot be removed is logged
// and left to `peto prune-media`; the account is gone either way.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/clock.h"
#include "core/config.h"
#include "store/db.h"

namespace peto::purge {

struct DeletedAccount {
  std::string email;
  std::int64_t files = 0;  // files and folders removed
};

std::optional<DeletedAccount> delete_account(store::Db& db, const Clock& clock,
                                             const Config& config, std::int64_t id);

}  // namespace peto::purge
