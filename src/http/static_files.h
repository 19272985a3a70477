// Static files: the stylesheet, scripts and icons under /static/.
//
// serve_static answers GET and HEAD for /static/<path> from one folder. Only
// regular files inside that folder are served: a segment that is empty,
// starts with '.' (so "..", ".git"), or holds '/', '\' or NUL after decoding
// is refused with 404, and so is a symlink that leads outside the folder.
// Responses carry the Content-Type for the extension and a one-hour public
// Cache-Control. Stateless and thread-safe; files are read on each request
// (they are small, and the OS caches them).
#pragma once

#include <filesystem>

#include "http/http.h"
#include "http/router.h"

namespace peto::web {

// True for /static and anything under it: those paths belong to serve_static.
bool is_static_path(const Request& request);

// Answers `request` (whose path is_static_path) from `root`; errors (404,
// 405) come from router.error so they look like every other error page.
Response serve_static(const std::filesystem::path& root, const Request& request,
                      const Router& router);

// "text/css; charset=utf-8" for "x.css", … ; application/octet-stream if unknown.
std::string content_type_for(const std::filesystem::path& file);

}  // namespace peto::web
