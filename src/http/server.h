// Server: HTTP/1.1 on Boost.Beast, answering every request through a Router.
//
//   web::Server server(options, router);
//   if (Status s = server.start(); !s) { ... s.message() ... }
//   server.run();            // blocks until stop() has drained the connections
//
// Connections are kept alive between requests, up to the caps on open
// connections (in all and per client address). Each request is read with
// limits (header size, read_timeout, and its route's body limit, checked on
// the headers before the body is read), its body framed strictly (a lone
// "chunked" or a Content-Length, never both), and runs inside a log Scope
// with a fresh "req-…" id; one access line is logged at debug level. A handler
// that throws answers 500 with a generic message; the exception is logged,
// never sent. Files under `static_dir` are served at /static/ (only regular
// files inside that folder; dot-files and ".." are refused).
//
// Handlers run on the server's threads (Options::threads), so a handler that
// blocks holds one of them: keep `threads` above the number of requests that
// may wait on the database at once.
//
// stop() is thread-safe and only posts to the server's io_context, so it can
// be called from an asio signal_set handler or any other thread. It closes
// the listening socket and the idle keep-alive connections at once; requests
// already being read or handled finish and get their response (with
// "Connection: close"); then run() returns. After `stop_grace` the remaining
// connections are cut.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "core/address_set.h"
#include "core/status.h"
#include "http/router.h"

namespace peto::web {

class Server {
 public:
  struct Options {
    std::string host = "127.0.0.1";
    std::uint16_t port = 8080;  // 0 = any free port (see port())
    int threads = 2;
    // A body read into memory (a form): routes may set their own
    // (Route::max_body_bytes); uploads stream to disk under their Spool.
    std::size_t max_body_bytes = 512 << 10;
    std::size_t max_header_bytes = 16 << 10;
    std::chrono::seconds read_timeout{30};  // from the first byte to the whole request
    std::chrono::seconds idle_timeout{75};  // waiting for the next request on a connection
    // Open connections: past max_connections, or max_connections_per_address
    // from one client address (a trusted proxy is not held to that one), a
    // new connection is answered 503 and closed at once. Once more than half
    // of max_connections are open, a connection waiting for its next request
    // waits only crowded_idle_timeout.
    int max_connections = 1024;
    int max_connections_per_address = 128;
    std::chrono::seconds crowded_idle_timeout{5};
    std::chrono::seconds stop_grace{10};  // after stop(), how long in-flight requests get
    std::filesystem::path static_dir;     // empty = no /static/
    // The bytes all streamed uploads being read at once may spool (each
    // counts its Content-Length, or its route's limit when chunked); past
    // it an upload is answered 503 with Retry-After. 0 = 4 x the largest
    // streamed route's limit.
    std::size_t max_spool_in_flight = 0;
    // The uploads of one holder (Admission::holder: an account) read at the
    // same moment; one more is answered 429 with Retry-After.
    int max_spools_per_holder = 1;
    // Peers whose Forwarded / X-Forwarded-For header names the client
    // (http/client_address.h): Request::remote_address is then that client.
    AddressSet trusted_proxies;
  };

  // `router` must outlive the server and is not changed while it runs.
  Server(Options options, Router& router);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Resolves host and binds. Status::unavailable with a message naming the
  // address ("cannot listen on 127.0.0.1:8080: address already in use").
  Status start();
  // The bound port (the chosen one when Options::port was 0); 0 before start().
  std::uint16_t port() const;
  // Serves on Options::threads threads (the caller's included) until stop()
  // has drained every connection. Returns at once if start() did not succeed.
  void run();
  // Thread-safe; returns at once. See the header comment.
  void stop();

  class State;  // the Beast/Asio side, in server_internal.h

 private:
  std::unique_ptr<State> state_;
};

}  // namespace peto::web
