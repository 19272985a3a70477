// Multipart: uploads read from disk in chunks, never whole in memory.
//
// How an upload reaches a handler:
//
//   1. Register the route as streamed, with where the raw body is spooled and
//      how large it may be (the file limit plus a little for the envelope):
//
//        router.add_streamed("POST", "/documents/new", handler,
//                            {.dir = config.data_dir + "/tmp",
//                             .max_bytes = (config.upload_max_mb << 20) + kMultipartMargin,
//                             .too_large = "The file is larger than 25 MB."});
//
//   2. For a multipart/form-data POST to that route the server writes the body
//      to a new file in `dir` (413 with `too_large` when it is larger, and the
//      partial file removed) and sets Request::body_file; Request::body stays
//      empty. The file is removed once the handler has returned. Any other
//      request to the route is read as usual. The CSRF field of such a form
//      is read from the file by Site::signed_in.
//
//   3. In the handler, read the parts in one pass: text fields are collected
//      (each at most 64 KB) and each file part goes to the Sink the handler
//      returns for it (nullptr skips it). FileSink writes a part to a file
//      while hashing it and keeping its first bytes for sniffing:
//
//        std::optional<web::FileSink> file;
//        web::Form fields;
//        Status s = web::read_multipart(r, fields, [&](const web::Part& p) -> web::Sink* {
//          if (p.name != "file" || file) return nullptr;
//          file.emplace(target_path, max_file_bytes);
//          return &*file;
//        });
//        if (!s) ... s.message() ...        // malformed, or a file over its limit
//        file->finish(); file->keep();      // else the destructor removes the file
//
// Plain values; one thread at a time.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

#include "core/status.h"
#include "core/token.h"
#include "http/form.h"
#include "http/http.h"

namespace peto::web {

// Room for the multipart envelope (boundaries, part headers, text fields)
// on top of the largest file a streamed route accepts.
inline constexpr std::size_t kMultipartMargin = 256 * 1024;

struct Part {
  std::string name;          // the form field
  std::string filename;      // as sent, without any folder; "" for a text field
  std::string content_type;  // as sent (never trusted)
};

class Sink {
 public:
  virtual ~Sink() = default;
  // A Status that is not ok stops the reading with that Status.
  virtual Status write(std::string_view chunk) = 0;
};

// Writes a part to a new file (mode 0600, folders made), counting its size,
// hashing it (SHA-256) and keeping its first 64 KB. More than `max_bytes`
// stops the reading with Status::invalid, and too_large() is then true.
// Unless keep() is called, the destructor removes the file.
class FileSink final : public Sink {
 public:
  FileSink(std::filesystem::path path, std::int64_t max_bytes);
  ~FileSink() override;
  FileSink(const FileSink&) = delete;
  FileSink& operator=(const FileSink&) = delete;

  Status write(std::string_view chunk) override;
  // Flushes and closes the file and computes the hash; call once, at the end.
  Status finish();
  void keep() { keep_ = true; }

  const std::filesystem::path& path() const { return path_; }
  std::int64_t size() const { return size_; }
  const std::string& sha256() const { return sha256_; }  // hex, after finish()
  const std::string& head() const { return head_; }
  bool too_large() const { return too_large_; }

 private:
  std::filesystem::path path_;
  std::int64_t max_bytes_;
  std::FILE* out_ = nullptr;
  std::int64_t size_ = 0;
  std::string head_;
  std::string sha256_;
  Sha256 sum_;
  bool keep_ = false;
  bool failed_ = false;
  bool too_large_ = false;
};

// The boundary of a multipart/form-data Content-Type; "" when it is not one.
std::string multipart_boundary(std::string_view content_type);

using PartHandler = std::function<Sink*(const Part&)>;

// The bytes of a body in pieces: fills up to `n` bytes at `out` and returns
// how many (fewer than asked is fine), 0 at the end of the body.
using BodyReader = std::function<std::size_t(char* out, std::size_t n)>;

// Reads a multipart body (Content-Type `content_type`) from `read`, in the
// pieces it gives: what the two functions below do once they have the bytes.
Status read_multipart(const BodyReader& read, std::string_view content_type, Form& fields,
                      const PartHandler& on_file);

// Reads the multipart body in `body_path` (Content-Type `content_type`) in
// chunks: text parts go to `fields` (in order), file parts (those with a
// filename) to the Sink `on_file` returns. Status::invalid for a body that is
// not well-formed multipart, a text field over 64 KB, text fields over
// kMultipartMargin together or more than 1000 of them, or what a Sink said.
Status read_multipart(const std::filesystem::path& body_path, std::string_view content_type,
                      Form& fields, const PartHandler& on_file);
// The same for a request: its body_file, else its in-memory body.
Status read_multipart(const Request& r, Form& fields, const PartHandler& on_file);

}  // namespace peto::web
