// Sniff: an upload's type, read from its bytes (libmagic), never from its
// name or what the browser said.
//
//   auto t = media::sniff_file("/data/tmp/upload-1");
//   if (!t.allowed) refuse(t.refusal);     // "This kind of file is not accepted …"
//   else store(t.content_type, t.extension);
//
// Allowed: PDF, PNG, JPEG, GIF, WebP, plain text and Markdown, RTF, Word
// (.doc), the OOXML documents (docx, xlsx, pptx) and the OpenDocument ones
// (odt, ods, odp). libmagic may call an OOXML or OpenDocument file
// application/zip: a zip is accepted only when its own entries say what it
// is ([Content_Types].xml with word/, xl/ or ppt/; an OpenDocument
// `mimetype` entry). Everything else (programs, scripts, HTML, SVG, other
// archives…) is refused. Thread-safe (one libmagic handle per thread).
#pragma once

#include <string>
#include <string_view>

namespace peto::media {

struct Sniffed {
  bool allowed = false;
  std::string content_type;  // the type served, e.g. "application/pdf"
  std::string extension;     // without the dot, e.g. "pdf"; "" when refused
  std::string detected;      // what libmagic said, for logs and messages
};

// The type of `bytes` (the first few KB of a file are enough, except for a
// zip: see sniff_file).
Sniffed sniff_bytes(std::string_view bytes);
// The type of the file at `path`: its first 64 KB, and for a zip its entries.
Sniffed sniff_file(const std::string& path);

}  // namespace peto::media
