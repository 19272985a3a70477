// Exactly once under overlap: 1,000 reminders due, four `peto schedule`
// processes started at once, a webhook receiver on 127.0.0.1. Every reminder
// key reaches the receiver, and no delivery is a different one's double —
// also when the receiver goes away mid-run and comes back.
#include <atomic>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "connections/connections.h"
#include "notify/notifiers.h"
#include "tests/support/engine_fixture.h"
#include "tests/support/factory.h"
#include "tests/support/hook_receiver.h"

namespace peto {
namespace {

using testing::HookReceiver;

constexpr int kReminders = 1000;
constexpr int kAccounts = 10;
constexpr const char* kSecret = "overlap-webhook-secret-0123456789";

class AnnounceOverlapTest : public testing::EngineTest {
 protected:
  void SetUp() override {
    EngineTest::SetUp();
    if (IsSkipped()) return;
    config_.secret_key = "overlap-test-secret-key-0123456789abcdef";
    config_.allow_private_destinations = true;
  }

  // Accounts with one webhook each and kReminders reminders due a minute ago
  // by the real clock (the processes run on it), made by the domain on that clock.
  void seed(const std::string& hook_url) {
    Millis now = system_clock().now_ms();
    testing::Factory make(db(), system_clock());
    connections::Connections connections(db(), system_clock(), config_);
    std::vector<std::int64_t> owners;
    for (int a = 0; a < kAccounts; ++a) {
      owners.push_back(make.account("u" + std::to_string(a) + "@example.com"));
      auto made = connections.create(owners.back(), "webhook", "hook",
                                     {{"url", hook_url}, {"secret", kSecret}});
      ASSERT_TRUE(std::holds_alternative<connections::Connection>(made));
    }
    for (int i = 0; i < kReminders; ++i)
      make.reminder(owners[static_cast<std::size_t>(i % kAccounts)], "r" + std::to_string(i),
                    now - 60'000);
  }

  // Four schedulers at once; true when all exited 0.
  bool four_schedulers(int round) {
    std::string env = "env PETO_DATABASE_URL='" + url() + "' PETO_DATA_DIR='" + dir().string() +
                      "' PETO_SECRET_KEY='" + config_.secret_key +
                      "' PETO_ALLOW_PRIVATE_DESTINATIONS=true PETO_LOG_LEVEL=warning ";
    std::string cmd;
    for (int i = 0; i < 4; ++i)
      cmd += env + testing::peto_binary() + " schedule > " +
             (dir() / ("out" + std::to_string(round) + "-" + std::to_string(i))).string() +
             " 2>&1 & ";
    cmd += "\nfail=0; for j in $(jobs -p); do wait $j || fail=1; done; exit $fail\n";
    std::ofstream(dir() / "run.sh") << cmd;
    std::string out;
    int rc = testing::run_command("bash " + (dir() / "run.sh").string(), &out);
    EXPECT_EQ(rc, 0) << out;
    return rc == 0;
  }

  std::int64_t pending() {
    return db()
        .query("SELECT COUNT(*) FROM deliveries WHERE status IN ('pending', 'failed')")[0]
        .int_at(0);
  }

  // What the receiver saw: each key's distinct Peto-Delivery ids, and the raw repeats.
  void check_exactly_once(const HookReceiver& hooks) {
    std::map<std::string, std::set<std::string>> deliveries_of_key;
    std::map<std::string, std::string> key_of_delivery;
    std::size_t repeats = 0;
    std::set<std::string> seen;
    for (const auto& h : hooks.received()) {
      auto n = notify::from_payload(h.body);
      ASSERT_TRUE(n) << h.body;
      EXPECT_TRUE(notify::verify_webhook_signature(h.signature, kSecret, h.body,
                                                   system_clock().now_ms() / 1000));
      if (!seen.insert(h.delivery).second) ++repeats;
      deliveries_of_key[n->key].insert(h.delivery);
      auto [it, fresh] = key_of_delivery.emplace(h.delivery, n->key);
      EXPECT_TRUE(fresh || it->second == n->key) << "one delivery id, one key";
    }
    EXPECT_EQ(deliveries_of_key.size(), static_cast<std::size_t>(kReminders))
        << "every reminder arrived";
    for (const auto& [key, ids] : deliveries_of_key)
      EXPECT_EQ(ids.size(), 1u) << key << " was announced more than once";
    EXPECT_EQ(db().query("SELECT COUNT(*) FROM deliveries WHERE status = 'sent'")[0].int_at(0),
              kReminders);
    EXPECT_EQ(db().query("SELECT COUNT(*) FROM inbox_notices")[0].int_at(0), kReminders);
    RecordProperty("raw_repeats", static_cast<int>(repeats));
    std::cout << "[ receiver ] " << hooks.received().size() << " requests, " << repeats
              << " raw repeats (dropped by Peto-Delivery)\n";
  }
};

TEST_P(AnnounceOverlapTest, FourSchedulersAnnounceEachReminderExactlyOnce) {
  HookReceiver hooks;
  seed(hooks.url());
  for (int round = 0; round < 5 && (round == 0 || pending() > 0); ++round)
    ASSERT_TRUE(four_schedulers(round));
  EXPECT_EQ(pending(), 0);
  check_exactly_once(hooks);
  EXPECT_EQ(hooks.received().size(), static_cast<std::size_t>(kReminders))
      << "a receiver that never failed sees no repeats";
}

TEST_P(AnnounceOverlapTest, AReceiverKilledMidRunLosesNothingAndDoublesNothing) {
  HookReceiver hooks;
  seed(hooks.url());
  // The 300th request is answered 500 after it was recorded (a repeat will
  // follow), and then the receiver goes away.
  std::atomic<bool> kill{false};
  hooks.on_request([&](std::size_t n) {
    if (n < 300) return 0;
    kill = true;
    return 500;
  });
  std::thread killer([&] {
    while (!kill) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    hooks.stop();
  });
  ASSERT_TRUE(four_schedulers(0));
  killer.join();
  EXPECT_GT(pending(), 0) << "some deliveries wait for the receiver";

  hooks.on_request(nullptr);
  hooks.start();
  for (int round = 1; round < 8 && pending() > 0; ++round) {
    // The clock moved: the retries are due.
    db().query("UPDATE deliveries SET next_attempt_at = 0 WHERE status = 'failed'");
    ASSERT_TRUE(four_schedulers(round));
  }
  EXPECT_EQ(pending(), 0);
  check_exactly_once(hooks);
}

PETO_BOTH_BACKENDS(AnnounceOverlapTest);

}  // namespace
}  // namespace peto
