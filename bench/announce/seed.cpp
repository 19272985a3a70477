// bench_announce_seed: the data of the announcement benchmark.
//
//   PETO_DATABASE_URL=… PETO_SECRET_KEY=… PETO_ALLOW_PRIVATE_DESTINATIONS=true
//     bench_announce_seed --accounts 1000 --reminders 100 --webhook http://127.0.0.1:PORT/hook
//
// Migrates the database named by the environment (as peto does), then seeds:
//   - N active accounts (inserted directly, with a password hash nobody can
//     sign in with: the benchmark never signs in);
//   - one webhook connection per account, through connections::Connections, so the
//     URL is checked and the secret sealed under PETO_SECRET_KEY exactly as
//     the web app does it (the scheduler must open it to send);
//   - M reminders per account, all due in the past (the last one 1 h ago),
//     interleaved across accounts in due order, so each 500-reminder claim of
//     the Reminders step spans 500 accounts: the step's per-owner lookups are
//     at their widest. Multi-row INSERTs, 10,000 rows per transaction.
// The database must be empty (fresh). Prints one JSON object on the last line
// of stdout: accounts, connections, reminders, seconds.
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <variant>
#include <vector>

#include "app/app.h"
#include "connections/connections.h"
#include "store/db.h"

using namespace peto;

namespace {

constexpr int kRowsPerInsert = 200;
constexpr int kRowsPerTransaction = 10'000;
constexpr const char* kReminderRow = "(?, ?, ?, ?, ?)";

int usage(const std::string& why) {
  std::cerr << "bench_announce_seed: " << why
            << "\nusage: bench_announce_seed --accounts N --reminders M --webhook URL\n";
  return 2;
}

bool positive(const std::string& s, int& out) {
  char* end = nullptr;
  long v = std::strtol(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0' || v <= 0 || v > 10'000'000) return false;
  out = static_cast<int>(v);
  return true;
}

// "(…), (…), …": `rows` copies of the tuple `one`.
std::string values_list(int rows, const std::string& one) {
  std::string all;
  for (int r = 0; r < rows; ++r) {
    if (r) all += ", ";
    all += one;
  }
  return all;
}

}  // namespace

int main(int argc, char** argv) {
  int accounts = 0, per_account = 0;
  std::string webhook;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (i + 1 >= argc) return usage("missing value after " + a);
    std::string v = argv[++i];
    if (a == "--accounts") {
      if (!positive(v, accounts)) return usage("bad --accounts " + v);
    } else if (a == "--reminders") {
      if (!positive(v, per_account)) return usage("bad --reminders " + v);
    } else if (a == "--webhook") {
      webhook = v;
    } else {
      return usage("unknown argument " + a);
    }
  }
  if (accounts == 0 || per_account == 0 || webhook.empty()) return usage("missing an argument");

  auto loaded = app::load(true);
  if (!loaded) return 2;
  app::App& app = *loaded;
  if (int rc = app.open_migrated_db(); rc != 0) return rc;
  auto started = std::chrono::steady_clock::now();
  store::Db& db = *app.db;
  auto conn = db.acquire();
  if (!conn->query("SELECT 1 FROM users LIMIT 1").empty()) {
    std::cerr << "bench_announce_seed: the database already has accounts; give it a fresh one\n";
    return 1;
  }
  const Millis now = app.clock->now_ms();

  // Accounts.
  std::vector<std::int64_t> owners;
  owners.reserve(accounts);
  store::with_write(*conn, [&](store::Conn& c) {
    for (int first = 0; first < accounts; first += kRowsPerInsert) {
      int n = std::min(kRowsPerInsert, accounts - first);
      store::Params p;
      for (int i = first; i < first + n; ++i) {
        p.insert(p.end(), {"bench-" + std::to_string(i) + "@example.com", "!bench-no-sign-in",
                           i == 0 ? 1 : 0, now, now});
      }
      auto rows = c.query(
          "INSERT INTO users (email, password_hash, is_admin, active, created_at, updated_at)"
          " VALUES " +
              values_list(n, "(?, ?, ?, 1, ?, ?)") + " RETURNING id",
          p);
      for (const auto& r : rows) owners.push_back(r.int_at(0));
    }
  });

  // One webhook connection each, the secret sealed as the web app seals it.
  connections::Connections connections(db, *app.clock, app.config);
  int made = 0;
  for (std::int64_t owner : owners) {
    auto result = connections.create(owner, "webhook", "bench receiver",
                                     {{"url", webhook}, {"secret", "bench-webhook-secret-0123"}});
    if (auto* errors = std::get_if<notify::ConfigErrors>(&result)) {
      std::cerr << "bench_announce_seed: the webhook connection was refused:";
      for (const auto& [field, message] : *errors) std::cerr << " " << field << ": " << message;
      std::cerr << " (is PETO_ALLOW_PRIVATE_DESTINATIONS=true set?)\n";
      return 1;
    }
    ++made;
  }

  // Reminders: k-th in due order belongs to owners[k % accounts]; the last
  // is due an hour ago, one second apart.
  const std::int64_t total = static_cast<std::int64_t>(accounts) * per_account;
  const Millis last_due = now - 3'600'000;
  const std::string insert_full =
      "INSERT INTO reminders (owner_id, title, due_at, created_at, updated_at) VALUES " +
      values_list(kRowsPerInsert, kReminderRow);
  std::int64_t k = 0;
  while (k < total) {
    std::int64_t tx_end = std::min<std::int64_t>(total, k + kRowsPerTransaction);
    store::with_write(*conn, [&](store::Conn& c) {
      while (k < tx_end) {
        int n = static_cast<int>(std::min<std::int64_t>(kRowsPerInsert, tx_end - k));
        store::Params p;
        p.reserve(static_cast<std::size_t>(n) * 5);
        for (int r = 0; r < n; ++r, ++k) {
          p.insert(p.end(), {owners[static_cast<std::size_t>(k % accounts)],
                             "Follow up on application " + std::to_string(k / accounts + 1),
                             last_due - (total - 1 - k) * 1000, now, now});
        }
        c.query(n == kRowsPerInsert ? insert_full
                                    : "INSERT INTO reminders (owner_id, title, due_at, created_at,"
                                      " updated_at) VALUES " +
                                          values_list(n, kReminderRow),
                p);
      }
    });
  }
  conn->query("ANALYZE");  // statistics as a database in use would have them

  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::cout << nlohmann::json{{"accounts", owners.size()},
                              {"connections", made},
                              {"reminders", total},
                              {"seconds", seconds}}
                   .dump()
            << std::endl;
  return 0;
}
