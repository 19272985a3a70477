// The two backends behind Db::open. Internal to store/.
#pragma once

#include <memory>
#include <string>

#include "store/db.h"

namespace peto::store {

// path: a file path (":memory:" is not supported: peto's processes share files).
std::unique_ptr<Db> open_sqlite(const std::string& path, int pool_size);
// conninfo: a libpq URL (postgres://user:pw@host:port/db?…).
std::unique_ptr<Db> open_postgres(const std::string& conninfo, int pool_size);

}  // namespace peto::store
