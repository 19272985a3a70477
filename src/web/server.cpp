#include "web/server.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/url/parse.hpp>
#include <boost/url/url_view.hpp>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>

#include <sys/stat.h>
#include <unordered_map>
#include <vector>

#include "core/log.h"
#include "core/token.h"
#include "web/multipart.h"
#include "web/static_files.h"

namespace peto::web {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

constexpr std::string_view kLogger = "web";
// After the last response on a connection, how long unread client bytes are
// drained before closing (so the client reads our answer instead of a reset).
constexpr auto kLingerTime = std::chrono::seconds(2);

class Session;

// A CR or LF in a header would let data (a redirect target, a file name)
// start a header or a body of its own.
bool header_safe(std::string_view text) {
  return text.find_first_of(std::string_view("\r\n\0", 3)) == std::string_view::npos;
}

// A request path as the logs show it: the segment after every "/feeds/"
// (a calendar feed's secret token, /feeds/<token>/calendar.ics) becomes "…",
// so whoever reads the logs cannot subscribe to someone's feed.
std::string path_for_log(std::string_view path) {
  constexpr std::string_view kFeeds = "/feeds/";
  std::string out;
  std::size_t from = 0;
  for (auto at = path.find(kFeeds); at != std::string_view::npos; at = path.find(kFeeds, from)) {
    std::size_t start = at + kFeeds.size();
    std::size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    out += path.substr(from, start - from);
    if (end > start) out += "…";
    from = end;
  }
  out += path.substr(from);
  return out;
}

// The path of a raw request target for the logs: decoded as the router sees
// it (so "/%66eeds/…" is redacted too), without its query.
std::string target_for_log(std::string_view target) {
  auto url = boost::urls::parse_origin_form(target);
  if (url) return path_for_log(url->path());
  return path_for_log(target.substr(0, target.find('?')));
}

}  // namespace

class Server::State {
 public:
  State(Options o, Router& r)
      : options(std::move(o)), router(r), ioc(std::max(1, options.threads)) {
    for (const Route& route : router.routes())
      if (route.spool) max_spool_bytes = std::max(max_spool_bytes, route.spool->max_bytes);
    spool_budget =
        options.max_spool_in_flight > 0 ? options.max_spool_in_flight : 4 * max_spool_bytes;
  }

  // Takes `bytes` of the spool budget; false when that would go over it.
  bool reserve_spool(std::size_t bytes) {
    std::size_t now = spooling.load();
    do {
      if (bytes > spool_budget || now > spool_budget - bytes) return false;
    } while (!spooling.compare_exchange_weak(now, now + bytes));
    return true;
  }
  void release_spool(std::size_t bytes) { spooling -= bytes; }

  Status start();
  void begin_stop();   // on `strand`
  void watch_drain();  // on `strand`
  void accept();       // on `strand`
  void on_accept(beast::error_code ec, tcp::socket socket);
  void forget(Session* s);

  const Options options;
  Router& router;
  std::size_t max_spool_bytes = 0;       // the largest body a streamed route takes
  std::size_t spool_budget = 0;          // see Options::max_spool_in_flight
  std::atomic<std::size_t> spooling{0};  // reserved by the uploads being read
  std::atomic<bool> started{false};
  std::atomic<bool> stopping{false};
  std::atomic<std::uint16_t> bound_port{0};

  // Declared before the io_context: sessions destroyed with its pending
  // handlers still unregister themselves here.
  std::mutex mu;
  std::unordered_map<Session*, std::weak_ptr<Session>> sessions;

  asio::io_context ioc;
  asio::strand<asio::io_context::executor_type> strand{asio::make_strand(ioc)};
  tcp::acceptor acceptor{strand};
  asio::steady_timer timer{strand};  // accept back-off, then the drain watch
  std::chrono::steady_clock::time_point stop_deadline;
};

namespace {

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

  void wait_for_request();
  void on_first_bytes(beast::error_code ec, std::size_t n);
  void read_request();
  void on_header(beast::error_code ec);
  void read_body();
  void on_body(beast::error_code ec);
  void on_read_error(beast::error_code ec);
  void answer();
  Response respond(Request& request);
  Request request_from(const http::request_header<>& msg);
  // The header of the request being read, from whichever parser holds it.
  const http::request_header<>* header() const;
  // For a multipart POST to a streamed route, switches to a parser that
  // writes the body to a file. Returns false when it answered (413, 500).
  bool maybe_spool();
  void drop_spool();
  void answer_spooled();
  void send_error(int status, const std::string& title, const std::string& detail,
                  const std::string& retry_after = {});
  // Sends `response` to a request whose body is left unread, then closes.
  void refuse(Response response);
  void release_spool();
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
  std::string spool_path_;          // the body file of file_parser_, removed after use
  std::size_t spool_reserved_ = 0;  // of State::spooling, held while spooling
  std::shared_ptr<void> out_;       // the message being written
  std::string remote_;
  Phase phase_ = Phase::idle;
  std::size_t drained_ = 0;
  std::array<char, 4096> scratch_{};
};

// Waits for the first byte of the next request under the idle timeout; the
// read timeout starts only once a request has begun.
void Session::wait_for_request() {
  phase_ = Phase::idle;
  if (state_.stopping) return close();
  if (buffer_.size() > 0) return read_request();  // pipelined
  stream_.expires_after(state_.options.idle_timeout);
  stream_.async_read_some(buffer_.prepare(4096),
                          beast::bind_front_handler(&Session::on_first_bytes, shared_from_this()));
}

void Session::on_first_bytes(beast::error_code ec, std::size_t n) {
  if (ec) return close();
  buffer_.commit(n);
  read_request();
}

void Session::read_request() {
  phase_ = Phase::reading;
  drop_spool();
  parser_.emplace();
  // A streamed route may take a larger body than the others: each request's
  // limit is checked and set once its header is read (on_header), which is
  // before any of the body is.
  parser_->body_limit(boost::none);
  parser_->header_limit(static_cast<std::uint32_t>(state_.options.max_header_bytes));
  stream_.expires_after(state_.options.read_timeout);
  http::async_read_header(
      stream_, buffer_, *parser_,
      [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_header(ec); });
}

void Session::on_header(beast::error_code ec) {
  if (ec) return on_read_error(ec);
  if (!maybe_spool()) return;
  if (!file_parser_) {
    auto length = parser_->content_length();
    if (length && *length > state_.options.max_body_bytes)
      return on_read_error(http::error::body_limit);
    parser_->body_limit(state_.options.max_body_bytes);
  }
  const auto& expect = header()->operator[](http::field::expect);
  if (!beast::iequals(expect, "100-continue")) return read_body();
  auto cont = std::make_shared<http::response<http::empty_body>>(http::status::continue_, 11);
  out_ = cont;
  http::async_write(stream_, *cont, [self = shared_from_this()](beast::error_code e, std::size_t) {
    if (e) return self->close();
    self->read_body();
  });
}

void Session::read_body() {
  if (file_parser_) {
    if (file_parser_->is_done()) return answer_spooled();
    return http::async_read(stream_, buffer_, *file_parser_,
                            [self = shared_from_this()](beast::error_code ec, std::size_t) {
                              if (ec) return self->on_read_error(ec);
                              self->answer_spooled();
                            });
  }
  if (parser_->is_done()) return answer();
  http::async_read(
      stream_, buffer_, *parser_,
      [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_body(ec); });
}

void Session::on_body(beast::error_code ec) {
  if (ec) return on_read_error(ec);
  answer();
}

// Limits and malformed requests get an answer; a client that went away or
// timed out gets none.
void Session::on_read_error(beast::error_code ec) {
  if (ec == http::error::body_limit && file_parser_) {
    const Spool* spool = nullptr;
    if (const auto* h = header()) {
      Request probe;
      if (probe.set_target(h->target()))
        spool = state_.router.spool_for(std::string(h->method_string()), probe.segments);
    }
    // The partial body goes now; the header stays for the error page.
    file_parser_->get().body().close();
    if (!spool_path_.empty()) {
      std::error_code removed;
      std::filesystem::remove(spool_path_, removed);
      spool_path_.clear();
    }
    release_spool();
    return send_error(413, "Content too large",
                      spool != nullptr && !spool->too_large.empty()
                          ? spool->too_large
                          : "The upload is larger than this page accepts.");
  }
  if (ec == http::error::body_limit) {
    return send_error(413, "Content too large",
                      "The request body is larger than " +
                          std::to_string(state_.options.max_body_bytes) + " bytes.");
  }
  if (ec == http::error::header_limit) {
    return send_error(431, "Request header fields too large",
                      "The request headers are larger than " +
                          std::to_string(state_.options.max_header_bytes) + " bytes.");
  }
  bool parse_error = ec.category() == http::make_error_code(http::error::bad_method).category() &&
                     ec != http::error::end_of_stream && ec != http::error::partial_message;
  drop_spool();
  if (parse_error) return send_error(400, "Bad request", "The request is not valid HTTP/1.1.");
  close();
}

const http::request_header<>* Session::header() const {
  if (file_parser_) return &file_parser_->get();
  if (parser_ && parser_->is_header_done()) return &parser_->get();
  return nullptr;
}

bool Session::maybe_spool() {
  const auto& h = parser_->get();
  if (h.method() != http::verb::post) return true;
  if (multipart_boundary(h[http::field::content_type]).empty()) return true;
  Request probe;
  if (!probe.set_target(h.target())) return true;
  const Spool* spool = state_.router.spool_for("POST", probe.segments);
  if (spool == nullptr) return true;
  auto length = parser_->content_length();
  if (length && *length > spool->max_bytes) {
    // Answered before a byte of the body is read; the close lingers.
    file_parser_.emplace(std::move(*parser_));
    parser_.reset();
    on_read_error(http::error::body_limit);
    return false;
  }
  const std::string oops =
      "Something went wrong on our side. It has been logged; please try again later.";
  // Who may send one is decided on the headers: a refused body is never read.
  if (spool->admit) {
    Request asked = std::move(probe);  // its target is parsed
    Request from_header = request_from(h);
    asked.method = std::move(from_header.method);
    asked.remote_address = std::move(from_header.remote_address);
    asked.headers = std::move(from_header.headers);
    std::optional<Response> refusal;
    try {
      refusal = spool->admit(asked);
    } catch (const std::exception& e) {
      log::error(kLogger, "upload admission failed", {{"error", e.what()}});
      send_error(500, "Internal server error", oops);
      return false;
    }
    if (refusal) {
      refuse(std::move(*refusal));
      return false;
    }
  }
  std::size_t want = length ? static_cast<std::size_t>(*length) : spool->max_bytes;
  if (!state_.reserve_spool(want)) {
    log::warn(kLogger, "upload refused: too many uploads in flight", {{"bytes", want}});
    send_error(503, "Service unavailable",
               "Too many uploads are being received right now; please try again in a minute.",
               "60");
    return false;
  }
  spool_reserved_ = want;
  // Uploads are private: the folder and each body file are the server's alone.
  std::error_code made;
  std::filesystem::create_directories(spool->dir, made);
  std::filesystem::permissions(spool->dir, std::filesystem::perms::owner_all,
                               std::filesystem::perm_options::replace, made);
  std::string path = spool->dir + "/upload-" + random_token(12);
  file_parser_.emplace(std::move(*parser_));
  parser_.reset();
  file_parser_->body_limit(spool->max_bytes);
  beast::error_code ec;
  file_parser_->get().body().open(path.c_str(), beast::file_mode::write_new, ec);
  if (!ec && ::fchmod(file_parser_->get().body().file().native_handle(), 0600) != 0)
    ec = beast::error_code(errno, beast::system_category());
  if (ec) {
    log::error(kLogger, "cannot spool an upload", {{"file", path}, {"error", ec.message()}});
    file_parser_->get().body().close();
    std::error_code removed;
    std::filesystem::remove(path, removed);
    release_spool();
    send_error(500, "Internal server error", oops);
    return false;
  }
  spool_path_ = path;
  return true;
}

void Session::release_spool() {
  if (spool_reserved_ == 0) return;
  state_.release_spool(spool_reserved_);
  spool_reserved_ = 0;
}

void Session::refuse(Response response) {
  phase_ = Phase::answering;
  log::Scope scope(log::new_scope_id("req"));
  const auto& h = parser_->get();
  log::debug(kLogger, "upload refused before its body",
             {{"method", std::string(h.method_string())},
              {"path", target_for_log(h.target())},
              {"status", response.status},
              {"remote", remote_}});
  write(std::move(response), false, Then::linger, h.version());
}

void Session::drop_spool() {
  file_parser_.reset();  // closes the body file
  release_spool();
  if (spool_path_.empty()) return;
  std::error_code ec;
  std::filesystem::remove(spool_path_, ec);
  spool_path_.clear();
}

// The same as answer(), for a body spooled to a file: the handler reads
// Request::body_file, which is removed once it has returned.
void Session::answer_spooled() {
  phase_ = Phase::answering;
  http::request<http::file_body> msg = file_parser_->release();
  msg.body().close();
  log::Scope scope(log::new_scope_id("req"));
  auto started = std::chrono::steady_clock::now();
  Request request = request_from(msg);
  request.body_file = spool_path_;
  Response response;
  if (Status s = request.set_target(msg.target()); !s) {
    response = Response::problem(400, "Bad request", "The request target is not a valid path.");
  } else {
    response = respond(request);
  }
  drop_spool();
  Then then = msg.keep_alive() && !state_.stopping ? Then::next_request : Then::close;
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                  started);
  log::debug(kLogger, "request",
             {{"method", request.method},
              {"path", path_for_log(request.path)},
              {"status", response.status},
              {"ms", ms.count()},
              {"spooled", true},
              {"remote", remote_}});
  write(std::move(response), false, then, msg.version());
}

Request Session::request_from(const http::request_header<>& msg) {
  Request request;
  request.method = std::string(msg.method_string());
  request.remote_address = remote_;
  for (const auto& field : msg) {
    request.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
  }
  return request;
}

void Session::answer() {
  phase_ = Phase::answering;
  http::request<http::string_body> msg = parser_->release();
  log::Scope scope(log::new_scope_id("req"));
  auto started = std::chrono::steady_clock::now();
  Request request = request_from(msg);
  request.body = std::move(msg.body());
  Response response;
  if (Status s = request.set_target(msg.target()); !s) {
    response = Response::problem(400, "Bad request", "The request target is not a valid path.");
  } else {
    response = respond(request);
  }
  Then then = msg.keep_alive() && !state_.stopping ? Then::next_request : Then::close;
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                  started);
  log::debug(kLogger, "request",
             {{"method", request.method},
              {"path", path_for_log(request.path)},
              {"status", response.status},
              {"ms", ms.count()},
              {"bytes", response.body.size()},
              {"remote", remote_}});
  write(std::move(response), request.method == "HEAD", then, msg.version());
}

// Runs the handler; an exception is logged and becomes a generic 500.
Response Session::respond(Request& request) {
  const Router& router = state_.router;
  try {
    if (is_static_path(request) && !state_.options.static_dir.empty()) {
      return serve_static(state_.options.static_dir, request, router);
    }
    return router.dispatch(request);
  } catch (const std::exception& e) {
    log::error(
        kLogger, "request failed",
        {{"method", request.method}, {"path", path_for_log(request.path)}, {"error", e.what()}});
  } catch (...) {
    log::error(kLogger, "request failed",
               {{"method", request.method},
                {"path", path_for_log(request.path)},
                {"error", "unknown exception"}});
  }
  const std::string detail =
      "Something went wrong on our side. It has been logged; please try again later.";
  try {
    return router.error(request, 500, "Internal server error", detail);
  } catch (...) {
    return plain_error_page(request, 500, "Internal server error", detail);
  }
}

// Answers a request that could not be read whole, then closes: the rest of
// the stream cannot be trusted to start at a request boundary.
void Session::send_error(int status, const std::string& title, const std::string& detail,
                         const std::string& retry_after) {
  phase_ = Phase::answering;
  log::Scope scope(log::new_scope_id("req"));
  Response response = Response::problem(status, title, detail);
  Request request;
  if (const auto* h = header()) {
    request = request_from(*h);
    if (request.set_target(h->target()))
      response = state_.router.error(request, status, title, detail);
  }
  if (!retry_after.empty()) response.set_header("Retry-After", retry_after);
  log::debug(kLogger, "request refused",
             {{"method", request.method},
              {"path", path_for_log(request.path)},
              {"status", status},
              {"remote", remote_}});
  write(std::move(response), request.method == "HEAD", Then::linger, 11);
}

void Session::write(Response response, bool head, Then then, unsigned version) {
  add_security_headers(response);
  if (!response.body_file.empty()) return write_file(std::move(response), head, then, version);
  auto msg = std::make_shared<http::response<http::string_body>>(
      static_cast<http::status>(response.status), version);
  for (auto& [name, value] : response.headers) {
    if (header_safe(name) && header_safe(value)) {
      msg->insert(name, value);
    } else {
      log::error(kLogger, "header dropped: it contains a line break", {{"header", name}});
    }
  }
  msg->keep_alive(then == Then::next_request);
  bool bodiless = response.status < 200 || response.status == 204 || response.status == 304;
  if (bodiless) {
    // These never carry a body nor a Content-Length (RFC 9110 §8.6).
  } else if (head) {
    msg->content_length(response.body.size());  // what GET would send; no body
  } else {
    msg->body() = std::move(response.body);
    msg->prepare_payload();
  }
  out_ = msg;
  stream_.expires_after(state_.options.read_timeout);
  http::async_write(stream_, *msg,
                    [self = shared_from_this(), then](beast::error_code ec, std::size_t) {
                      self->out_.reset();
                      if (ec || then == Then::close) return self->close();
                      if (then == Then::linger) return self->linger();
                      self->wait_for_request();
                    });
}

// A response whose body is a file on disk, sent in pieces by Beast.
void Session::write_file(Response response, bool head, Then then, unsigned version) {
  http::file_body::value_type body;
  beast::error_code ec;
  body.open(response.body_file.c_str(), beast::file_mode::scan, ec);
  if (ec) {
    log::warn(kLogger, "a file to send cannot be opened",
              {{"file", response.body_file}, {"error", ec.message()}});
    Response missing = Response::text(404, "Not found\n");
    add_security_headers(missing);
    return write(std::move(missing), head, then, version);
  }
  auto fill = [&](auto& msg) {
    for (auto& [name, value] : response.headers) {
      if (header_safe(name) && header_safe(value)) {
        msg.insert(name, value);
      } else {
        log::error(kLogger, "header dropped: it contains a line break", {{"header", name}});
      }
    }
    msg.keep_alive(then == Then::next_request);
    msg.content_length(body.size());
  };
  auto done = [self = shared_from_this(), then](beast::error_code e, std::size_t) {
    self->out_.reset();
    if (e || then == Then::close) return self->close();
    if (then == Then::linger) return self->linger();
    self->wait_for_request();
  };
  stream_.expires_after(state_.options.read_timeout);
  if (head) {
    // What GET would send, without the body.
    auto msg = std::make_shared<http::response<http::empty_body>>(
        static_cast<http::status>(response.status), version);
    fill(*msg);
    out_ = msg;
    http::async_write(stream_, *msg, std::move(done));
    return;
  }
  auto msg = std::make_shared<http::response<http::file_body>>(
      static_cast<http::status>(response.status), version);
  fill(*msg);
  msg->body() = std::move(body);
  out_ = msg;
  http::async_write(stream_, *msg, std::move(done));
}

// A lingering close: stop sending, then read and drop whatever the client
// still sends for a moment, so a response to a request whose body we did not
// read is not destroyed by a TCP reset.
void Session::linger() {
  if (phase_ != Phase::closing) {
    phase_ = Phase::closing;
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
    stream_.expires_after(kLingerTime);
  }
  stream_.async_read_some(asio::buffer(scratch_), [self = shared_from_this()](beast::error_code ec,
                                                                              std::size_t n) {
    self->drained_ += n;
    if (ec || self->drained_ >
                  std::max(self->state_.options.max_body_bytes, self->state_.max_spool_bytes) * 2)
      return self->close();
    self->linger();
  });
}

void Session::close() {
  phase_ = Phase::closing;
  beast::error_code ec;
  stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
  stream_.close();
}

std::string endpoint_text(const std::string& host, std::uint16_t port) {
  bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

}  // namespace

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
    // Out of file descriptors and the like: back off instead of spinning.
    log::warn(kLogger, "accept failed", {{"error", ec.message()}});
    timer.expires_after(std::chrono::milliseconds(100));
    timer.async_wait([this](beast::error_code e) {
      if (!e && !stopping) accept();
    });
    return;
  }
  auto session = std::make_shared<Session>(std::move(socket), *this);
  {
    std::lock_guard lock(mu);
    sessions.emplace(session.get(), session);
  }
  session->start();
  accept();
}

void Server::State::forget(Session* s) {
  std::lock_guard lock(mu);
  sessions.erase(s);
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
