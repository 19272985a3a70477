#include "capture/kept_pages.h"

#include <zlib.h>

#include <fstream>
#include <sstream>
#include <system_error>

#include "core/stored_path.h"
#include "core/token.h"
#include "domain/accounts.h"

namespace peto::capture {

namespace {

constexpr std::int64_t kDayMs = 24 * 3600 * 1000LL;

// gzip (RFC 1952) of `data`; "" if zlib fails.
std::string gzip(std::string_view data) {
  z_stream z{};
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return {};
  std::string out(deflateBound(&z, data.size()) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  int rc = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return rc == Z_STREAM_END ? out : std::string();
}

// The gunzipped `data`, at most `limit` bytes; nullopt when it is not gzip
// or is larger.
std::optional<std::string> gunzip(std::string_view data, std::size_t limit) {
  z_stream z{};
  if (inflateInit2(&z, 15 + 16) != Z_OK) return std::nullopt;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  std::string out;
  char buf[64 * 1024];
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(buf, sizeof buf - z.avail_out);
    if (out.size() > limit) rc = Z_BUF_ERROR;
  }
  inflateEnd(&z);
  if (rc != Z_STREAM_END) return std::nullopt;
  return out;
}

std::optional<std::string> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

bool KeptPages::keep(store::Conn& conn, std::int64_t owner, std::int64_t capture_id,
                     std::string_view html) {
  if (conn.query("SELECT 1 AS found FROM captures WHERE id = ? AND owner_id = ?",
                 {capture_id, owner})
          .empty())
    return false;
  auto used = conn.query(
      "SELECT COUNT(*) AS kept_pages, COALESCE(SUM(page_bytes), 0) AS kept_bytes FROM captures"
      " WHERE owner_id = ? AND page_file IS NOT NULL AND id <> ?",
      {owner, capture_id});
  std::string packed = gzip(html);
  if (packed.empty() && !html.empty()) return false;
  const auto bytes = static_cast<std::int64_t>(packed.size());
  if (used[0].int_at("kept_pages") >= limits_.pages ||
      used[0].int_at("kept_bytes") + bytes > limits_.bytes)
    return false;

  const std::string name = std::to_string(owner) + "/" + std::to_string(capture_id) + ".html.gz";
  const std::filesystem::path path = dir_ / name;
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  const std::filesystem::path temp = path.string() + ".tmp-" + random_token(6);
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out.write(packed.data(), static_cast<std::streamsize>(packed.size()));
    if (!out) {
      std::filesystem::remove(temp, ec);
      return false;
    }
  }
  std::filesystem::rename(temp, path, ec);
  if (ec) {
    std::filesystem::remove(temp, ec);
    return false;
  }
  conn.query(
      "UPDATE captures SET page_file = ?, page_sha256 = ?, page_bytes = ?"
      " WHERE id = ? AND owner_id = ?",
      {name, domain::token_hash(std::string(html)), bytes, capture_id, owner});
  return true;
}

bool KeptPages::keep(std::int64_t owner, std::int64_t capture_id, std::string_view html) {
  auto conn = db_.acquire();
  return keep(*conn, owner, capture_id, html);
}

std::optional<std::string> KeptPages::read(std::int64_t owner, std::int64_t capture_id) {
  auto rows = db_.query(
      "SELECT page_file, page_sha256 FROM captures WHERE id = ? AND owner_id = ?"
      " AND page_file IS NOT NULL",
      {capture_id, owner});
  if (rows.empty()) return std::nullopt;
  auto packed = read_file(stored_path(dir_, rows[0].text("page_file")));
  if (!packed) return std::nullopt;
  auto html = gunzip(*packed, 16 << 20);
  if (!html || domain::token_hash(*html) != rows[0].text("page_sha256")) return std::nullopt;
  return html;
}

std::int64_t KeptPages::expire(int keep_days) {
  if (keep_days <= 0) return 0;
  const std::int64_t cutoff = clock_.now_ms() - keep_days * kDayMs;
  std::int64_t removed = 0;
  for (const auto& row :
       db_.query("SELECT id, page_file FROM captures WHERE page_file IS NOT NULL"
                 " AND status <> 'accepted' AND updated_at < ? ORDER BY id LIMIT 500",
                 {cutoff})) {
    std::error_code ec;
    if (std::string path = stored_path(dir_, row.text("page_file")); !path.empty())
      std::filesystem::remove(path, ec);
    removed += db_.query(
                      "UPDATE captures SET page_file = NULL, page_sha256 = NULL, page_bytes = NULL"
                      " WHERE id = ? AND page_file = ?",
                      {row.int_at("id"), row.text("page_file")})
                   .affected;
  }
  return removed;
}

}  // namespace peto::capture
