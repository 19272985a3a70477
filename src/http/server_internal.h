// Shared by the files of web::Server (not a public header): Server::State,
// which owns the listener and the sessions, and Session, one connection.
//
//   server.cpp           the listener, accepting, stopping and draining
//   server_session.cpp   a connection's loop: reading, framing, dispatching
//   server_spool.cpp     streamed uploads: admission, the spool budget, the body file
//   server_response.cpp  writing answers, refusals, the lingering close
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/status.h"
#include "http/router.h"
#include "http/server.h"

namespace peto::web {

namespace server_detail {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

inline constexpr std::string_view kLogger = "web";

class Session;

// RFC 9112 §6.1 and §6.3: the one transfer coding read here is "chunked",
// alone, on HTTP/1.1 and without a Content-Length beside it. A body framed
// any other way could be read differently by a proxy in front (request
// smuggling). 0 when the framing is plain, else the status that refuses it:
// 501 for a coding peto does not know, 400 for the rest.
int framing_refusal(const http::request_header<>& h);

// Answers a connection over the caps 503 and closes it, without waiting on
// it: the answer is written only if the socket takes it at once.
void turn_away(tcp::socket& socket);

}  // namespace server_detail

class Server::State {
 public:
  using Session = server_detail::Session;
  using tcp = server_detail::tcp;

  State(Options o, Router& r)
      : options(std::move(o)), router(r), ioc(std::max(1, options.threads)) {
    for (const Route& route : router.routes())
      if (route.spool) max_spool_bytes = std::max(max_spool_bytes, route.spool->max_bytes);
    spool_budget =
        options.max_spool_in_flight > 0 ? options.max_spool_in_flight : 4 * max_spool_bytes;
  }

  enum class SpoolTaken { yes, budget_full, holder_busy };
  // Takes `bytes` of the spool budget and one of `holder`'s uploads; neither
  // when that would go over Options::max_spool_in_flight or
  // Options::max_spools_per_holder.
  SpoolTaken reserve_spool(std::size_t bytes, const std::string& holder) {
    std::lock_guard lock(spool_mu);
    if (!holder.empty()) {
      auto it = spooling_by_holder.find(holder);
      if (it != spooling_by_holder.end() && it->second >= options.max_spools_per_holder)
        return SpoolTaken::holder_busy;
    }
    if (bytes > spool_budget || spooling > spool_budget - bytes) return SpoolTaken::budget_full;
    spooling += bytes;
    if (!holder.empty()) ++spooling_by_holder[holder];
    return SpoolTaken::yes;
  }
  void release_spool(std::size_t bytes, const std::string& holder) {
    std::lock_guard lock(spool_mu);
    spooling -= bytes;
    if (holder.empty()) return;
    if (auto it = spooling_by_holder.find(holder);
        it != spooling_by_holder.end() && --it->second <= 0)
      spooling_by_holder.erase(it);
  }

  Status start();
  void begin_stop();   // on `strand`
  void watch_drain();  // on `strand`
  void accept();       // on `strand`
  void on_accept(boost::beast::error_code ec, tcp::socket socket);
  void forget(Session* s);
  // Whether more than half of Options::max_connections are open.
  bool crowded() const { return open.load() * 2 > options.max_connections; }

  const Options options;
  Router& router;
  std::size_t max_spool_bytes = 0;  // the largest body a streamed route takes
  std::size_t spool_budget = 0;     // see Options::max_spool_in_flight
  std::mutex spool_mu;              // guards the two below
  std::size_t spooling = 0;         // reserved by the uploads being read
  std::unordered_map<std::string, int> spooling_by_holder;
  std::atomic<bool> started{false};
  std::atomic<bool> stopping{false};
  std::atomic<std::uint16_t> bound_port{0};

  // Declared before the io_context: sessions destroyed with its pending
  // handlers still unregister themselves here.
  std::mutex mu;
  std::unordered_map<Session*, std::weak_ptr<Session>> sessions;
  std::unordered_map<std::string, int> per_address;  // open connections by peer address
  std::atomic<int> open{0};                          // sessions.size()
  std::chrono::steady_clock::time_point accept_failure_logged;

  boost::asio::io_context ioc;
  boost::asio::strand<boost::asio::io_context::executor_type> strand{boost::asio::make_strand(ioc)};
  tcp::acceptor acceptor{strand};
  boost::asio::steady_timer timer{strand};  // accept back-off, then the drain watch
  std::chrono::steady_clock::time_point stop_deadline;
};

namespace server_detail {

// One connection: read a request, answer it, repeat while kept alive. Every
// handler of a session runs on its strand, so a session is touched by one
// thread at a time.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, Server::State& state) : state_(state), stream_(std::move(socket)) {
    beast::error_code ec;
    auto peer = stream_.socket().remote_endpoint(ec);
    if (!ec) remote_ = peer.address().to_string();
  }
  ~Session() {
    drop_spool();
    state_.forget(this);
  }

  const std::string& peer() const { return remote_; }
  void turn_away() { server_detail::turn_away(stream_.socket()); }

  void start() {
    asio::dispatch(stream_.get_executor(),
                   [self = shared_from_this()] { self->wait_for_request(); });
  }

  // From State::begin_stop: an idle connection closes now, a busy one after
  // its response.
  void on_stop() {
    asio::dispatch(stream_.get_executor(), [self = shared_from_this()] {
      if (self->phase_ == Phase::idle || self->phase_ == Phase::closing) self->close();
    });
  }

  // From the drain watch when stop_grace has passed.
  void cut() {
    asio::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->close(); });
  }

 private:
  enum class Phase { idle, reading, answering, closing };

  // server_session.cpp
  void wait_for_request();
  void on_first_bytes(beast::error_code ec, std::size_t n);
  void read_request();
  void on_header(beast::error_code ec);
  // The request being read as its header tells it (no body yet), for an
  // admission.
  Request header_request();
  // Route::admit on the headers; false when it answered instead.
  bool admit_body();
  void read_body();
  void on_body(beast::error_code ec);
  void on_read_error(beast::error_code ec);
  void answer();
  Response respond(Request& request);
  // respond() for `target`; 400 when it is not a valid path.
  Response answer_target(Request& request, std::string_view target);
  // The debug line of one answered request.
  void log_answer(const Request& request, const Response& response,
                  std::chrono::steady_clock::time_point started, bool spooled) const;
  Request request_from(const http::request_header<>& msg);
  // The header of the request being read, from whichever parser holds it.
  const http::request_header<>* header() const;

  // server_spool.cpp
  // For a multipart POST to a streamed route, switches to a parser that
  // writes the body to a file. Returns false when it answered (413, 500).
  bool maybe_spool();
  // Spool::admit on the headers: the upload's holder, or nullopt when it
  // answered instead (the refusal, or 500).
  std::optional<std::string> admit_spool(const Spool& spool);
  // Reserves `bytes` of the budget and one of `holder`'s uploads; false when
  // it answered 429 or 503 instead.
  bool take_spool(std::size_t bytes, const std::string& holder);
  void drop_spool();
  void answer_spooled();
  // Sends `response` to a request whose body is left unread, then closes.
  void refuse(Response response);
  void release_spool();

  // server_response.cpp
  void send_error(int status, const std::string& title, const std::string& detail,
                  const std::string& retry_after = {});
  // What a connection does once a response is written.
  enum class Then { next_request, close, linger };
  void write(Response response, bool head, Then then, unsigned version);
  void write_file(Response response, bool head, Then then, unsigned version);
  void linger();
  void close();

  Server::State& state_;
  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::optional<http::request_parser<http::file_body>> file_parser_;
  Request probe_;                   // the request being read: its parsed target
  const Route* route_ = nullptr;    // its route, found on its header (none: 404 to come)
  std::string spool_path_;          // the body file of file_parser_, removed after use
  std::size_t spool_reserved_ = 0;  // of State::spooling, held while spooling
  std::string spool_holder_;        // whose upload that is (Admission::holder)
  std::shared_ptr<void> out_;       // the message being written
  std::string remote_;              // the peer's address (the proxy's, behind one)
  std::size_t body_limit_ = 0;      // of the request being read
  Phase phase_ = Phase::idle;
  std::size_t drained_ = 0;
  std::array<char, 4096> scratch_{};
};

}  // namespace server_detail

}  // namespace peto::web
