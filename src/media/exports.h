// Export and import of one person's data (SPEC §6): a zip of JSON and files.
#pragma once

#include <vector>

#include "store/migrate.h"

namespace peto::media {

struct ExportArchives {
  // Migration 11: export_archives, the finished archives kept for a day.
  static std::vector<store::Migration> migrations();
};

}  // namespace peto::media
