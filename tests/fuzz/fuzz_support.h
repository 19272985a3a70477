// What the fuzz targets that need a database share: one migrated SQLite file
// in a temporary folder, made once per process and removed at exit, with a
// FakeClock, cheap password hashing and the logs silenced (a request that
// fails is logged; thousands of those a second would drown the fuzzer's own
// output).
//
//   auto& w = peto::fuzz::world();
//   std::int64_t owner = w.new_account();
//
// The fuzzer calls a target from one thread: no locking.
#pragma once

#include <stdlib.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <variant>

#include "app/app.h"
#include "core/clock.h"
#include "core/log.h"
#include "domain/accounts.h"
#include "store/db.h"
#include "store/migrate.h"

namespace peto::fuzz {

// A broken promise of peto's own: the fuzzer reports it as a crash with
// this input.
[[noreturn]] inline void broken(const char* what) {
  std::fputs(what, stderr);
  std::fputc('\n', stderr);
  std::abort();
}

struct World {
  World() {
    log::configure(log::Level::off, log::Format::text);
    domain::set_password_cost(domain::PasswordCost::test);
    std::string pattern = (std::filesystem::temp_directory_path() / "peto-fuzz-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) broken("cannot make a temporary folder");
    dir = pattern;
    db = store::Db::open("sqlite://" + (dir / "peto.db").string(), 2);
    if (!store::Migrator(*db, app::migrations()).apply()) broken("the migrations failed");
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(instance()->dir, ec);
    });
  }

  static World*& instance() {
    static World* w = nullptr;
    return w;
  }

  // A fresh account (each a new e-mail address); its id.
  std::int64_t new_account() {
    domain::Accounts accounts(*db, clock);
    auto made = accounts.create("fuzz" + std::to_string(++accounts_made) + "@example.com",
                                "correct horse battery", false);
    if (!std::holds_alternative<domain::Account>(made)) broken("cannot make an account");
    return std::get<domain::Account>(made).id;
  }

  std::filesystem::path dir;
  FakeClock clock;
  std::unique_ptr<store::Db> db;
  std::int64_t accounts_made = 0;
};

inline World& world() {
  World*& w = World::instance();
  if (w == nullptr) w = new World();  // lives until exit; the atexit hook removes its folder
  return *w;
}

}  // namespace peto::fuzz
