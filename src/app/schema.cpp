// The ordered list of every module's migrations. A module that owns tables
// exposes its migrations next to its code; they are listed here, in version
// order, so one place shows how the schema grew.
#include "app/app.h"
#include "connections/connections.h"
#include "domain/accounts.h"
#include "domain/api_tokens.h"
#include "domain/auto_reminders.h"
#include "domain/captures.h"
#include "domain/insights.h"
#include "domain/kinds.h"
#include "domain/saved_views.h"
#include "domain/search.h"
#include "domain/trash.h"
#include "domain/two_factor.h"
#include "engine/lease.h"
#include "engine/queue.h"
#include "media/backups.h"
#include "media/exports.h"
#include "media/uploads.h"
#include "sso/oidc.h"
#include "store/cache.h"
#include "store/migrate.h"
#include "sync/syncs.h"

namespace peto::app {

std::vector<store::Migration> migrations() {
  std::vector<store::Migration> all;
  auto add = [&](std::vector<store::Migration> ms) {
    for (auto& m : ms) all.push_back(std::move(m));
  };
  add(store::Cache::migrations());              // 1
  add(engine::PassLease::migrations());         // 2
  add(media::Uploads::migrations());            // 3
  add(engine::Queue::migrations());             // 4
  add(domain::Accounts::migrations());          // 5
  add(domain::record_migrations());             // 6
  add(domain::ApiTokens::migrations());         // 7
  add(domain::Captures::migrations());          // 8
  add(connections::Connections::migrations());  // 9
  add(media::Uploads::document_migrations());   // 10
  add(media::ExportArchives::migrations());     // 11
  add(media::Backups::migrations());            // 12
  add(sync::Syncs::migrations());               // 13
  all.push_back(store::ids_never_reused(14));
  add(domain::Trash::migrations());              // 15
  add(domain::added_field_migrations());         // 16
  add(domain::search_migrations());              // 17
  add(domain::SavedViews::migrations());         // 18
  add(domain::auto_reminder_migrations());       // 19
  add(domain::Accounts::security_migrations());  // 20
  add(domain::TwoFactor::migrations());          // 21
  add(sso::Oidc::migrations());                  // 22
  add(domain::career_migrations());              // 23
  add(domain::letter_migrations());              // 24
  add(media::Uploads::sent_migrations());        // 25
  add(domain::insight_migrations());             // 26, 27
  return all;
}

}  // namespace peto::app
