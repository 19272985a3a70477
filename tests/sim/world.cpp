// The simulation's world: what one run seeds, the receivers it talks to (with
// their faults), and the invariants checked at its end.
//
// Seeded, across `accounts` owners with one webhook each (every event on):
//   - reminders due from an hour ago to halfway through the fault phase;
//   - applications applied for 30 days ago, quiet since (the default 21 days);
//   - listings closing tomorrow (the default notice is 3 days);
//   - documents with a copy planned to a WebDAV store;
//   - tasks with an outside effect (a request to the driver);
// and, for owners of their own, CalDAV connections (15 minutes) with three
// reminders each, due in a month.
//
// Faults while they are on: the webhook receiver holds 1 in 200 requests past
// the 10 s timeout (it has accepted them: the repeat that follows is a raw
// repeat), answers 5 % with 500 and 3 % with 429; the store holds 5 % of the
// uploads for 3–7 s and answers 5 % with 503.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>

#include "connections/connections.h"
#include "core/token.h"
#include "engine/queue.h"
#include "formats/ical.h"
#include "media/copies.h"
#include "notify/notification.h"
#include "tests/sim/sim.h"
#include "tests/support/dav_server.h"
#include "tests/support/store_servers.h"
#include "tests/support/web_server.h"

namespace peto::sim {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kHookSecret = "simulation-webhook-secret-0123456789";
constexpr Millis kMinute = 60'000;
constexpr Millis kDay = 24 * 60 * kMinute;
constexpr int kSyncReminders = 3;
constexpr Millis kTaskLeaseMs = 300'000;  // engine::Worker::Options::lease

struct HookReceipt {
  std::string path;  // "/hook/<account>": which connection
  std::string delivery;
  std::string key;
  int status = 0;
  bool held = false;  // accepted after the sender stopped waiting
  Millis at = 0;      // simulated
};

struct TaskReceipt {
  std::int64_t task = 0;
  int attempt = 0;
  int pid = 0;
  Millis at = 0;  // simulated
};

// Counts the requests in flight per name; remembers when two were at once.
class InFlight {
 public:
  // Enters, waits `hold`, leaves; returns false when another was in flight.
  bool pass(const std::string& name, std::chrono::milliseconds hold) {
    bool alone;
    {
      std::lock_guard lock(mutex_);
      alone = ++inside_[name] == 1;
      if (!alone) ++overlaps_[name];
    }
    std::this_thread::sleep_for(hold);
    std::lock_guard lock(mutex_);
    --inside_[name];
    return alone;
  }
  std::map<std::string, int> overlaps() const {
    std::lock_guard lock(mutex_);
    return overlaps_;
  }

 private:
  mutable std::mutex mutex_;
  std::map<std::string, int> inside_;
  std::map<std::string, int> overlaps_;
};

std::string collection(int i) { return "/dav/s" + std::to_string(i) + "/"; }

}  // namespace

struct World::Parts {
  Parts(const ScaledClock& c, const Sizes& s, unsigned seed) : clock(c), sizes(s), random(seed) {
    std::vector<std::string> collections;
    for (int i = 0; i < sizes.syncs; ++i) collections.push_back(collection(i));
    dav = std::make_unique<testing::DavServer>(collections);
  }

  // A number in [0, 1000), from the run's seed.
  int permille() {
    std::lock_guard lock(mutex);
    return static_cast<int>(random() % 1000);
  }

  web::Response hook(web::Request& r) {
    HookReceipt got;
    got.path = r.path;
    if (auto* d = r.header("Peto-Delivery")) got.delivery = *d;
    if (auto n = notify::from_payload(r.body)) got.key = n->key;
    // A held request holds up its whole batch of deliveries: rarer than the others.
    const int roll = faults_on ? permille() : 1000;
    const bool held = roll < 5, failed = roll >= 5 && roll < 55, busy = roll >= 55 && roll < 85;
    if (held) std::this_thread::sleep_for(std::chrono::seconds(11));  // the sender waits 10 s
    got.status = failed ? 500 : busy ? 429 : 204;
    got.held = held;
    got.at = clock.now_ms();
    std::lock_guard lock(mutex);
    faults.hook_timeouts += held;
    faults.hook_500 += failed;
    faults.hook_429 += busy;
    hooks.push_back(got);
    auto answer = web::Response::text(got.status, "");
    if (got.status == 429) answer.set_header("Retry-After", "30");
    return answer;
  }

  web::Response effect(web::Request& r) {
    auto number = [&](const char* name) {
      auto v = r.query_param(name);
      return v ? std::strtoll(v->c_str(), nullptr, 10) : 0;
    };
    std::lock_guard lock(mutex);
    tasks.push_back({number("task"), static_cast<int>(number("attempt")),
                     static_cast<int>(number("pid")), clock.now_ms()});
    return web::Response::text(204, "");
  }

  // A PUT to the store: held for a while or refused at times; two uploads of
  // one file at once are counted by `uploads`.
  int store_put(const testing::StoreRequest& put) {
    const int roll = faults_on ? permille() / 10 : 100;
    if (roll < 5) {
      {
        std::lock_guard lock(mutex);
        ++faults.store_hangs;
      }
      uploads.pass(put.path, std::chrono::milliseconds(3000 + 1000 * (roll % 6)));
      return 0;
    }
    uploads.pass(put.path, std::chrono::milliseconds(20));
    if (roll < 10) {
      std::lock_guard lock(mutex);
      ++faults.store_503;
      return 503;
    }
    return 0;
  }

  const ScaledClock& clock;
  Sizes sizes;
  std::mutex mutex;
  std::mt19937 random;
  std::atomic<bool> faults_on{false};
  Faults faults;
  std::vector<HookReceipt> hooks;
  std::vector<TaskReceipt> tasks;
  InFlight uploads;  // per stored file
  InFlight syncs;    // per CalDAV collection

  web::Router router;
  std::unique_ptr<testing::WebServer> server;
  testing::StoreServer store;
  std::unique_ptr<testing::DavServer> dav;

  // What was seeded, to check against.
  std::vector<std::string> reminder_keys;
  std::vector<std::int64_t> quiet_ids, closing_ids, upload_ids, task_ids;
  std::vector<std::int64_t> sync_connections, sync_owners;
};

World::World(const ScaledClock& clock, const Sizes& sizes, unsigned seed)
    : parts_(std::make_unique<Parts>(clock, sizes, seed)) {
  Parts& p = *parts_;
  p.router.add("POST", "/hook/{account}", [&p](web::Request& r) { return p.hook(r); });
  p.router.add("POST", "/task", [&p](web::Request& r) { return p.effect(r); });
  web::Server::Options o;
  o.threads = 48;  // requests held for 11 s must not hold up the others
  o.stop_grace = std::chrono::seconds(0);
  p.server = std::make_unique<testing::WebServer>(p.router, o);
  p.store.expect_authorization("Basic YWRhOnMzY3IzdA==");  // ada:s3cr3t
  p.store.on_put([&p](const testing::StoreRequest& put) { return p.store_put(put); });
  p.dav->expect_basic("ada", "s3cr3t");
  // A run of one connection asks one request at a time; a second request on
  // the same collection while one is in flight is a second run at once.
  p.dav->on_arrival([&p](const testing::DavRequest& r) {
    std::string c = r.path.substr(0, r.path.find('/', std::string("/dav/s").size()) + 1);
    p.syncs.pass(c, std::chrono::milliseconds(15));
  });
}

World::~World() = default;

std::string World::task_url() const {
  return "http://127.0.0.1:" + std::to_string(parts_->server->port()) + "/task";
}

void World::set_faults(bool on) { parts_->faults_on = on; }

const Faults& World::faults() const { return parts_->faults; }

void World::seed(store::Db& db, const Config& config, Millis falling_due_for) {
  Parts& p = *parts_;
  const Sizes& s = p.sizes;
  const Millis now = p.clock.now_ms();
  std::mt19937 random(7);
  connections::Connections connections(db, p.clock, config);
  auto must = [](auto made, const std::string& what) {
    if (auto* e = std::get_if<notify::ConfigErrors>(&made))
      throw std::runtime_error(what + " refused: " + e->begin()->first + " " + e->begin()->second);
    return std::get<connections::Connection>(made).id;
  };
  auto account = [&](const std::string& email) {
    return db
        .query(
            "INSERT INTO users (email, password_hash, active, created_at, updated_at)"
            " VALUES (?, '!no-sign-in', 1, ?, ?) RETURNING id",
            {email, now, now})[0]
        .int_at(0);
  };

  std::vector<std::int64_t> owners;
  const std::string hook_base = "http://127.0.0.1:" + std::to_string(p.server->port()) + "/hook/";
  for (int a = 0; a < s.accounts; ++a) {
    owners.push_back(account("sim" + std::to_string(a) + "@example.com"));
    must(connections.create(owners.back(), "webhook", "board",
                            {{"url", hook_base + std::to_string(a)},
                             {"secret", kHookSecret},
                             {"event_reminder_due", true},
                             {"event_went_quiet", true},
                             {"event_posting_closing", true}}),
         "the webhook");
  }
  auto owner_of = [&](int i) { return owners[static_cast<std::size_t>(i % s.accounts)]; };

  store::with_write(*db.acquire(), [&](store::Conn& c) {
    // Reminders: due from an hour ago to `falling_due_for` from now.
    const auto span = static_cast<std::uint64_t>(60 * kMinute + falling_due_for);
    for (int i = 0; i < s.reminders; ++i) {
      Millis due = now - kMinute * 60 + static_cast<Millis>(random() % span);
      due -= due % 1000;
      auto id = c.query(
                     "INSERT INTO reminders (owner_id, title, due_at, created_at, updated_at)"
                     " VALUES (?, ?, ?, ?, ?) RETURNING id",
                     {owner_of(i), "Follow up " + std::to_string(i), due, now, now})[0]
                    .int_at(0);
      p.reminder_keys.push_back("reminder:" + std::to_string(id) + ":" + format_time_s(due));
    }
    // A company each, then listings: the quiet applications' and the closing ones.
    std::map<std::int64_t, std::int64_t> company;
    for (auto owner : owners)
      company[owner] = c.query(
                            "INSERT INTO companies (owner_id, name, name_key, created_at,"
                            " updated_at) VALUES (?, 'Acme', 'acme', ?, ?) RETURNING id",
                            {owner, now, now})[0]
                           .int_at(0);
    auto listing = [&](std::int64_t owner, const std::string& role,
                       const std::optional<std::string>& closes_on, const std::string& state) {
      return c
          .query(
              "INSERT INTO listings (owner_id, company_id, role, state, closes_on, created_at,"
              " updated_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
              {owner, company[owner], role, state, closes_on, now, now})[0]
          .int_at(0);
    };
    const Millis applied = now - 30 * kDay;
    for (int i = 0; i < s.quiet; ++i) {
      auto owner = owner_of(i);
      auto l = listing(owner, "Role " + std::to_string(i), std::nullopt, "applied");
      p.quiet_ids.push_back(c.query("INSERT INTO applications (owner_id, listing_id, status,"
                                    " applied_at, created_at, updated_at) VALUES (?, ?, 'applied',"
                                    " ?, ?, ?) RETURNING id",
                                    {owner, l, applied, applied, applied})[0]
                                .int_at(0));
    }
    const std::string tomorrow = format_time_s(now + kDay).substr(0, 10);
    for (int i = 0; i < s.closing; ++i)
      p.closing_ids.push_back(
          listing(owner_of(i), "Closing " + std::to_string(i), tomorrow, "new"));
  });

  // Documents and their copies: a store connection for each owner with one.
  fs::create_directories(fs::path(config.media_dir()) / "documents");
  std::map<std::int64_t, bool> has_store;
  for (int i = 0; i < s.copies; ++i) {
    auto owner = owner_of(i);
    if (!has_store[owner]) {
      must(connections.create(owner, "webdav", "backup",
                              {{"url", p.store.url("/dav")},
                               {"folder", "peto/docs"},
                               {"username", "ada"},
                               {"password", "s3cr3t"}}),
           "the store");
      has_store[owner] = true;
    }
    std::string bytes = "%PDF-1.4 document " + std::to_string(i) + "\n%%EOF\n";
    std::string rel = "documents/sim-" + std::to_string(i) + ".pdf";
    std::ofstream(fs::path(config.media_dir()) / rel, std::ios::binary) << bytes;
    auto conn = db.acquire();
    store::with_write(*conn, [&](store::Conn& c) {
      auto id = c.query(
                     "INSERT INTO uploads (file, size, sha256, created_at, owner_id, title,"
                     " filename, content_type, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
                     " RETURNING id",
                     {rel, static_cast<std::int64_t>(bytes.size()), sha256_hex(bytes), now, owner,
                      "CV " + std::to_string(i), "cv.pdf", "application/pdf", now})[0]
                    .int_at(0);
      media::plan_copies_in(c, owner, id, now);
      p.upload_ids.push_back(id);
    });
  }

  // CalDAV connections, each with its owner and three reminders due in a month.
  for (int i = 0; i < s.syncs; ++i) {
    auto owner = account("sync" + std::to_string(i) + "@example.com");
    p.sync_owners.push_back(owner);
    for (int r = 0; r < kSyncReminders; ++r)
      db.query(
          "INSERT INTO reminders (owner_id, title, due_at, created_at, updated_at)"
          " VALUES (?, ?, ?, ?, ?)",
          {owner, "Prepare " + std::to_string(r), now + 30 * kDay + r * kMinute, now, now});
    p.sync_connections.push_back(must(connections.create(owner, "caldav", "calendar",
                                                         {{"url", p.dav->url(collection(i))},
                                                          {"username", "ada"},
                                                          {"password", "s3cr3t"},
                                                          {"interval", "15"}}),
                                      "the CalDAV connection"));
  }

  // Tasks, in batches.
  engine::Queue queue(db, p.clock);
  for (int first = 0; first < s.tasks; first += 500) {
    std::vector<engine::NewTask> batch;
    for (int i = first; i < std::min(s.tasks, first + 500); ++i)
      batch.emplace_back(kEffectTask, "{}");
    auto ids = queue.enqueue_batch(batch);
    p.task_ids.insert(p.task_ids.end(), ids.begin(), ids.end());
  }
}

std::int64_t World::outstanding(store::Db& db) const {
  const Millis now = parts_->clock.now_ms();
  auto count = [&](const std::string& sql, store::Params params = {}) {
    return db.query(sql, params)[0].int_at(0);
  };
  return count("SELECT COUNT(*) FROM deliveries WHERE status IN ('pending', 'failed')") +
         count("SELECT COUNT(*) FROM reminders WHERE notified_at IS NULL AND due_at <= ?", {now}) +
         count("SELECT COUNT(*) FROM tasks WHERE state IN ('available', 'running')") +
         count("SELECT COUNT(*) FROM document_copies WHERE status = 'pending'") +
         count("SELECT COUNT(*) FROM connections WHERE kind = 'sync' AND last_ok_at IS NULL") +
         count(
             "SELECT COUNT(*) FROM applications WHERE status = 'applied' AND"
             " quiet_announced_at IS NULL") +
         count(
             "SELECT COUNT(*) FROM listings WHERE closes_on IS NOT NULL AND"
             " closing_announced_for IS NULL");
}

namespace {

// The pass lease from the journal: no pass may take it while another holds
// it, that is before the holder released it or let it run out (`lease_ms`
// after the holder last confirmed it). Times are simulated.
void check_leases(const std::string& journal, Millis lease_ms, Verdict& v) {
  struct Hold {
    int pid = 0;
    Millis taken = 0, confirmed = 0, released = INT64_MAX;
  };
  std::map<std::int64_t, Hold> holds;  // by epoch
  std::ifstream in(journal);
  Millis at = 0;
  std::int64_t epoch = 0;
  int pid = 0;
  std::string what;
  while (in >> at >> pid >> what >> epoch) {
    Hold& h = holds[epoch];
    h.pid = pid;
    if (what == "acquired") h.taken = at;
    if (what == "confirmed") h.confirmed = std::max(h.confirmed, at);
    if (what == "releasing") h.released = std::min(h.released, at);
  }
  const Hold* before = nullptr;
  std::int64_t before_epoch = 0;
  for (const auto& [e, h] : holds) {
    if (before != nullptr) {
      // A holder killed mid-pass keeps the lease until it runs out: dying frees nothing.
      Millis free_from = std::min(before->released, before->confirmed + lease_ms);
      if (h.taken < free_from)
        v.twice("pass lease epoch " + std::to_string(e) + " taken " +
                std::to_string(free_from - h.taken) + " simulated ms before epoch " +
                std::to_string(before_epoch) + " let it go");
    }
    before = &h;
    before_epoch = e;
  }
  if (holds.empty()) v.lose("no scheduler pass ever took the lease");
}

}  // namespace

Verdict World::check(store::Db& db, const std::map<int, Millis>& kills,
                     const std::vector<std::pair<Millis, Millis>>& restarts,
                     const std::string& journal, Millis pass_lease_ms) const {
  const Parts& p = *parts_;
  Verdict v;
  std::vector<HookReceipt> hooks;
  std::vector<TaskReceipt> tasks;
  {
    std::lock_guard lock(parts_->mutex);
    hooks = p.hooks;
    tasks = p.tasks;
  }

  v.requests = static_cast<std::int64_t>(hooks.size() + tasks.size());

  // Announcements: every delivery row accepted once, each (connection, key)
  // under one delivery id only; every reminder, quiet application and closing
  // listing announced.
  // A delivery accepted again is a raw repeat only when the sender could not
  // know of the first: it was held past the sender's timeout, or a scheduler
  // was killed or the database went away between the two.
  auto explained = [&](Millis from, Millis to) {
    for (const auto& [pid, at] : kills)
      if (at >= from && at <= to) return true;
    for (const auto& r : restarts)
      if (r.second >= from && r.first <= to) return true;
    return false;
  };
  std::map<std::string, const HookReceipt*> accepted;  // delivery id → last accepted
  std::map<std::pair<std::string, std::string>, std::set<std::string>> ids_of_key;
  std::set<std::string> keys;
  for (const auto& h : hooks) {
    ids_of_key[{h.path, h.key}].insert(h.delivery);
    if (h.status / 100 != 2) continue;
    keys.insert(h.key);
    auto [it, first] = accepted.emplace(h.delivery, &h);
    if (first) continue;
    if (it->second->held || explained(it->second->at, h.at))
      ++v.raw_repeats;
    else
      v.twice("delivery " + h.delivery + " (" + h.key + ") accepted twice");
    it->second = &h;
  }
  for (const auto& [key, ids] : ids_of_key)
    if (ids.size() > 1)
      v.twice(key.second + " reached " + key.first + " under " + std::to_string(ids.size()) +
              " delivery ids");
  for (const auto& row : db.query("SELECT id, key, status FROM deliveries"))
    if (!accepted.count(std::to_string(row.int_at(0))))
      v.lose("delivery " + std::to_string(row.int_at(0)) + " (" + row.text(1) + ", " + row.text(2) +
             ") never accepted");
  for (const auto& key : p.reminder_keys)
    if (!keys.count(key)) v.lose(key + " never arrived");
  auto unannounced = [&](const std::string& sql, const std::vector<std::int64_t>& ids,
                         const std::string& what) {
    std::set<std::int64_t> open;
    for (const auto& row : db.query(sql)) open.insert(row.int_at(0));
    for (auto id : ids)
      if (open.count(id)) v.lose(what + " " + std::to_string(id) + " never announced");
  };
  unannounced("SELECT id FROM applications WHERE quiet_announced_at IS NULL", p.quiet_ids,
              "quiet application");
  unannounced("SELECT id FROM listings WHERE closing_announced_for IS NULL", p.closing_ids,
              "closing listing");

  // Tasks: each done, its effect made; an effect made again only after the
  // worker that made it was killed or the database went away under it (then
  // the finish could not be written: at-least-once, counted as a raw repeat).
  std::map<std::int64_t, std::vector<TaskReceipt>> effects;
  for (const auto& t : tasks) effects[t.task].push_back(t);
  for (auto& [id, made] : effects)
    std::sort(made.begin(), made.end(), [](const TaskReceipt& a, const TaskReceipt& b) {
      return std::tie(a.attempt, a.at) < std::tie(b.attempt, b.at);
    });
  std::map<std::int64_t, std::string> state;
  for (const auto& row : db.query("SELECT id, state FROM tasks"))
    state[row.int_at(0)] = row.text(1);
  for (auto id : p.task_ids) {
    auto& made = effects[id];
    if (made.empty()) {
      if (state[id] == "available" || state[id] == "running")
        v.stick("task " + std::to_string(id) + " still " + state[id]);
      else
        v.lose("task " + std::to_string(id) + " (" + state[id] + ") never had its effect");
      continue;
    }
    if (state[id] != "done") v.stick("task " + std::to_string(id) + " is " + state[id]);
    for (std::size_t i = 1; i < made.size(); ++i) {
      const auto& first = made[i - 1];
      const auto& again = made[i];
      auto k = kills.find(first.pid);
      bool killed = k != kills.end() && k->second <= again.at;
      // The database went away around the first effect: its finish may not
      // have been written, and the lease ran out meanwhile.
      bool restarted = std::any_of(restarts.begin(), restarts.end(), [&](const auto& r) {
        return first.at >= r.first - kMinute && first.at <= r.second + kTaskLeaseMs;
      });
      if ((killed || restarted) && again.attempt > first.attempt)
        ++v.raw_repeats;
      else
        v.twice("task " + std::to_string(id) + " made its effect again (attempt " +
                std::to_string(first.attempt) + " by " + std::to_string(first.pid) +
                ", then attempt " + std::to_string(again.attempt) + ")");
    }
  }

  // Copies: every one sent, no file uploaded twice at once.
  for (const auto& row : db.query("SELECT upload_id, status FROM document_copies")) {
    if (row.text(1) == "pending")
      v.stick("copy of upload " + std::to_string(row.int_at(0)));
    else if (row.text(1) != "sent")
      v.lose("copy of upload " + std::to_string(row.int_at(0)) + " " + row.text(1));
  }
  if (db.query("SELECT COUNT(*) FROM document_copies")[0].int_at(0) !=
      static_cast<std::int64_t>(p.upload_ids.size()))
    v.lose("a document copy was never planned");
  for (const auto& [path, n] : p.uploads.overlaps()) v.twice(path + " uploaded twice at once", n);

  // Syncs: each ran, never two runs of one at once, and the collection holds
  // exactly the owner's reminders (the owner too: nothing pulled twice).
  for (const auto& [c, n] : p.syncs.overlaps()) v.twice(c + " synced twice at once", n);
  for (std::size_t i = 0; i < p.sync_connections.size(); ++i) {
    auto row = db.query("SELECT last_ok_at FROM connections WHERE id = ?", {p.sync_connections[i]});
    if (row.empty() || row[0].is_null(0))
      v.lose("sync connection " + std::to_string(p.sync_connections[i]) + " never ran well");
    auto members = p.dav->members(collection(static_cast<int>(i)));
    std::set<std::string> uids;
    for (const auto& [path, item] : members) {
      auto read = formats::read_calendar(item.body, "UTC");
      if (auto* entry = std::get_if<formats::CalItem>(&read)) uids.insert(entry->uid);
    }
    auto here =
        db.query("SELECT COUNT(*) FROM reminders WHERE owner_id = ?", {p.sync_owners[i]})[0].int_at(
            0);
    if (members.size() < kSyncReminders)
      v.lose(collection(static_cast<int>(i)) + " holds " + std::to_string(members.size()) + " of " +
             std::to_string(kSyncReminders) + " reminders");
    if (members.size() > kSyncReminders || uids.size() != members.size() || here != kSyncReminders)
      v.twice(collection(static_cast<int>(i)) + " holds " + std::to_string(members.size()) +
              " members (" + std::to_string(uids.size()) + " UIDs), the owner " +
              std::to_string(here) + " reminders");
  }

  // Anything still waiting at the end is stuck: the run settled for long
  // enough that every lease and retry came due.
  const Millis now = p.clock.now_ms();
  auto pending =
      db.query("SELECT COUNT(*) FROM deliveries WHERE status IN ('pending', 'failed')")[0].int_at(
          0);
  if (pending) v.stick(std::to_string(pending) + " deliveries still pending", pending);
  auto unclaimed =
      db.query("SELECT COUNT(*) FROM reminders WHERE notified_at IS NULL AND due_at <= ?", {now})[0]
          .int_at(0);
  if (unclaimed) v.stick(std::to_string(unclaimed) + " due reminders never claimed", unclaimed);
  check_leases(journal, pass_lease_ms, v);
  return v;
}

}  // namespace peto::sim
