// Answers on a connection (web::Server): a response from memory or from a
// file, an error for a request that could not be read whole, and the
// lingering close that lets the client read it.
#include "core/log.h"
#include "http/http.h"
#include "http/server_internal.h"

namespace peto::web::server_detail {

namespace {

// After the last response on a connection, how long unread client bytes are
// drained before closing (so the client reads our answer instead of a reset).
constexpr auto kLingerTime = std::chrono::seconds(2);

// A CR or LF in a header would let data (a redirect target, a file name)
// start a header or a body of its own.
bool header_safe(std::string_view text) {
  return text.find_first_of(std::string_view("\r\n\0", 3)) == std::string_view::npos;
}

}  // namespace

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
              {"path", state_.router.path_for_log(request)},
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

}  // namespace peto::web::server_detail
