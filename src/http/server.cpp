// web::Server and its State: the listener, accepting connections, stopping
// and draining them. A connection's life is in server_session.cpp,
// server_spool.cpp and server_response.cpp (see server_internal.h).
#include "http/server.h"

#include <algorithm>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <thread>
#include <vector>

#include "core/log.h"
#include "http/server_internal.h"

namespace peto::web {

namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;
using server_detail::kLogger;
using server_detail::Session;

namespace {

std::string endpoint_text(const std::string& host, std::uint16_t port) {
  bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

}  // namespace

namespace server_detail {

void turn_away(tcp::socket& socket) {
  static constexpr std::string_view kBusy =
      "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 5\r\nConnection: close\r\n"
      "Content-Type: text/plain; charset=utf-8\r\nContent-Length: 31\r\n\r\n"
      "Too many connections; try again";
  beast::error_code ec;
  socket.non_blocking(true, ec);
  if (!ec) socket.write_some(asio::buffer(kBusy.data(), kBusy.size()), ec);
  socket.shutdown(tcp::socket::shutdown_both, ec);
  socket.close(ec);
}

}  // namespace server_detail

Status Server::State::start() {
  const std::string where = endpoint_text(options.host, options.port);
  beast::error_code ec;
  tcp::resolver resolver(ioc);
  auto endpoints = resolver.resolve(options.host, std::to_string(options.port),
                                    tcp::resolver::passive | tcp::resolver::numeric_service, ec);
  if (ec || endpoints.empty()) {
    return Status::unavailable("cannot listen on " + where + ": cannot resolve host (" +
                               ec.message() + ")");
  }
  tcp::endpoint endpoint = endpoints.begin()->endpoint();
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    beast::error_code ignored;
    acceptor.close(ignored);
    return Status::unavailable("cannot listen on " + where + ": " + ec.message());
  }
  bound_port = acceptor.local_endpoint(ec).port();
  started = true;
  asio::post(strand, [this] { accept(); });
  return Status::ok();
}

void Server::State::accept() {
  acceptor.async_accept(asio::make_strand(ioc), [this](beast::error_code ec, tcp::socket socket) {
    on_accept(ec, std::move(socket));
  });
}

void Server::State::on_accept(beast::error_code ec, tcp::socket socket) {
  if (stopping || ec == asio::error::operation_aborted) return;
  if (ec) {
    // Out of file descriptors and the like: back off instead of spinning, and
    // say so once a minute, not at every try.
    auto now = std::chrono::steady_clock::now();
    if (now - accept_failure_logged >= std::chrono::minutes(1)) {
      accept_failure_logged = now;
      log::warn(kLogger, "accept failed; retrying every 100 ms", {{"error", ec.message()}});
    }
    timer.expires_after(std::chrono::milliseconds(100));
    timer.async_wait([this](beast::error_code e) {
      if (!e && !stopping) accept();
    });
    return;
  }
  auto session = std::make_shared<Session>(std::move(socket), *this);
  const std::string& peer = session->peer();
  bool admitted = false;
  {
    std::lock_guard lock(mu);
    int& from_peer = per_address[peer];
    admitted =
        static_cast<int>(sessions.size()) < options.max_connections &&
        (from_peer < options.max_connections_per_address || options.trusted_proxies.contains(peer));
    if (admitted) {
      sessions.emplace(session.get(), session);
      ++from_peer;
      open = static_cast<int>(sessions.size());
    } else if (from_peer == 0) {
      per_address.erase(peer);
    }
  }
  if (admitted) {
    session->start();
  } else {
    log::debug(kLogger, "connection turned away: too many open", {{"remote", peer}});
    session->turn_away();
  }
  accept();
}

void Server::State::forget(Session* s) {
  std::lock_guard lock(mu);
  if (sessions.erase(s) == 0) return;  // one turned away was never counted
  open = static_cast<int>(sessions.size());
  auto it = per_address.find(s->peer());
  if (it != per_address.end() && --it->second <= 0) per_address.erase(it);
}

void Server::State::begin_stop() {
  if (stopping.exchange(true)) return;
  log::info(kLogger, "stopping: closing the listener, finishing requests in flight");
  beast::error_code ec;
  acceptor.close(ec);
  timer.cancel();
  std::vector<std::shared_ptr<Session>> live;
  {
    std::lock_guard lock(mu);
    for (auto& [_, weak] : sessions) {
      if (auto s = weak.lock()) live.push_back(std::move(s));
    }
  }
  for (auto& s : live) s->on_stop();
  stop_deadline = std::chrono::steady_clock::now() + options.stop_grace;
  watch_drain();
}

// Polls until every connection has gone, cutting them once stop_grace is
// over. A timer that ends with the last session keeps run() from waiting on it.
void Server::State::watch_drain() {
  std::vector<std::shared_ptr<Session>> live;
  {
    std::lock_guard lock(mu);
    for (auto& [_, weak] : sessions) {
      if (auto s = weak.lock()) live.push_back(std::move(s));
    }
  }
  if (live.empty()) return;
  if (std::chrono::steady_clock::now() >= stop_deadline) {
    for (auto& s : live) s->cut();
  }
  live.clear();
  timer.expires_after(std::chrono::milliseconds(25));
  timer.async_wait([this](beast::error_code ec) {
    if (!ec) watch_drain();
  });
}

Server::Server(Options options, Router& router)
    : state_(std::make_unique<State>(std::move(options), router)) {}

Server::~Server() = default;

Status Server::start() {
  if (state_->started) return Status::internal("server already started");
  return state_->start();
}

std::uint16_t Server::port() const { return state_->bound_port; }

void Server::run() {
  if (!state_->started) return;
  // An exception escaping a handler leaves the io_context usable: log it and
  // keep the thread serving, or the server would quietly lose a thread.
  auto serve = [this] {
    while (true) {
      try {
        state_->ioc.run();
        return;
      } catch (const std::exception& e) {
        log::error(kLogger, "server thread caught an exception", {{"error", e.what()}});
      } catch (...) {
        log::error(kLogger, "server thread caught an exception", {{"error", "unknown"}});
      }
    }
  };
  std::vector<std::thread> extra;
  for (int i = 1; i < state_->options.threads; ++i) extra.emplace_back(serve);
  serve();
  for (auto& t : extra) t.join();
}

void Server::stop() {
  asio::post(state_->strand, [s = state_.get()] { s->begin_stop(); });
}

}  // namespace peto::web
