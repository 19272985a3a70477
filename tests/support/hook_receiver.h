// HookReceiver: a webhook receiver on 127.0.0.1 for the announcement tests,
// written as a receiver in the wild would be: it records every POST (raw
// repeats included) and answers with the status the test sets.
//
//   HookReceiver hooks;                      // a free port
//   … "http://127.0.0.1:" + std::to_string(hooks.port()) + "/hook" …
//   hooks.set_status(500);
//   auto got = hooks.received();             // every request, in arrival order
//
// stop() takes it off the network (connections are then refused) and start()
// brings it back on the same port.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "http/router.h"
#include "tests/support/web_server.h"

namespace peto::testing {

struct HookRequest {
  std::string delivery;   // Peto-Delivery
  std::string event;      // Peto-Event
  std::string signature;  // Peto-Signature
  std::string body;
};

class HookReceiver {
 public:
  HookReceiver() {
    // "/hook" for webhooks; "/" for ntfy, which publishes to the server's root.
    auto record = [this](web::Request& r) {
      std::lock_guard lock(mutex_);
      auto text = [&](const char* name) {
        const std::string* v = r.header(name);
        return v ? *v : std::string();
      };
      received_.push_back(
          {text("Peto-Delivery"), text("Peto-Event"), text("Peto-Signature"), r.body});
      int status = on_request_ ? on_request_(received_.size()) : 0;
      return web::Response::text(status ? status : status_, "ok");
    };
    router_.add("POST", "/hook", record);
    router_.add("POST", "/", record);
    start();
  }

  void start() {
    web::Server::Options o;
    o.port = port_;
    o.threads = 2;
    o.stop_grace = std::chrono::seconds(0);  // a receiver that goes away, goes at once
    server_ = std::make_unique<WebServer>(router_, o);
    port_ = server_->port();
  }
  void stop() { server_.reset(); }

  std::uint16_t port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/hook"; }
  void set_status(int status) {
    std::lock_guard lock(mutex_);
    status_ = status;
  }
  // Called (under the receiver's lock: it must not call back into the
  // receiver) with the number of requests so far; a non-zero result is the
  // status this request is answered with.
  void on_request(std::function<int(std::size_t)> fn) {
    std::lock_guard lock(mutex_);
    on_request_ = std::move(fn);
  }
  std::vector<HookRequest> received() const {
    std::lock_guard lock(mutex_);
    return received_;
  }

 private:
  web::Router router_;
  std::unique_ptr<WebServer> server_;
  std::uint16_t port_ = 0;
  mutable std::mutex mutex_;
  int status_ = 204;
  std::function<int(std::size_t)> on_request_;
  std::vector<HookRequest> received_;
};

}  // namespace peto::testing
