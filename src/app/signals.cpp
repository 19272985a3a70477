#include "app/signals.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include "core/log.h"

namespace peto::app {

namespace {
sigset_t stop_set() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGUSR2);  // our own wake-up, to end the waiter thread
  return set;
}
}  // namespace

StopSignals::StopSignals() {
  sigset_t set = stop_set();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  waiter_ = std::thread([this, set] {
    for (;;) {
      int sig = 0;
      if (sigwait(&set, &sig) != 0) continue;
      if (sig == SIGUSR2) return;
      bool already;
      {
        std::lock_guard lock(mu_);
        already = stopping_;
      }
      if (already) {
        log::warn("peto", "second stop signal; exiting now");
        _exit(130);
      }
      log::info("peto", "stop signal received; finishing work in flight",
                {{"signal", sig == SIGTERM ? "SIGTERM" : "SIGINT"}});
      request_stop();
    }
  });
}

StopSignals::~StopSignals() {
  pthread_kill(waiter_.native_handle(), SIGUSR2);
  waiter_.join();
}

StopSignals::Hook::~Hook() { signals_->unhook(id_); }

StopSignals::Hook StopSignals::on_stop(std::function<void()> hook) {
  std::unique_lock lock(mu_);
  const int id = next_id_++;
  if (stopping_) {
    lock.unlock();
    hook();
    return {this, id};
  }
  hooks_.emplace_back(id, std::move(hook));
  return {this, id};
}

void StopSignals::unhook(int id) {
  std::unique_lock lock(mu_);
  std::erase_if(hooks_, [id](const auto& h) { return h.first == id; });
  cv_.wait(lock, [&] { return running_ != id; });
}

void StopSignals::request_stop() {
  std::unique_lock lock(mu_);
  if (stopping_) return;
  stopping_ = true;
  cv_.notify_all();
  // One hook at a time, each taken out under the lock: a Hook destroyed
  // meanwhile either removes its hook first or waits for it to return.
  while (!hooks_.empty()) {
    auto [id, hook] = std::move(hooks_.front());
    hooks_.erase(hooks_.begin());
    running_ = id;
    lock.unlock();
    hook();
    lock.lock();
    running_ = -1;
    cv_.notify_all();
  }
}

bool StopSignals::stopping() const {
  std::lock_guard lock(mu_);
  return stopping_;
}

bool StopSignals::wait_for(std::chrono::milliseconds d) {
  std::unique_lock lock(mu_);
  return cv_.wait_for(lock, d, [&] { return stopping_; });
}

}  // namespace peto::app
