// bench_pass_soak: the scheduler's soak. One process, one real
// database, the real engine::Scheduler with steps::all(), and a FakeClock
// moved one minute forward before every pass, for --passes passes (10,000 =
// about a week of minutes). The resident memory (VmRSS) and the open file
// descriptors of this process are sampled every --sample-every passes.
//
//   bench_pass_soak --backend sqlite|postgres [--passes N] [--sample-every N]
//                   [--warmup N] [--accounts N] [--sqlite-cache-pages N]
//
// Each sample has VmRSS, the open fds and glibc's heap in use (mallinfo2's
// uordblks: live allocations, apart from the allocator's free pages).
// --sqlite-cache-pages sets PRAGMA cache_size on every pooled SQLite
// connection, to tell SQLite's page cache apart from other growth.
//
// PostgreSQL: PETO_TEST_POSTGRES_URL names the server; the run gets a schema
// of its own there, dropped afterwards. SQLite: a file in a temp folder.
//
// The data: --accounts accounts (default 3), each filled by peto's demo data
// (app::load_demo) dated from the fake clock's start, so its reminders,
// closing dates and quiet applications fall due along the way, and each with
// a webhook connection to a receiver in this process (a loopback HTTP server
// answering 204), so every announcement is also delivered over HTTP. Every
// simulated hour (60 passes) each account also gets two reminders due within
// the hour and one listing closing in two days, so that the reminders and
// closing steps have work all through the run; reminders announced more than
// a day ago, the listings it added whose date has passed, and inbox notices
// and sent deliveries older than two days are deleted then, so that the data stays about the
// same size (its counts at the start and at the end are printed).
//
// Prints one JSON object (the result) on standard output and a summary line
// on standard error. Exit 1 when a pass did not run, when VmRSS at the end is
// more than 10 % above VmRSS after --warmup passes (default 1,000), when the
// open fds grew after warm-up by more than 2, or when the receiver's count
// differs from the deliveries step's sent count.
#include <arpa/inet.h>
#include <malloc.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <thread>

#include "app/app.h"
#include "connections/connections.h"
#include "core/clock.h"
#include "core/log.h"
#include "domain/accounts.h"
#include "domain/kinds.h"
#include "domain/records.h"
#include "engine/pass.h"
#include "steps/all.h"
#include "store/migrate.h"

using namespace peto;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr std::int64_t kMinute = 60'000;
constexpr std::int64_t kHour = 60 * kMinute;
constexpr std::int64_t kDay = 24 * kHour;
constexpr double kRssMarginPct = 10.0;
constexpr std::int64_t kFdMargin = 2;

std::int64_t rss_kib() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stoll(line.substr(6));
  return -1;
}

std::int64_t open_fds() {
  std::int64_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator("/proc/self/fd")) ++n;
  return n - 1;  // the iterator's own
}

std::string date_of(Millis ms) { return format_time_s(ms).substr(0, 10); }

// The webhook receiver: a loopback HTTP server in a thread of this process
// that reads each request whole and answers 204, one request a connection.
class Receiver {
 public:
  Receiver() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
        ::listen(fd_, 64) != 0 || ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
      throw std::runtime_error("the webhook receiver could not listen");
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~Receiver() {
    stop_ = true;
    thread_.join();
    ::close(fd_);
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/hook"; }
  std::int64_t received() const { return received_.load(); }

 private:
  void serve() {
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) continue;
      timeval tv{5, 0};
      ::setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
      std::string in;
      char buf[8192];
      std::size_t want = std::string::npos;
      while (want == std::string::npos || in.size() < want) {
        ssize_t n = ::recv(c, buf, sizeof buf, 0);
        if (n <= 0) break;
        in.append(buf, static_cast<std::size_t>(n));
        auto end = in.find("\r\n\r\n");
        if (want == std::string::npos && end != std::string::npos) {
          std::size_t length = 0;
          std::string head = in.substr(0, end);
          for (auto& ch : head)
            ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
          if (auto at = head.find("content-length:"); at != std::string::npos)
            length = std::stoul(head.substr(at + 15));
          want = end + 4 + length;
        }
      }
      if (want != std::string::npos && in.size() >= want) {
        ++received_;
        static const std::string answer =
            "HTTP/1.1 204 No Content\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
        ::send(c, answer.data(), answer.size(), MSG_NOSIGNAL);
      }
      ::close(c);
    }
  }

  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<std::int64_t> received_{0};
  std::thread thread_;
};

struct Options {
  std::string backend;
  int passes = 10'000;
  int sample_every = 500;
  int warmup = 1'000;
  int accounts = 3;
  int sqlite_cache_pages = 0;  // 0: SQLite's default (2,000 KiB a connection)
};

int usage(const std::string& why) {
  std::cerr << "bench_pass_soak: " << why
            << "\nusage: bench_pass_soak --backend sqlite|postgres [--passes N] "
               "[--sample-every N] [--warmup N] [--accounts N]\n";
  return 2;
}

class Run {
 public:
  Run(const Options& o, const std::string& pg_url) : o_(o), clock_(start_ms()) {
    dir_ = fs::temp_directory_path() / ("peto-pass-soak-" + std::to_string(::getpid()));
    fs::create_directories(dir_ / "media");
    std::string url = "sqlite://" + (dir_ / "peto.db").string();
    if (o.backend == "postgres") {
      base_url_ = pg_url;
      schema_ = "pass_soak_" + std::to_string(::getpid());
      store::Db::open(base_url_, 1)->query("CREATE SCHEMA " + schema_);
      url = base_url_ + (base_url_.find('?') == std::string::npos ? "?" : "&") +
            "options=-csearch_path%3D" + schema_;
    }
    db_ = store::Db::open(url, 4);
    if (o.sqlite_cache_pages > 0 && o.backend == "sqlite") {
      // Every connection of the pool at once, so each gets the setting.
      std::vector<store::Lease> all;
      for (int i = 0; i < 4; ++i) all.push_back(db_->acquire());
      for (auto& c : all)
        c->run_script("PRAGMA cache_size = " + std::to_string(o.sqlite_cache_pages) + ";");
    }
    if (!store::Migrator(*db_, app::migrations()).apply())
      throw std::runtime_error("migrate failed");
    config_.data_dir = dir_.string();
    config_.allow_private_destinations = true;  // the receiver is on 127.0.0.1
    domain::Accounts accounts(*db_, clock_);
    connections::Connections connections(*db_, clock_, config_);
    for (int i = 1; i <= o.accounts; ++i) {
      auto made =
          accounts.create("soak" + std::to_string(i) + "@example.com", "soak password 1234", false);
      auto* account = std::get_if<domain::Account>(&made);
      if (account == nullptr) throw std::runtime_error("could not create an account");
      owners_.push_back(account->id);
      app::load_demo(*db_, clock_, account->id);
      auto hook =
          connections.create(account->id, "webhook", "soak receiver",
                             {{"url", receiver_.url()}, {"secret", "soak-webhook-secret-0123"}});
      if (!std::holds_alternative<connections::Connection>(hook))
        throw std::runtime_error("the webhook connection was refused");
    }
  }

  ~Run() {
    db_.reset();
    try {
      if (!schema_.empty())
        store::Db::open(base_url_, 1)->query("DROP SCHEMA " + schema_ + " CASCADE");
    } catch (const std::exception& e) {
      std::cerr << "bench_pass_soak: could not drop schema " << schema_ << ": " << e.what() << "\n";
    }
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  json counts() {
    json c;
    for (const char* t :
         {"reminders", "listings", "applications", "inbox_notices", "deliveries", "cache"})
      c[t] = db_->query(std::string("SELECT COUNT(*) FROM ") + t)[0].int_at(0);
    return c;
  }

  // Each simulated hour: new work for the steps, and the old removed.
  void churn() {
    const Millis now = clock_.now_ms();
    domain::Records records(*db_, clock_);
    const auto& reminders = domain::kind("reminders");
    const auto& listings = domain::kind("listings");
    for (auto owner : owners_) {
      for (int k = 0; k < 2; ++k) {
        domain::Input in;
        in.from_form = false;
        in.values = {{"title", "Soak reminder " + std::to_string(++made_)},
                     {"due_at", now + static_cast<Millis>(rng_() % 60) * kMinute}};
        check(records.create(owner, reminders, in), "reminder");
      }
      auto company = db_->query("SELECT MIN(id) FROM companies WHERE owner_id = ?", {owner});
      domain::Input in;
      in.from_form = false;
      in.values = {{"role", "Soak listing " + std::to_string(++made_)},
                   {"company_id", company[0].int_at(0)},
                   {"closes_on", date_of(now + 2 * kDay)}};
      check(records.create(owner, listings, in), "listing");
    }
    db_->query("DELETE FROM reminders WHERE notified_at IS NOT NULL AND notified_at < ?",
               {now - kDay});
    db_->query("DELETE FROM listings WHERE role LIKE 'Soak listing %' AND closes_on < ?",
               {date_of(now)});
    db_->query("DELETE FROM inbox_notices WHERE created_at < ?", {now - 2 * kDay});
    db_->query("DELETE FROM deliveries WHERE status = 'sent' AND sent_at < ?", {now - 2 * kDay});
  }

  json go() {
    engine::Scheduler::Options opts;
    opts.every = std::chrono::seconds(60);
    engine::Scheduler scheduler(*db_, clock_, config_, opts, steps::all());
    json start_counts = counts();
    json samples = json::array();
    std::map<std::string, std::int64_t> totals;
    double pass_ms = 0;
    int not_ran = 0;
    std::int64_t warm_rss = -1, warm_fds = -1;
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 1; i <= o_.passes; ++i) {
      clock_.advance(std::chrono::minutes(1));
      if (i % 60 == 1) churn();
      auto before = std::chrono::steady_clock::now();
      auto report = scheduler.run_pass();
      pass_ms +=
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - before)
              .count();
      if (report.outcome != engine::PassReport::Outcome::ran) ++not_ran;
      for (const auto& s : report.steps)
        for (const auto& [k, v] : s.counts) totals[s.id + "." + k] += v;
      if (i % o_.sample_every == 0 || i == o_.passes) {
        auto rss = rss_kib();
        auto fds = open_fds();
        // The bytes malloc has handed out and not had back (glibc), beside
        // RSS: live allocations, apart from the allocator's free pages.
        samples.push_back({{"pass", i},
                           {"rss_kib", rss},
                           {"fds", fds},
                           {"heap_in_use_kib", mallinfo2().uordblks / 1024}});
        if (i >= o_.warmup && warm_rss < 0) {
          warm_rss = rss;
          warm_fds = fds;
        }
      }
    }
    double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const json& last = samples.back();
    std::int64_t end_rss = last["rss_kib"], end_fds = last["fds"];
    if (warm_rss < 0) warm_rss = end_rss, warm_fds = end_fds;
    double growth_pct =
        100.0 * static_cast<double>(end_rss - warm_rss) / static_cast<double>(warm_rss);
    json reasons = json::array();
    if (not_ran > 0) reasons.push_back(std::to_string(not_ran) + " passes did not run");
    if (growth_pct > kRssMarginPct)
      reasons.push_back("RSS grew by " + std::to_string(growth_pct) + " % after warm-up");
    std::int64_t sent = totals.count("deliveries.sent") ? totals["deliveries.sent"] : 0;
    if (sent != receiver_.received())
      reasons.push_back("deliveries sent " + std::to_string(sent) + " but the receiver answered " +
                        std::to_string(receiver_.received()));
    if (end_fds - warm_fds > kFdMargin)
      reasons.push_back("open fds grew by " + std::to_string(end_fds - warm_fds));
    std::int64_t max_rss = 0;
    for (const auto& s : samples) max_rss = std::max<std::int64_t>(max_rss, s["rss_kib"]);
    return {{"backend", o_.backend},
            {"passes", o_.passes},
            {"simulated_minutes_per_pass", 1},
            {"accounts", o_.accounts},
            {"wall_s", wall_s},
            {"passes_per_s", o_.passes / wall_s},
            {"pass_ms_mean", pass_ms / o_.passes},
            {"passes_not_ran", not_ran},
            {"work_done", totals},
            {"webhooks_received", receiver_.received()},
            {"rows_start", start_counts},
            {"rows_end", counts()},
            {"warmup_passes", o_.warmup},
            {"rss_kib",
             {{"after_warmup", warm_rss},
              {"end", end_rss},
              {"growth", end_rss - warm_rss},
              {"growth_pct", growth_pct},
              {"max", max_rss}}},
            {"fds", {{"after_warmup", warm_fds}, {"end", end_fds}}},
            {"samples", samples},
            {"verdict", reasons.empty() ? "pass" : "fail"},
            {"reasons", reasons}};
  }

 private:
  static Millis start_ms() {
    // The real now, on a whole minute: the demo data is dated from it.
    return system_clock().now_ms() / kMinute * kMinute;
  }
  static void check(const domain::Written& w, const char* what) {
    if (!std::holds_alternative<domain::Record>(w))
      throw std::runtime_error(std::string("could not add a ") + what);
  }

  Options o_;
  Receiver receiver_;
  FakeClock clock_;
  fs::path dir_;
  std::string base_url_, schema_;
  std::unique_ptr<store::Db> db_;
  Config config_;
  std::vector<std::int64_t> owners_;
  std::mt19937 rng_{20261203};
  std::int64_t made_ = 0;
};

bool read_int(const char* text, int& out) {
  try {
    std::size_t used = 0;
    long v = std::stol(text, &used);
    if (used != std::string(text).size() || v < 1 || v > 10'000'000) return false;
    out = static_cast<int>(v);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (i + 1 >= argc) return usage("missing the value of " + a);
    const char* v = argv[++i];
    if (a == "--backend") {
      o.backend = v;
    } else if (a == "--passes" || a == "--sample-every" || a == "--warmup" || a == "--accounts" ||
               a == "--sqlite-cache-pages") {
      int& field = a == "--passes"         ? o.passes
                   : a == "--sample-every" ? o.sample_every
                   : a == "--warmup"       ? o.warmup
                   : a == "--accounts"     ? o.accounts
                                           : o.sqlite_cache_pages;
      if (!read_int(v, field)) return usage("bad " + a + " '" + v + "'");
    } else {
      return usage("unknown argument " + a);
    }
  }
  if (o.backend != "sqlite" && o.backend != "postgres") return usage("give --backend");
  const char* pg = std::getenv("PETO_TEST_POSTGRES_URL");
  if (o.backend == "postgres" && (pg == nullptr || *pg == '\0'))
    return usage("--backend postgres needs PETO_TEST_POSTGRES_URL");

  log::configure(log::Level::error, log::Format::text);
  domain::set_password_cost(domain::PasswordCost::test);
  try {
    Run run(o, pg ? pg : "");
    json result = run.go();
    std::cout << result.dump() << std::endl;
    std::cerr << "bench_pass_soak: " << o.backend << ": " << o.passes << " passes, "
              << result["passes_per_s"].get<double>() << " passes/s; RSS after " << o.warmup
              << " passes " << result["rss_kib"]["after_warmup"] << " KiB, at the end "
              << result["rss_kib"]["end"] << " KiB ("
              << result["rss_kib"]["growth_pct"].get<double>()
              << " %): " << result["verdict"].get<std::string>() << "\n";
    return result["verdict"] == "pass" ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "bench_pass_soak: " << e.what() << "\n";
    return 1;
  }
}
