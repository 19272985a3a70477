// A connection's loop (web::Server): wait for a request, read its header and
// body under the limits, dispatch it to the router, answer, and go round
// again while the connection is kept alive. What the logs show of a path is
// Router::path_for_log.
#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "core/log.h"
#include "core/text.h"
#include "http/client_address.h"
#include "http/server_internal.h"
#include "http/static_files.h"

namespace peto::web::server_detail {

int framing_refusal(const http::request_header<>& h) {
  auto [first, last] = h.equal_range(http::field::transfer_encoding);
  if (first == last) return 0;
  std::vector<std::string> codings;
  for (auto it = first; it != last; ++it) {
    for (std::string_view item : text::split(it->value(), ',')) {
      std::string coding = text::lower(text::trim(item));
      if (!coding.empty()) codings.push_back(std::move(coding));
    }
  }
  if (codings.empty()) return 400;
  for (std::size_t i = 0; i + 1 < codings.size(); ++i)
    if (codings[i] == "chunked") return 400;  // only once, and last
  for (const std::string& coding : codings)
    if (coding != "chunked") return 501;
  const bool plain = h.version() == 11 && h.find(http::field::content_length) == h.end();
  return plain ? 0 : 400;
}

// Waits for the first byte of the next request under the idle timeout; the
// read timeout starts only once a request has begun.
void Session::wait_for_request() {
  phase_ = Phase::idle;
  if (state_.stopping) return close();
  if (buffer_.size() > 0) return read_request();  // pipelined
  stream_.expires_after(state_.crowded() ? state_.options.crowded_idle_timeout
                                         : state_.options.idle_timeout);
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
  if (int status = framing_refusal(*header()); status != 0)
    return send_error(status, status == 501 ? "Not implemented" : "Bad request",
                      "The request body's framing is not one this server reads: send it with "
                      "a Content-Length, or Transfer-Encoding: chunked alone.");
  // The request's route, found once on its header: its body limit, its spool.
  probe_ = Request();
  route_ = probe_.set_target(header()->target())
               ? state_.router.route_for(header()->method_string(), probe_.segments)
               : nullptr;
  if (!maybe_spool()) return;
  if (!file_parser_) {
    body_limit_ = route_ != nullptr && route_->max_body_bytes > 0 ? route_->max_body_bytes
                                                                  : state_.options.max_body_bytes;
    auto length = parser_->content_length();
    if (length && *length > body_limit_) return on_read_error(http::error::body_limit);
    parser_->body_limit(body_limit_);
    const bool has_body = parser_->chunked() || parser_->content_length().value_or(0) > 0;
    if (has_body && route_ != nullptr && route_->admit && !admit_body()) return;
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

Request Session::header_request() {
  Request asked = probe_;  // its target is parsed
  Request from_header = request_from(*header());
  asked.method = std::move(from_header.method);
  asked.remote_address = std::move(from_header.remote_address);
  asked.headers = std::move(from_header.headers);
  return asked;
}

bool Session::admit_body() {
  std::optional<Response> refusal;
  try {
    refusal = route_->admit(header_request());
  } catch (const std::exception& e) {
    log::error(kLogger, "admission failed", {{"error", e.what()}});
    send_error(500, "Internal server error",
               "Something went wrong on our side. It has been logged; please try again later.");
    return false;
  }
  if (!refusal) return true;
  refuse(std::move(*refusal));
  return false;
}

// Limits and malformed requests get an answer; a client that went away or
// timed out gets none.
void Session::on_read_error(beast::error_code ec) {
  if (ec == http::error::body_limit && file_parser_) {
    const Spool* spool = route_ != nullptr && route_->spool ? &*route_->spool : nullptr;
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
                      "The request body is larger than " + std::to_string(body_limit_) + " bytes.");
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

Request Session::request_from(const http::request_header<>& msg) {
  Request request;
  request.method = std::string(msg.method_string());
  for (const auto& field : msg) {
    request.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
  }
  request.remote_address = client_address(remote_, request.headers, state_.options.trusted_proxies);
  request.scheme = client_scheme(remote_, request.headers, state_.options.trusted_proxies);
  return request;
}

void Session::answer() {
  phase_ = Phase::answering;
  http::request<http::string_body> msg = parser_->release();
  log::Scope scope(log::new_scope_id("req"));
  auto started = std::chrono::steady_clock::now();
  Request request = request_from(msg);
  request.body = std::move(msg.body());
  Response response = answer_target(request, msg.target());
  Then then = msg.keep_alive() && !state_.stopping ? Then::next_request : Then::close;
  log_answer(request, response, started, false);
  write(std::move(response), request.method == "HEAD", then, msg.version());
}

Response Session::answer_target(Request& request, std::string_view target) {
  if (Status s = request.set_target(target); !s)
    return Response::problem(
        400, "Bad request",
        "The request target is not a valid path, or is not UTF-8 once decoded.");
  return respond(request);
}

void Session::log_answer(const Request& request, const Response& response,
                         std::chrono::steady_clock::time_point started, bool spooled) const {
  if (!log::enabled(log::Level::debug)) return;
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                  started);
  nlohmann::json fields = {{"method", request.method},
                           {"path", state_.router.path_for_log(request)},
                           {"status", response.status},
                           {"ms", ms.count()},
                           {"remote", request.remote_address}};
  if (spooled)
    fields["spooled"] = true;
  else
    fields["bytes"] = response.body.size();
  log::debug(kLogger, "request", fields);
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
    log::error(kLogger, "request failed",
               {{"method", request.method},
                {"path", state_.router.path_for_log(request)},
                {"error", e.what()}});
  } catch (...) {
    log::error(kLogger, "request failed",
               {{"method", request.method},
                {"path", state_.router.path_for_log(request)},
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

}  // namespace peto::web::server_detail
