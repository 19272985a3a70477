#include "http/multipart.h"
#include "core/text.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <vector>

namespace peto::web {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kChunk = 64 * 1024;
constexpr std::size_t kHeadKeep = 64 * 1024;
constexpr std::size_t kMaxPartHeader = 16 * 1024;
constexpr std::size_t kMaxField = 64 * 1024;
// All text fields together: what kMultipartMargin leaves room for, and a
// count that bounds the bookkeeping of many empty ones.
constexpr std::size_t kMaxFieldBytes = kMultipartMargin;
constexpr std::size_t kMaxFields = 1000;

bool iequal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

using text::trim;

// The parameter `name` of a header value like `form-data; name="x"; filename="y"`.
// Quoted values may hold ';' and backslash escapes.
std::optional<std::string> header_param(std::string_view value, std::string_view name) {
  std::size_t i = value.find(';');
  while (i != std::string_view::npos && i < value.size()) {
    ++i;
    while (i < value.size() && (value[i] == ' ' || value[i] == '\t')) ++i;
    std::size_t eq = value.find('=', i);
    if (eq == std::string_view::npos) return std::nullopt;
    std::string_view key = trim(value.substr(i, eq - i));
    std::size_t j = eq + 1;
    std::string out;
    if (j < value.size() && value[j] == '"') {
      ++j;
      while (j < value.size() && value[j] != '"') {
        if (value[j] == '\\' && j + 1 < value.size()) ++j;
        out += value[j++];
      }
      if (j < value.size()) ++j;  // the closing quote
    } else {
      std::size_t end = value.find(';', j);
      out = std::string(trim(value.substr(j, end == std::string_view::npos ? end : end - j)));
      j = end == std::string_view::npos ? value.size() : end;
    }
    if (iequal(key, name)) return out;
    i = value.find(';', j);
  }
  return std::nullopt;
}

// The bytes of the body, from a file or from memory.
using Reader = std::function<std::size_t(char* out, std::size_t n)>;

class Parser {
 public:
  Parser(Reader read, std::string boundary)
      : read_(std::move(read)), delim_("\r\n--" + std::move(boundary)) {
    // The first boundary has no CRLF before it; one is put there so every
    // delimiter looks the same.
    buf_ = "\r\n";
  }

  Status run(std::vector<std::pair<std::string, std::string>>& fields, const PartHandler& on_file) {
    // The preamble, up to the first delimiter, is skipped.
    if (Status s = skip_to_delimiter(); !s) return s;
    while (true) {
      // After a delimiter: "--" ends the body, else CRLF starts a part.
      if (!need(2)) return bad("the body ends after a boundary");
      if (buf_.compare(0, 2, "--") == 0) return Status::ok();
      std::size_t eol = find_line_end();
      if (eol == std::string::npos) return bad("a boundary line does not end");
      buf_.erase(0, eol + 2);
      Part part;
      if (Status s = read_headers(part); !s) return s;
      if (part.filename.empty() && !is_file_) {
        if (fields.size() >= kMaxFields) return Status::invalid("the form has too many fields");
        std::string value;
        Status s = read_data([&](std::string_view chunk) {
          if (value.size() + chunk.size() > kMaxField)
            return Status::invalid("the form field " + part.name + " is too long");
          if (field_bytes_ + value.size() + chunk.size() > kMaxFieldBytes)
            return Status::invalid("the form's fields are too long together");
          value.append(chunk);
          return Status::ok();
        });
        if (!s) return s;
        field_bytes_ += part.name.size() + value.size();
        fields.emplace_back(part.name, std::move(value));
      } else {
        Sink* sink = on_file ? on_file(part) : nullptr;
        Status s = read_data([&](std::string_view chunk) {
          return sink != nullptr ? sink->write(chunk) : Status::ok();
        });
        if (!s) return s;
      }
    }
  }

 private:
  static Status bad(const std::string& why) {
    return Status::invalid("The form could not be read: " + why + ".");
  }

  // Reads until buf_ holds at least n bytes; false at the end of the body.
  bool need(std::size_t n) {
    while (buf_.size() < n) {
      if (!more()) return false;
    }
    return true;
  }
  bool more() {
    if (eof_) return false;
    char tmp[kChunk];
    std::size_t got = read_(tmp, sizeof tmp);
    if (got == 0) {
      eof_ = true;
      return false;
    }
    buf_.append(tmp, got);
    return true;
  }

  // The end of the line at the start of buf_ (transport padding allowed).
  std::size_t find_line_end() {
    while (true) {
      std::size_t at = buf_.find("\r\n");
      if (at != std::string::npos) return at;
      if (buf_.size() > 1024 || !more()) return std::string::npos;
    }
  }

  Status skip_to_delimiter() {
    while (true) {
      std::size_t at = buf_.find(delim_);
      if (at != std::string::npos) {
        buf_.erase(0, at + delim_.size());
        return Status::ok();
      }
      if (buf_.size() > delim_.size()) buf_.erase(0, buf_.size() - delim_.size());
      if (!more()) return bad("it has no boundary");
    }
  }

  Status read_headers(Part& part) {
    std::size_t end;
    while ((end = buf_.find("\r\n\r\n")) == std::string::npos) {
      if (buf_.size() > kMaxPartHeader) return bad("a part's headers are too long");
      if (!more()) return bad("a part's headers do not end");
    }
    std::string_view headers(buf_.data(), end + 2);
    is_file_ = false;
    while (!headers.empty()) {
      std::size_t eol = headers.find("\r\n");
      std::string_view line = headers.substr(0, eol);
      headers.remove_prefix(eol + 2);
      std::size_t colon = line.find(':');
      if (colon == std::string_view::npos) continue;
      std::string_view name = trim(line.substr(0, colon));
      std::string_view value = trim(line.substr(colon + 1));
      if (iequal(name, "Content-Disposition")) {
        part.name = header_param(value, "name").value_or("");
        if (auto f = header_param(value, "filename")) {
          is_file_ = true;
          std::string file = *f;
          std::size_t slash = file.find_last_of("/\\");
          part.filename = slash == std::string::npos ? file : file.substr(slash + 1);
        }
      } else if (iequal(name, "Content-Type")) {
        part.content_type = std::string(value);
      }
    }
    buf_.erase(0, end + 4);
    return Status::ok();
  }

  // Hands the part's data to `emit` up to the next delimiter, which is consumed.
  template <typename Emit>
  Status read_data(Emit emit) {
    while (true) {
      std::size_t at = buf_.find(delim_);
      if (at != std::string::npos) {
        if (at > 0)
          if (Status s = emit(std::string_view(buf_.data(), at)); !s) return s;
        buf_.erase(0, at + delim_.size());
        return Status::ok();
      }
      // Everything but what could be the start of a delimiter is data.
      if (buf_.size() >= delim_.size()) {
        std::size_t safe = buf_.size() - (delim_.size() - 1);
        if (Status s = emit(std::string_view(buf_.data(), safe)); !s) return s;
        buf_.erase(0, safe);
      }
      if (!more()) return bad("it ends inside a part");
    }
  }

  Reader read_;
  std::string delim_;
  std::string buf_;
  bool eof_ = false;
  bool is_file_ = false;
  std::size_t field_bytes_ = 0;  // names and values of the text fields read so far
};

}  // namespace

FileSink::FileSink(fs::path path, std::int64_t max_bytes)
    : path_(std::move(path)), max_bytes_(max_bytes) {
  std::error_code ec;
  fs::create_directories(path_.parent_path(), ec);
  int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd >= 0) out_ = ::fdopen(fd, "wb");
  if (out_ == nullptr) {
    if (fd >= 0) ::close(fd);
    failed_ = true;
  }
}

FileSink::~FileSink() {
  if (out_ != nullptr) std::fclose(out_);
  if (!keep_) {
    std::error_code ec;
    fs::remove(path_, ec);
  }
}

Status FileSink::write(std::string_view chunk) {
  if (failed_) return Status::internal("cannot write " + path_.string());
  if (size_ + static_cast<std::int64_t>(chunk.size()) > max_bytes_) {
    too_large_ = true;
    return Status::invalid("The file is too large.");
  }
  if (std::fwrite(chunk.data(), 1, chunk.size(), out_) != chunk.size()) {
    failed_ = true;
    return Status::internal("cannot write " + path_.string() + ": " + std::strerror(errno));
  }
  sum_.update(chunk);
  if (head_.size() < kHeadKeep)
    head_.append(chunk.substr(0, std::min(chunk.size(), kHeadKeep - head_.size())));
  size_ += static_cast<std::int64_t>(chunk.size());
  return Status::ok();
}

Status FileSink::finish() {
  if (failed_ || out_ == nullptr) return Status::internal("cannot write " + path_.string());
  bool ok = std::fflush(out_) == 0 && ::fsync(::fileno(out_)) == 0;
  ok = std::fclose(out_) == 0 && ok;
  out_ = nullptr;
  if (!ok) {
    failed_ = true;
    return Status::internal("cannot write " + path_.string());
  }
  sha256_ = sum_.hex_digest();
  return Status::ok();
}

std::string multipart_boundary(std::string_view content_type) {
  std::size_t semi = content_type.find(';');
  if (!iequal(trim(content_type.substr(0, semi)), "multipart/form-data")) return "";
  std::string b = header_param(content_type, "boundary").value_or("");
  if (b.empty() || b.size() > 200) return "";
  return b;
}

Status read_multipart(const BodyReader& read, std::string_view content_type, Form& fields,
                      const PartHandler& on_file) {
  std::string boundary = multipart_boundary(content_type);
  if (boundary.empty()) return Status::invalid("The form was not sent as multipart/form-data.");
  std::vector<std::pair<std::string, std::string>> got;
  Parser parser(read, boundary);
  Status s = parser.run(got, on_file);
  fields = Form::from_pairs(std::move(got));
  return s;
}

Status read_multipart(const fs::path& body_path, std::string_view content_type, Form& fields,
                      const PartHandler& on_file) {
  if (multipart_boundary(content_type).empty())
    return Status::invalid("The form was not sent as multipart/form-data.");
  std::ifstream in(body_path, std::ios::binary);
  if (!in) return Status::internal("cannot read " + body_path.string());
  return read_multipart(
      [&](char* out, std::size_t n) {
        in.read(out, static_cast<std::streamsize>(n));
        return static_cast<std::size_t>(std::max<std::streamsize>(0, in.gcount()));
      },
      content_type, fields, on_file);
}

Status read_multipart(const Request& r, Form& fields, const PartHandler& on_file) {
  const std::string* type = r.header("Content-Type");
  std::string content_type = type != nullptr ? *type : "";
  if (!r.body_file.empty()) return read_multipart(r.body_file, content_type, fields, on_file);
  std::size_t pos = 0;
  return read_multipart(
      [&](char* out, std::size_t n) {
        std::size_t take = std::min(n, r.body.size() - pos);
        std::copy_n(r.body.data() + pos, take, out);
        pos += take;
        return take;
      },
      content_type, fields, on_file);
}

}  // namespace peto::web
