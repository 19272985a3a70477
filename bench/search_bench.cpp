// Search over 100,000 records of one account (another account's 20,000
// beside them), written and asked in words drawn by Zipf's law from a
// vocabulary of 20,000: p50 and p99 of 1,000 queries through domain::search, and the
// same queries as the substring scan the record lists do for ?q= (LIKE over
// each table's words), the peer in the same run. The goal: p99 ≤ 10 ms on
// SQLite. Three runs; the figures are their medians.
//
//   search_bench [--quick] [--out bench/results/search.json]   SQLite in a temp folder
//   PETO_BENCH_POSTGRES_URL=… search_bench                      also PostgreSQL
#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>

#include "app/app.h"
#include "core/log.h"
#include "core/utf8.h"
#include "domain/search.h"
#include "store/migrate.h"

using namespace peto;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Words a job search is written in: the common ones first, then a long tail
// of made-up words (names of companies, places, tools), drawn with Zipf's law
// as the words of real text are: a few in most records, most in a few.
const std::vector<std::string> kCommon = {
    "engineer",   "developer",  "data",      "platform",   "backend",     "frontend",  "senior",
    "junior",     "staff",      "principal", "manager",    "analyst",     "scientist", "designer",
    "product",    "security",   "cloud",     "devops",     "reliability", "site",      "mobile",
    "embedded",   "firmware",   "research",  "machine",    "learning",    "payments",  "search",
    "berlin",     "lisbon",     "porto",     "madrid",     "paris",       "amsterdam", "stockholm",
    "remote",     "hybrid",     "kafka",     "postgres",   "rust",        "golang",    "python",
    "kubernetes", "terraform",  "react",     "typescript", "müller",      "sørensen",  "côrte",
    "logistik",   "analytique", "digital",   "systems",    "robotics",    "health",    "energy",
    "bank",       "insurance",  "retail",    "travel",     "games",       "music",     "maps"};

struct Vocabulary {
  std::vector<std::string> words;
  std::discrete_distribution<std::size_t> zipf;

  explicit Vocabulary(std::size_t size) {
    static const std::vector<std::string> syllables = {
        "ka",  "lo", "mi",  "ten", "dra", "vo", "sen", "ri",    "ba", "tor", "nu",  "el",
        "qua", "zi", "mar", "fe",  "gus", "ho", "lin", "ström", "é",  "pa",  "dex", "ny"};
    words = kCommon;
    std::mt19937 rng(7);
    std::uniform_int_distribution<std::size_t> syl(0, syllables.size() - 1);
    std::uniform_int_distribution<int> len(2, 4);
    while (words.size() < size) {
      std::string w;
      for (int i = len(rng); i > 0; --i) w += syllables[syl(rng)];
      words.push_back(w);
    }
    std::vector<double> weights;
    for (std::size_t i = 0; i < words.size(); ++i)
      weights.push_back(1.0 / static_cast<double>(i + 1));
    zipf = std::discrete_distribution<std::size_t>(weights.begin(), weights.end());
  }

  std::string phrase(std::mt19937& rng, int n) {
    std::string s;
    for (int i = 0; i < n; ++i) s += (i ? " " : "") + words[zipf(rng)];
    return s;
  }
};

Vocabulary& vocabulary() {
  static Vocabulary v(20'000);
  return v;
}

struct Instance {
  fs::path dir;
  std::string base_url, schema;
  std::unique_ptr<store::Db> db;

  explicit Instance(const std::string& pg_url) {
    dir = fs::temp_directory_path() / ("peto-search-bench-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    std::string url = "sqlite://" + (dir / "peto.db").string();
    if (!pg_url.empty()) {
      base_url = pg_url;
      schema = "bench_search_" + std::to_string(::getpid());
      store::Db::open(base_url, 1)->query("CREATE SCHEMA " + schema);
      url = base_url + (base_url.find('?') == std::string::npos ? "?" : "&") +
            "options=-csearch_path%3D" + schema;
    }
    db = store::Db::open(url, 2);
    if (!store::Migrator(*db, app::migrations()).apply())
      throw std::runtime_error("migrate failed");
  }
  ~Instance() {
    db.reset();
    if (!schema.empty()) store::Db::open(base_url, 1)->query("DROP SCHEMA " + schema + " CASCADE");
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

std::string phrase(std::mt19937& rng, int words) { return vocabulary().phrase(rng, words); }

// `n` records for `owner`: a tenth companies, 40 % listings, a fifth each
// contacts and notes, a tenth reminders. Every write goes through the
// triggers that keep the index, as peto's own writes do.
void seed(store::Db& db, std::int64_t owner, int n, std::mt19937& rng) {
  store::with_write(*db.acquire(), [&](store::Conn& c) {
    std::vector<std::int64_t> companies;
    for (int i = 0; i < n / 10; ++i) {
      c.query(
          "INSERT INTO companies (owner_id, name, name_key, location, created_at, updated_at)"
          " VALUES (?, ?, ?, ?, 0, 0)",
          {owner, phrase(rng, 2) + " " + std::to_string(i), "k" + std::to_string(i),
           phrase(rng, 1)});
      companies.push_back(c.query("SELECT MAX(id) FROM companies")[0].int_at(0));
    }
    std::uniform_int_distribution<std::size_t> company(0, companies.size() - 1);
    for (int i = 0; i < n * 4 / 10; ++i)
      c.query(
          "INSERT INTO listings (owner_id, role, company_id, location, state, description,"
          " created_at, updated_at) VALUES (?, ?, ?, ?, 'new', ?, 0, 0)",
          {owner, phrase(rng, 2), companies[company(rng)], phrase(rng, 1), phrase(rng, 40)});
    for (int i = 0; i < n / 5; ++i)
      c.query(
          "INSERT INTO contacts (owner_id, name, role, notes, created_at, updated_at)"
          " VALUES (?, ?, ?, ?, 0, 0)",
          {owner, phrase(rng, 2), phrase(rng, 2), phrase(rng, 10)});
    for (int i = 0; i < n / 5; ++i)
      c.query("INSERT INTO notes (owner_id, body, created_at, updated_at) VALUES (?, ?, 0, 0)",
              {owner, phrase(rng, 30)});
    for (int i = 0; i < n / 10; ++i)
      c.query(
          "INSERT INTO reminders (owner_id, title, created_at, updated_at)"
          " VALUES (?, ?, 0, 0)",
          {owner, phrase(rng, 4)});
  });
}

// The peer: what a record list's ?q= does, a case-insensitive substring over
// each table's words, every word needed, 100 rows at most in all.
std::size_t substring_scan(store::Db& db, std::int64_t owner, const std::string& q) {
  std::vector<std::string> words;
  for (std::size_t at = 0; at < q.size();) {
    auto end = q.find(' ', at);
    if (end == std::string::npos) end = q.size();
    if (end > at) words.push_back("%" + q.substr(at, end - at) + "%");
    at = end + 1;
  }
  const std::vector<std::pair<std::string, std::string>> tables = {
      {"companies", "COALESCE(name,'') || ' ' || COALESCE(location,'')"},
      {"listings",
       "COALESCE(role,'') || ' ' || COALESCE(location,'') || ' ' ||"
       " COALESCE(description,'')"},
      {"contacts", "COALESCE(name,'') || ' ' || COALESCE(role,'') || ' ' || COALESCE(notes,'')"},
      {"notes", "body"},
      {"reminders", "title"}};
  std::size_t found = 0;
  for (const auto& [table, text] : tables) {
    std::string sql = "SELECT id FROM " + table + " WHERE owner_id = ?";
    store::Params params{owner};
    for (const auto& w : words) {
      sql += " AND LOWER(" + text + ") LIKE LOWER(?)";
      params.emplace_back(w);
    }
    sql += " LIMIT " + std::to_string(100 - std::min<std::size_t>(found, 99));
    found += db.query(sql, params).size();
    if (found >= 100) break;
  }
  return found;
}

struct Percentiles {
  double p50 = 0, p99 = 0;
};

template <class Fn>
Percentiles timed(const std::vector<std::string>& queries, Fn fn) {
  std::vector<double> ms;
  ms.reserve(queries.size());
  for (const auto& q : queries) {
    auto start = std::chrono::steady_clock::now();
    fn(q);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                     .count());
  }
  std::sort(ms.begin(), ms.end());
  auto at = [&](double p) { return ms[static_cast<std::size_t>(p * (ms.size() - 1))]; };
  return {at(0.50), at(0.99)};
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

json run_backend(const std::string& name, const std::string& pg_url, int records, int queries_n,
                 int runs) {
  Instance inst(pg_url);
  std::mt19937 rng(42);
  const auto owner = inst.db
                         ->query(
                             "INSERT INTO users (email, password_hash, created_at, updated_at)"
                             " VALUES ('a@example.com', '', 0, 0) RETURNING id")[0]
                         .int_at(0);
  const auto other = inst.db
                         ->query(
                             "INSERT INTO users (email, password_hash, created_at, updated_at)"
                             " VALUES ('b@example.com', '', 0, 0) RETURNING id")[0]
                         .int_at(0);
  auto seeding = std::chrono::steady_clock::now();
  seed(*inst.db, owner, records, rng);
  seed(*inst.db, other, records / 5, rng);
  const double seed_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - seeding).count();
  if (!pg_url.empty()) inst.db->query("ANALYZE");
  // One or two words; one query in three ends on the start of a word.
  std::vector<std::string> queries;
  std::uniform_int_distribution<int> two(1, 2), cut(0, 2);
  for (int i = 0; i < queries_n; ++i) {
    std::string q = phrase(rng, two(rng));
    if (cut(rng) == 0 && q.size() > 4) q.resize(utf8_prefix(q, q.size() - 2));
    queries.push_back(q);
  }
  std::vector<double> p50, p99, peer50, peer99;
  std::size_t hits = 0;
  for (int r = 0; r < runs; ++r) {
    auto s = timed(queries, [&](const std::string& q) {
      hits += domain::search(*inst.db, owner, q, {}).size();
    });
    auto peer = timed(queries, [&](const std::string& q) { substring_scan(*inst.db, owner, q); });
    p50.push_back(s.p50);
    p99.push_back(s.p99);
    peer50.push_back(peer.p50);
    peer99.push_back(peer.p99);
    std::cerr << name << " run " << r + 1 << ": search p50 " << s.p50 << " ms, p99 " << s.p99
              << " ms; substring scan p50 " << peer.p50 << " ms, p99 " << peer.p99 << " ms\n";
  }
  json out = {{"backend", name},
              {"records", records},
              {"other_account_records", records / 5},
              {"queries", queries_n},
              {"runs", runs},
              {"seed_seconds", seed_s},
              {"hits_per_query", static_cast<double>(hits) / runs / queries_n},
              {"search_p50_ms", median(p50)},
              {"search_p99_ms", median(p99)},
              {"substring_p50_ms", median(peer50)},
              {"substring_p99_ms", median(peer99)}};
  out["p99_ratio_substring_over_search"] = median(peer99) / median(p99);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  log::configure(log::Level::error, log::Format::json);
  bool quick = false;
  std::string out_path = "bench/results/search.json";
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) quick = true;
    if (std::strcmp(argv[i], "--out") == 0 && i + 1 < argc) out_path = argv[++i];
  }
  const int records = quick ? 10'000 : 100'000;
  const int queries = quick ? 200 : 1'000;
  json results = json::array();
  results.push_back(run_backend("sqlite", "", records, queries, 3));
  if (const char* pg = std::getenv("PETO_BENCH_POSTGRES_URL"); pg != nullptr && *pg != '\0')
    results.push_back(run_backend("postgres", pg, records, queries, 3));
  json doc = {{"benchmark", "search"}, {"quick", quick}, {"results", results}};
  std::ofstream(out_path) << doc.dump(2) << "\n";
  std::cout << doc.dump(2) << "\n";
  return 0;
}
