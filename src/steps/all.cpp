#include "steps/all.h"

#include "media/uploads.h"
#include "steps/backup.h"
#include "steps/closing.h"
#include "steps/copies.h"
#include "steps/deliveries.h"
#include "steps/purge.h"
#include "steps/quiet.h"
#include "steps/reminders.h"
#include "steps/scrub.h"
#include "steps/sweep.h"
#include "steps/syncs.h"
#include "steps/upkeep.h"

namespace peto::steps {

std::vector<std::unique_ptr<engine::Step>> all() {
  std::vector<std::unique_ptr<engine::Step>> list;
  list.push_back(std::make_unique<Reminders>());
  list.push_back(std::make_unique<Quiet>());
  list.push_back(std::make_unique<Closing>());
  list.push_back(std::make_unique<Copies>());
  list.push_back(std::make_unique<Deliveries>());
  list.push_back(std::make_unique<Syncs>());
  list.push_back(std::make_unique<Upkeep>());
  list.push_back(std::make_unique<Scrub>());
  list.push_back(std::make_unique<Sweep>(media::Uploads::file_columns()));
  list.push_back(std::make_unique<Purge>());
  return list;
}

std::vector<std::shared_ptr<engine::Step>> after_lease() { return {std::make_shared<Backup>()}; }

}  // namespace peto::steps
