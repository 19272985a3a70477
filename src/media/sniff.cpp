#include "media/sniff.h"

#include <magic.h>
#include <zip.h>

#include <array>
#include <fstream>
#include <memory>

namespace peto::media {

namespace {

constexpr std::size_t kHeadBytes = 64 * 1024;

struct Allowed {
  const char* type;
  const char* extension;
};

// What libmagic may say, and what peto then stores and serves.
constexpr std::array<Allowed, 16> kAllowed = {{
    {"application/pdf", "pdf"},
    {"image/png", "png"},
    {"image/jpeg", "jpg"},
    {"image/gif", "gif"},
    {"image/webp", "webp"},
    {"text/plain", "txt"},
    {"text/markdown", "md"},
    {"text/rtf", "rtf"},
    {"application/rtf", "rtf"},
    {"application/msword", "doc"},
    {"application/vnd.openxmlformats-officedocument.wordprocessingml.document", "docx"},
    {"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "xlsx"},
    {"application/vnd.openxmlformats-officedocument.presentationml.presentation", "pptx"},
    {"application/vnd.oasis.opendocument.text", "odt"},
    {"application/vnd.oasis.opendocument.spreadsheet", "ods"},
    {"application/vnd.oasis.opendocument.presentation", "odp"},
}};

struct MagicCloser {
  void operator()(magic_t m) const { magic_close(m); }
};

// One handle per thread: a libmagic handle is not safe to share.
magic_t magic_handle() {
  thread_local std::unique_ptr<std::remove_pointer_t<magic_t>, MagicCloser> handle = [] {
    magic_t m = magic_open(MAGIC_MIME_TYPE | MAGIC_ERROR);
    if (m != nullptr && magic_load(m, nullptr) != 0) {
      magic_close(m);
      m = nullptr;
    }
    return std::unique_ptr<std::remove_pointer_t<magic_t>, MagicCloser>(m);
  }();
  return handle.get();
}

Sniffed classify(const std::string& detected) {
  Sniffed s;
  s.detected = detected;
  for (const auto& a : kAllowed) {
    if (detected == a.type) {
      s.allowed = true;
      // RTF has two names; one is served.
      s.content_type = std::string(a.extension) == "rtf" ? "application/rtf" : a.type;
      s.extension = a.extension;
      return s;
    }
  }
  return s;
}

bool is_zip(std::string_view bytes) { return bytes.size() >= 4 && bytes.substr(0, 4) == "PK\3\4"; }

// An OOXML or OpenDocument file, told by its entries; "" for any other zip.
std::string zip_document_type(const std::string& path) {
  int err = 0;
  zip_t* za = zip_open(path.c_str(), ZIP_RDONLY, &err);
  if (za == nullptr) return "";
  std::string type;
  auto has = [&](const char* name) { return zip_name_locate(za, name, 0) >= 0; };
  if (has("[Content_Types].xml")) {
    if (has("word/document.xml"))
      type = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
    else if (has("xl/workbook.xml"))
      type = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";
    else if (has("ppt/presentation.xml"))
      type = "application/vnd.openxmlformats-officedocument.presentationml.presentation";
  } else if (zip_int64_t at = zip_name_locate(za, "mimetype", 0); at >= 0) {
    if (zip_file_t* f = zip_fopen_index(za, static_cast<zip_uint64_t>(at), 0)) {
      char buf[128] = {};
      zip_int64_t n = zip_fread(f, buf, sizeof buf - 1);
      zip_fclose(f);
      if (n > 0) type.assign(buf, static_cast<std::size_t>(n));
      while (!type.empty() && (type.back() == '\n' || type.back() == '\r' || type.back() == ' '))
        type.pop_back();
    }
  }
  zip_discard(za);  // opened to read: nothing to write back
  return type;
}

}  // namespace

Sniffed sniff_bytes(std::string_view bytes) {
  if (bytes.empty()) return classify("application/x-empty");
  magic_t m = magic_handle();
  if (m == nullptr) return classify("");
  const char* type = magic_buffer(m, bytes.data(), std::min(bytes.size(), kHeadBytes));
  return classify(type != nullptr ? type : "");
}

Sniffed sniff_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string head(kHeadBytes, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(std::max<std::streamsize>(0, in.gcount())));
  Sniffed s = sniff_bytes(head);
  if (is_zip(head)) {
    // Whatever libmagic guessed from the first entries, a zip is what its
    // directory says it is.
    std::string type = zip_document_type(path);
    Sniffed z = classify(type);
    z.detected = s.detected.empty() ? "application/zip" : s.detected;
    return z;
  }
  return s;
}

}  // namespace peto::media
