// Streamed uploads (web::Server): a multipart POST to a route with a Spool
// is admitted on its headers, reserved against the spool budget, and its body
// written to a private file that the handler reads as Request::body_file.
#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <filesystem>

#include "core/log.h"
#include "core/token.h"
#include "http/multipart.h"
#include "http/server_internal.h"

namespace peto::web::server_detail {

bool Session::maybe_spool() {
  const auto& h = parser_->get();
  if (h.method() != http::verb::post) return true;
  if (multipart_boundary(h[http::field::content_type]).empty()) return true;
  const Spool* spool = route_ != nullptr && route_->spool ? &*route_->spool : nullptr;
  if (spool == nullptr) return true;
  auto length = parser_->content_length();
  if (length && *length > spool->max_bytes) {
    // Answered before a byte of the body is read; the close lingers.
    file_parser_.emplace(std::move(*parser_));
    parser_.reset();
    on_read_error(http::error::body_limit);
    return false;
  }
  auto holder = admit_spool(*spool);
  if (!holder) return false;
  if (!take_spool(length ? static_cast<std::size_t>(*length) : spool->max_bytes, *holder))
    return false;
  const std::string oops =
      "Something went wrong on our side. It has been logged; please try again later.";
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

std::optional<std::string> Session::admit_spool(const Spool& spool) {
  if (!spool.admit) return std::string();
  Admission admitted;
  try {
    admitted = spool.admit(header_request());
  } catch (const std::exception& e) {
    log::error(kLogger, "upload admission failed", {{"error", e.what()}});
    send_error(500, "Internal server error",
               "Something went wrong on our side. It has been logged; please try again later.");
    return std::nullopt;
  }
  if (admitted.refusal) {
    refuse(std::move(*admitted.refusal));
    return std::nullopt;
  }
  return std::move(admitted.holder);
}

bool Session::take_spool(std::size_t bytes, const std::string& holder) {
  switch (state_.reserve_spool(bytes, holder)) {
    case Server::State::SpoolTaken::yes:
      spool_reserved_ = bytes;
      spool_holder_ = holder;
      return true;
    case Server::State::SpoolTaken::holder_busy:
      log::info(kLogger, "upload refused: another of the same holder is being received",
                {{"holder", holder}});
      send_error(429, "Too many requests",
                 "Another upload of yours is still being received; send this one when it is done.",
                 "60");
      return false;
    case Server::State::SpoolTaken::budget_full:
      break;
  }
  log::warn(kLogger, "upload refused: too many uploads in flight", {{"bytes", bytes}});
  send_error(503, "Service unavailable",
             "Too many uploads are being received right now; please try again in a minute.", "60");
  return false;
}

void Session::release_spool() {
  if (spool_reserved_ == 0) return;
  state_.release_spool(spool_reserved_, spool_holder_);
  spool_reserved_ = 0;
  spool_holder_.clear();
}

void Session::refuse(Response response) {
  phase_ = Phase::answering;
  log::Scope scope(log::new_scope_id("req"));
  const auto& h = parser_->get();
  log::debug(kLogger, "refused before its body",
             {{"method", std::string(h.method_string())},
              {"path", state_.router.path_for_log(probe_)},  // an invalid target logs as ""
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
  Response response = answer_target(request, msg.target());
  drop_spool();
  Then then = msg.keep_alive() && !state_.stopping ? Then::next_request : Then::close;
  log_answer(request, response, started, true);
  write(std::move(response), false, then, msg.version());
}

}  // namespace peto::web::server_detail
