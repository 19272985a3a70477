// Paths kept in the database, turned back into files only inside their folder.
//
//   std::string path = stored_path(config.media_dir(), row.text("file"));
//   if (path.empty()) ...   // not a path peto would have written: treat as missing
//
// Every file path a row holds (an upload's file, a capture's kept page) is
// relative to the folder peto keeps such files in. A row that a restored
// backup, or anyone else who can write the database, filled with
// "../../etc/passwd", "/etc/passwd" or a path through a symbolic link that
// leads out must not make peto serve, send, copy or delete another file, so
// the check is made at every use, not once.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace peto {

// True for a path peto writes: relative, at most 1000 bytes, its segments
// neither empty nor "." nor "..", no backslash or control character.
bool is_plain_relative_path(std::string_view path);

// `folder`/`relative` when `relative` is plain and, every symbolic link that
// exists followed, still leads below `folder`; "" otherwise.
std::string stored_path(const std::filesystem::path& folder, std::string_view relative);

}  // namespace peto
