#include "steps/all.h"

#include "media/uploads.h"
#include "steps/purge.h"
#include "steps/scrub.h"
#include "steps/sweep.h"
#include "steps/upkeep.h"

namespace peto::steps {

std::vector<std::unique_ptr<engine::Step>> all() {
  std::vector<std::unique_ptr<engine::Step>> list;
  // … reminders, quiet, closing, copies, deliveries, syncs (with their issues)
  list.push_back(std::make_unique<Upkeep>());
  list.push_back(std::make_unique<Scrub>());
  list.push_back(std::make_unique<Sweep>(media::Uploads::file_columns()));
  list.push_back(std::make_unique<Purge>());
  return list;
}

}  // namespace peto::steps
