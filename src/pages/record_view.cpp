#include "pages/record_view.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "core/timezone.h"
#include "core/utf8.h"

namespace peto::web {

using domain::Field;
using domain::FieldType;
using domain::Kind;
using domain::Record;

std::string RecordView::text(const Visitor& v, const std::string& key) const {
  return site_.catalogue().text(v.language, key);
}

std::string RecordView::label(const Visitor& v, const Kind& k, const Field& f) const {
  const nlohmann::json& t = site_.catalogue().messages(v.language);
  std::string own = "field_" + k.singular + "_" + f.name;
  if (auto it = t.find(own); it != t.end()) return it->get<std::string>();
  return t.value("field_" + f.name, f.name);
}

std::string RecordView::choice_label(const Visitor& v, const std::string& field,
                                     const std::string& value) const {
  if (value.empty()) return text(v, "choice_none");
  const nlohmann::json& t = site_.catalogue().messages(v.language);
  return t.value("choice_" + field + "_" + value, value);
}

std::string RecordView::shown(const Visitor& v, const Field& f, const nlohmann::json& value) const {
  if (value.is_null()) return "";
  switch (f.type) {
    case FieldType::datetime:
      return site_.format_time(v, value.get<std::int64_t>());
    case FieldType::choice:
      return choice_label(v, f.name, value.get<std::string>());
    case FieldType::integer:
    case FieldType::ref:
      return std::to_string(value.get<std::int64_t>());
    default:
      return value.get<std::string>();
  }
}

std::string RecordView::when(const Visitor& v, const Kind& k, const Record& r) const {
  if (!k.day_field.empty() && r[k.day_field].is_string()) return r[k.day_field].get<std::string>();
  const nlohmann::json& moment = r[k.due_field];
  return moment.is_number() ? site_.format_time(v, moment.get<std::int64_t>()) : text(v, "no_date");
}

std::string RecordView::ref_href(const Field& f, const nlohmann::json& value) {
  if (f.type != FieldType::ref || !value.is_number()) return "";
  return "/" + f.ref_kind + "/" + std::to_string(value.get<std::int64_t>());
}

std::string RecordView::title_of(const Visitor& v, const Kind& k, const Record& r) const {
  auto it = r.find(k.title_field);
  std::string title;
  if (it != r.end() && !it->is_null()) {
    if (const Field* f = k.field(k.title_field))
      title = shown(v, *f, *it);
    else
      title = it->is_string() ? it->get<std::string>() : it->dump();
  }
  if (k.name == "interviews" && r["starts_at"].is_number()) title += " · " + when(v, k, r);
  if (k.name == "offers" && r["currency"].is_string())
    title += " " + r["currency"].get<std::string>();
  if (title.size() > 80) {
    title = title.substr(0, utf8_prefix(title, 77)) + "…";
  }
  if (title.empty())
    title = text(v, "kind_" + k.singular) + " " + std::to_string(r["id"].get<std::int64_t>());
  return title;
}

// The text a ref cell shows: the name of what it points to, from the extras
// the kind reads along (company_name…), else the bare id.
static std::string ref_text(const Record& r, const Field& f) {
  std::string base = f.name.substr(0, f.name.size() - 3);  // "company_id" -> "company"
  for (const char* suffix : {"_name", "_role"}) {
    auto it = r.find(base + suffix);
    if (it != r.end() && it->is_string()) return it->get<std::string>();
  }
  if (base == "listing") {
    auto it = r.find("listing_role");
    if (it != r.end() && it->is_string()) return it->get<std::string>();
  }
  return "#" + std::to_string(r[f.name].get<std::int64_t>());
}

// A phone number as a tel: link ("+351 912 345 678" -> "tel:+351912345678");
// "" when it has fewer than 6 digits or anything but digits and separators.
static std::string tel_href(std::string_view phone) {
  std::string out;
  std::size_t digits = 0;
  for (char c : phone) {
    if (c >= '0' && c <= '9') {
      out += c;
      ++digits;
    } else if (c == '+' && out.empty()) {
      out += c;
    } else if (c != ' ' && c != '-' && c != '.' && c != '(' && c != ')' && c != '/') {
      return "";
    }
  }
  return digits >= 6 ? "tel:" + out : "";
}

nlohmann::json linkify(std::string_view text) {
  nlohmann::json parts = nlohmann::json::array();
  std::string plain;
  auto flush = [&] {
    if (!plain.empty()) parts.push_back({{"text", plain}, {"href", ""}});
    plain.clear();
  };
  std::size_t i = 0;
  while (i < text.size()) {
    // One word: up to white space.
    std::size_t end = i;
    while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end]))) ++end;
    std::string_view word = text.substr(i, end - i);
    // Punctuation that ends a sentence is not part of the link.
    std::size_t keep = word.size();
    while (keep > 0 &&
           std::string_view(".,;:!?)]}'\"").find(word[keep - 1]) != std::string_view::npos)
      --keep;
    std::string_view core = word.substr(0, keep);
    std::string href;
    if ((core.starts_with("https://") || core.starts_with("http://")) && core.size() > 8) {
      href = std::string(core);
    } else if (core.find('@') != std::string_view::npos && domain::plausible_email(core) &&
               core.find(':') == std::string_view::npos) {
      href = "mailto:" + std::string(core);
    } else if (core.starts_with('+') && core.size() > 6) {
      href = tel_href(core);
    }
    if (href.empty()) {
      plain += word;
    } else {
      flush();
      parts.push_back({{"text", std::string(core)}, {"href", href}});
      plain += word.substr(keep);
    }
    // The white space after it, as it was.
    while (end < text.size() && std::isspace(static_cast<unsigned char>(text[end])))
      plain += text[end++];
    i = end;
  }
  flush();
  return parts;
}

nlohmann::json RecordView::cells(const Visitor& v, const Kind& k, const Record& r,
                                 bool listed_only) const {
  nlohmann::json out = nlohmann::json::array();
  for (const Field& f : k.fields) {
    if (listed_only && !f.listed) continue;
    const nlohmann::json& value = r[f.name];
    std::string shown_text =
        f.type == FieldType::ref && value.is_number() ? ref_text(r, f) : shown(v, f, value);
    if (f.name == k.due_field && !k.day_field.empty()) shown_text = when(v, k, r);
    std::string href = ref_href(f, value);
    // An address, a web page and a phone number open in what handles them.
    if (value.is_string() && f.type == FieldType::email) href = "mailto:" + shown_text;
    if (value.is_string() && f.type == FieldType::url) href = shown_text;
    if (value.is_string() && f.name == "phone") href = tel_href(shown_text);
    nlohmann::json cell = {{"name", f.name},
                           {"label", label(v, k, f)},
                           {"text", shown_text},
                           {"href", href},
                           {"external", !href.empty() && !href.starts_with('/')},
                           {"long", f.type == FieldType::long_text}};
    if (f.type == FieldType::long_text && !listed_only) cell["parts"] = linkify(shown_text);
    out.push_back(std::move(cell));
  }
  return out;
}

// A record table's columns after the first (the record's title, a link):
// the listed fields but the title itself; an application names its company
// where its listing would repeat the title.
static bool table_column(const Kind& k, const Field& f) {
  return f.listed && f.name != k.title_field &&
         !(k.name == "applications" && f.name == "listing_id");
}

std::string RecordView::title_heading(const Visitor& v, const Kind& k) const {
  if (const Field* f = k.field(k.title_field)) return label(v, k, *f);
  if (k.name == "applications")
    return label(v, domain::kind("listings"), *domain::kind("listings").field("role"));
  return text(v, "column_name");
}

namespace {

// The tables that name the company beside the record's title: it is what a
// person looks for first in a list of applications or interviews.
bool with_company(const Kind& k) { return k.name == "applications" || k.name == "interviews"; }

}  // namespace

nlohmann::json RecordView::headings(const Visitor& v, const Kind& k) const {
  nlohmann::json out = nlohmann::json::array();
  if (with_company(k))
    out.push_back(
        {{"name", "company"}, {"label", text(v, "kind_company")}, {"sort", "company_name"}});
  for (const Field& f : k.fields)
    if (table_column(k, f))
      out.push_back({{"name", f.name}, {"label", label(v, k, f)}, {"sort", f.name}});
  return out;
}

nlohmann::json RecordView::table_cells(const Visitor& v, const Kind& k, const Record& r) const {
  nlohmann::json out = nlohmann::json::array();
  if (with_company(k)) {
    const bool named = r.contains("company_name") && r["company_name"].is_string();
    out.push_back(
        {{"name", "company"},
         {"label", text(v, "kind_company")},
         {"text", named ? r["company_name"].get<std::string>() : ""},
         {"href", r.contains("company_id") && r["company_id"].is_number()
                      ? "/companies/" + std::to_string(r["company_id"].get<std::int64_t>())
                      : ""}});
  }
  for (nlohmann::json& cell : cells(v, k, r, true)) {
    const Field* f = k.field(cell["name"].get<std::string>());
    if (f != nullptr && table_column(k, *f)) out.push_back(std::move(cell));
  }
  return out;
}

nlohmann::json RecordView::form_values(const Visitor& v, const Kind& k, const Record& r) const {
  nlohmann::json out = nlohmann::json::object();
  for (const Field& f : k.fields) {
    const nlohmann::json& value = r[f.name];
    // An all-day record shows its day, and its derived time empty.
    bool derived = f.name == k.due_field && !k.day_field.empty() && r[k.day_field].is_string();
    if (value.is_null() || derived) {
      out[f.name] = "";
    } else if (f.type == FieldType::datetime) {
      out[f.name] = format_local(value.get<std::int64_t>(), v.time_zone, "%Y-%m-%dT%H:%M");
    } else if (value.is_number()) {
      out[f.name] = std::to_string(value.get<std::int64_t>());
    } else {
      out[f.name] = value.get<std::string>();
    }
  }
  return out;
}

nlohmann::json RecordView::choice_options(const Visitor& v, const std::string& field,
                                          const std::vector<std::string>& values,
                                          const std::string& selected) const {
  nlohmann::json out = nlohmann::json::array();
  for (const std::string& value : values)
    out.push_back({{"value", value},
                   {"label", choice_label(v, field, value)},
                   {"selected", value == selected}});
  return out;
}

nlohmann::json RecordView::inputs(const Visitor& v, const Kind& k, const nlohmann::json& values,
                                  const nlohmann::json& errors,
                                  const std::vector<std::string>& only) const {
  nlohmann::json out = nlohmann::json::array();
  for (const Field& f : k.fields) {
    if (!f.writable) continue;
    if (!only.empty() && std::find(only.begin(), only.end(), f.name) == only.end()) continue;
    std::string value = values.value(f.name, std::string());
    std::string error = errors.value(f.name, std::string());
    // A hint under the label when the catalogue has one for this field.
    const nlohmann::json& t = site_.catalogue().messages(v.language);
    const std::string hint = t.value("hint_" + k.singular + "_" + f.name, std::string());
    std::string describedby = hint.empty() ? "" : "f-" + f.name + "-hint";
    if (!error.empty()) describedby += (describedby.empty() ? "f-" : " f-") + f.name + "-error";
    nlohmann::json in = {{"name", f.name},
                         {"id", "f-" + f.name},
                         {"hint", hint},
                         {"describedby", describedby},
                         {"label", label(v, k, f)},
                         {"value", value},
                         {"error", error},
                         {"has_error", !error.empty()},
                         {"required", f.required},
                         {"is_select", false},
                         {"is_textarea", f.type == FieldType::long_text}};
    std::string type = "text";
    switch (f.type) {
      case FieldType::email:
        type = "email";
        break;
      case FieldType::url:
        type = "url";
        break;
      case FieldType::integer:
        type = "number";
        break;
      case FieldType::date:
        type = "date";
        break;
      case FieldType::datetime:
        type = "datetime-local";
        break;
      default:
        break;
    }
    in["input_type"] = type;
    if (f.type == FieldType::text || f.type == FieldType::long_text) in["maxlength"] = f.max_length;
    if (f.type == FieldType::choice) {
      in["is_select"] = true;
      std::string selected = value.empty() && !f.choices.empty() ? f.choices.front() : value;
      in["options"] = choice_options(v, f.name, f.choices, selected);
    } else if (f.type == FieldType::ref) {
      in["is_select"] = true;
      nlohmann::json options = nlohmann::json::array();
      if (!f.required)
        options.push_back(
            {{"value", ""}, {"label", text(v, "choice_none")}, {"selected", value.empty()}});
      const Kind& target = domain::kind(f.ref_kind);
      domain::ListQuery q;
      q.tab = "all";
      q.limit = 200;
      for (const Record& r : records_.list(v.account.id, target, q).items) {
        std::string id = std::to_string(r["id"].get<std::int64_t>());
        options.push_back(
            {{"value", id}, {"label", title_of(v, target, r)}, {"selected", id == value}});
      }
      in["options"] = std::move(options);
    }
    out.push_back(std::move(in));
  }
  return out;
}

domain::Input RecordView::input(const Visitor& v, const Form& form, const Kind& k) const {
  domain::Input in;
  in.time_zone = v.time_zone;
  in.from_form = true;
  for (const Field& f : k.fields)
    if (f.writable && form.has(f.name)) in.values[f.name] = form.get(f.name);
  return in;
}

std::optional<std::int64_t> path_id(const Request& r) { return parse_id(r.param("id")); }

std::optional<std::int64_t> parse_id(const std::string& text) {
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size() || v <= 0) return std::nullopt;
  return v;
}

std::vector<std::string> gone_items(const Catalogue& c, const std::string& lang,
                                    const domain::Gone& gone) {
  static const char* const kOrder[] = {"listings", "applications",   "interviews",
                                       "offers",   "reminders",      "application_events",
                                       "notes",    "listing_events", "application_tags"};
  std::vector<std::string> out;
  auto say = [&](const std::string& table, std::int64_t n) {
    out.push_back(
        c.fill(lang, "gone_" + table + (n == 1 ? "_one" : "_other"), {{"n", std::to_string(n)}}));
  };
  for (const char* table : kOrder)
    if (auto it = gone.counts.find(table); it != gone.counts.end()) say(table, it->second);
  for (const auto& [table, n] : gone.counts)
    if (std::find(std::begin(kOrder), std::end(kOrder), table) == std::end(kOrder)) say(table, n);
  return out;
}

std::string gone_words(const Catalogue& c, const std::string& lang, const domain::Gone& gone) {
  auto items = gone_items(c, lang, gone);
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += i + 1 == items.size() ? c.text(lang, "list_and") : ", ";
    out += items[i];
  }
  return out;
}

}  // namespace peto::web
