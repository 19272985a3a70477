// WebServer: a real web::Server on 127.0.0.1 and a free port, run on its own
// thread for one test. stop() (or the destructor) stops it gracefully and
// waits for run() to return.
#pragma once

#include <chrono>
#include <future>
#include <memory>
#include <stdexcept>
#include <thread>

#include "http/server.h"
#include "tests/support/eventually.h"

namespace peto::testing {

class WebServer {
 public:
  explicit WebServer(web::Router& router, web::Server::Options options = {}) {
    options.host = "127.0.0.1";
    // Any free port, unless the test names one (to come back on the port it had).
    if (options.port == web::Server::Options{}.port) options.port = 0;
    server_ = std::make_unique<web::Server>(options, router);
    if (Status s = server_->start(); !s) throw std::runtime_error(s.message());
    auto done = std::make_shared<std::promise<void>>();
    finished_ = done->get_future();
    thread_ = std::thread([this, done] {
      server_->run();
      done->set_value();
    });
  }
  ~WebServer() { stop(); }

  std::uint16_t port() const { return server_->port(); }
  web::Server& server() { return *server_; }

  // Asks for a stop and waits up to `limit` for run() to return.
  bool stop(std::chrono::seconds limit = std::chrono::seconds(10)) {
    if (!thread_.joinable()) return true;
    server_->stop();
    return wait_stopped(limit);
  }

  // Waits up to `limit` for run() to return (after a stop asked elsewhere).
  bool wait_stopped(std::chrono::seconds limit) {
    if (!thread_.joinable()) return true;
    if (finished_.wait_for(limit) != std::future_status::ready) return false;
    thread_.join();
    return true;
  }

 private:
  std::unique_ptr<web::Server> server_;
  std::thread thread_;
  std::future<void> finished_;
};

}  // namespace peto::testing
