// Reading a peto export back (import_archive, media/exports.h): every zip
// entry checked by name, type and size before any is read, each read within
// the limits, peto.json parsed only once its depth and number of values are
// known, and the checks of the values it holds.
#include <sys/stat.h>
#include <zip.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "core/json_depth.h"
#include "core/utf8.h"
#include "media/export_format.h"
#include "media/import_internal.h"

namespace peto::media::import_detail {

using nlohmann::json;

namespace {

constexpr std::int64_t kMiB = 1 << 20;
constexpr int kMaxJsonDepth = 32;

// "25 MB", or "20 bytes" below a megabyte.
std::string amount(std::int64_t bytes) {
  return bytes >= kMiB ? std::to_string(bytes / kMiB) + " MB" : std::to_string(bytes) + " bytes";
}

// Why `name` may not be unpacked anywhere, or "".
std::string unsafe_name(const std::string& name) {
  if (name.empty()) return "an entry has no name";
  if (name.front() == '/') return "the entry \"" + name + "\" has an absolute path";
  if (name.find('\\') != std::string::npos)
    return "the entry \"" + name + "\" has a backslash in its name";
  if (name.find(':') != std::string::npos)
    return "the entry \"" + name + "\" has a colon in its name";
  for (unsigned char c : name)
    if (c < 0x20 || c == 0x7f) return "an entry's name has control characters";
  std::size_t start = 0;
  while (start <= name.size()) {
    auto end = name.find('/', start);
    if (end == std::string::npos) end = name.size();
    std::string part = name.substr(start, end - start);
    if (part == ".." || part == ".") return "the entry \"" + name + "\" leaves its folder";
    if (part.empty() && end != name.size()) return "the entry \"" + name + "\" has an empty part";
    start = end + 1;
  }
  return {};
}

// Counts peto.json's values (every scalar, object, array and key) without
// building anything, stopping past `max`: a small text of `[{},{},…]` would
// otherwise become a tree many times its size.
class ValueCounter final : public nlohmann::json_sax<json> {
 public:
  explicit ValueCounter(std::int64_t max) : max_(max) {}
  bool over() const { return over_; }
  bool null() override { return one(); }
  bool boolean(bool) override { return one(); }
  bool number_integer(number_integer_t) override { return one(); }
  bool number_unsigned(number_unsigned_t) override { return one(); }
  bool number_float(number_float_t, const string_t&) override { return one(); }
  bool string(string_t&) override { return one(); }
  bool binary(binary_t&) override { return one(); }
  bool start_object(std::size_t) override { return one(); }
  bool key(string_t&) override { return one(); }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return one(); }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  bool one() {
    if (++count_ <= max_) return true;
    over_ = true;
    return false;
  }
  std::int64_t max_;
  std::int64_t count_ = 0;
  bool over_ = false;
};

}  // namespace

// Every entry, checked by name, type and declared size.
std::map<std::string, Entry> list_entries(zip_t* za, const ImportLimits& limits) {
  zip_int64_t n = zip_get_num_entries(za, 0);
  if (n < 0 || n > limits.max_entries) refuse("the archive has too many entries");
  std::map<std::string, Entry> entries;
  std::int64_t declared_total = 0;
  for (zip_int64_t i = 0; i < n; ++i) {
    auto index = static_cast<zip_uint64_t>(i);
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(za, index, ZIP_FL_ENC_RAW, &st) != 0 || st.name == nullptr)
      refuse("the archive's entry " + std::to_string(i) + " cannot be read");
    Entry e;
    e.index = index;
    e.name = st.name;
    if (auto why = unsafe_name(e.name); !why.empty()) refuse(why);
    zip_uint8_t opsys = 0;
    zip_uint32_t attributes = 0;
    if (zip_file_get_external_attributes(za, index, 0, &opsys, &attributes) == 0 &&
        opsys == ZIP_OPSYS_UNIX) {
      auto mode = static_cast<mode_t>(attributes >> 16);
      if (S_ISLNK(mode)) refuse("the entry \"" + e.name + "\" is a symbolic link");
      if ((mode & S_IFMT) != 0 && !S_ISREG(mode) && !S_ISDIR(mode))
        refuse("the entry \"" + e.name + "\" is not a plain file");
    }
    if ((st.valid & ZIP_STAT_ENCRYPTION_METHOD) && st.encryption_method != ZIP_EM_NONE)
      refuse("the entry \"" + e.name + "\" is encrypted");
    e.size = (st.valid & ZIP_STAT_SIZE) ? static_cast<std::int64_t>(st.size) : 0;
    e.packed_size = (st.valid & ZIP_STAT_COMP_SIZE) ? static_cast<std::int64_t>(st.comp_size) : 0;
    if (e.size > kMiB && e.size > limits.max_ratio * std::max<std::int64_t>(e.packed_size, 1))
      refuse("the entry \"" + e.name + "\" unpacks to more than " +
             std::to_string(limits.max_ratio) + " times its size (a zip bomb?)");
    declared_total += e.size;
    if (declared_total > limits.max_total_bytes)
      refuse("the archive unpacks to more than " + amount(limits.max_total_bytes));
    if (e.name.back() == '/') {
      if (e.name != "media/") refuse("the archive has an unexpected folder \"" + e.name + "\"");
      continue;
    }
    if (!entries.emplace(e.name, e).second) refuse("the entry \"" + e.name + "\" appears twice");
  }
  return entries;
}

// Reads one entry in chunks, never past `limit` bytes, the header's size,
// the ratio or the archive's total; hands each chunk to `sink`.
void read_entry(zip_t* za, const Entry& e, std::int64_t limit, const ImportLimits& limits,
                std::int64_t& total, const std::function<void(const char*, std::size_t)>& sink) {
  if (e.size > limit) refuse("the entry \"" + e.name + "\" is larger than " + amount(limit));
  zip_file_t* f = zip_fopen_index(za, e.index, 0);
  if (f == nullptr) refuse("the entry \"" + e.name + "\" cannot be opened: " + zip_strerror(za));
  std::int64_t read = 0;
  char buf[64 * 1024];
  std::string problem;
  for (;;) {
    zip_int64_t n = zip_fread(f, buf, sizeof buf);
    if (n < 0) {
      problem =
          "the entry \"" + e.name + "\" is damaged: " + zip_error_strerror(zip_file_get_error(f));
      break;
    }
    if (n == 0) break;
    read += n;
    total += n;
    if (read > limit) {
      problem = "the entry \"" + e.name + "\" is larger than " + amount(limit);
    } else if (read > e.size) {
      problem = "the entry \"" + e.name + "\" is larger than its header says";
    } else if (read > kMiB && read > limits.max_ratio * std::max<std::int64_t>(e.packed_size, 1)) {
      problem = "the entry \"" + e.name + "\" unpacks to more than " +
                std::to_string(limits.max_ratio) + " times its size (a zip bomb?)";
    } else if (total > limits.max_total_bytes) {
      problem = "the archive unpacks to more than " + amount(limits.max_total_bytes);
    }
    if (!problem.empty()) break;
    sink(buf, static_cast<std::size_t>(n));
  }
  zip_fclose(f);
  if (!problem.empty()) refuse(problem);
  if (read != e.size) refuse("the entry \"" + e.name + "\" is shorter than its header says");
}

json read_document(zip_t* za, const std::map<std::string, Entry>& entries,
                   const ImportLimits& limits, std::int64_t& total) {
  auto it = entries.find(kExportJson);
  if (it == entries.end()) refuse("the archive has no peto.json: it is not a peto export");
  std::string text;
  read_entry(za, it->second, limits.max_json_bytes, limits, total,
             [&](const char* p, std::size_t n) { text.append(p, n); });
  if (json_nesting_depth(text, kMaxJsonDepth) > kMaxJsonDepth) refuse("peto.json nests too deeply");
  ValueCounter counter(limits.max_json_values);
  json::sax_parse(text, &counter);
  if (counter.over())
    refuse("peto.json holds more than " + std::to_string(limits.max_json_values) + " values");
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) refuse("peto.json is not valid JSON");
  if (field(doc, "format") != kExportFormat) refuse("peto.json is not a peto export");
  const json& version = field(doc, "version");
  if (!version.is_number_integer()) refuse("peto.json has no format version");
  // Version 1 is version 2 without the career record and CVs (read as empty).
  if (version.get<std::int64_t>() < 1 || version.get<std::int64_t>() > kExportVersion)
    refuse("the archive's format version " + version.dump() +
           " is not one this peto reads (it reads versions 1 to " + std::to_string(kExportVersion) +
           ")");
  for (const auto& s : format::sections()) {
    if (!doc.contains(s)) doc[s] = json::array();
    if (!doc[s].is_array()) refuse("peto.json: " + s + " is not a list");
    for (const auto& o : doc[s])
      if (!o.is_object()) refuse("peto.json: " + s + " holds something that is not a record");
  }
  return doc;
}

// --- checking values -------------------------------------------------------

std::string where(const std::string& section, const json& o) {
  auto it = o.is_object() ? o.find("id") : o.end();
  std::string id = it != o.end() ? it->dump() : "?";
  return section + " " + id;
}

const json& field(const json& o, const std::string& name) {
  static const json null_value;
  auto it = o.find(name);
  return it == o.end() ? null_value : *it;
}

std::optional<std::int64_t> opt_int(const std::string& at, const json& o, const std::string& name) {
  const json& v = field(o, name);
  if (v.is_null()) return std::nullopt;
  if (!v.is_number_integer()) refuse(at + ": " + name + " is not a whole number");
  return v.get<std::int64_t>();
}

std::int64_t req_int(const std::string& at, const json& o, const std::string& name) {
  auto v = opt_int(at, o, name);
  if (!v) refuse(at + ": " + name + " is missing");
  return *v;
}

std::optional<std::string> opt_text(const std::string& at, const json& o, const std::string& name,
                                    std::size_t max_chars) {
  const json& v = field(o, name);
  if (v.is_null()) return std::nullopt;
  if (!v.is_string()) refuse(at + ": " + name + " is not text");
  auto s = v.get<std::string>();
  if (utf8_length(s) > max_chars) refuse(at + ": " + name + " is too long");
  return s;
}

std::string text_or(const std::string& at, const json& o, const std::string& name,
                    std::size_t max_chars) {
  return opt_text(at, o, name, max_chars).value_or("");
}

}  // namespace peto::media::import_detail
