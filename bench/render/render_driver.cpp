// render_driver: peto's side of bench/render. The CV in bench/render/cv.json
// as a typeset::Document, laid out in the "classic" theme on A4 and written
// as a PDF, timed one render at a time in this process.
//
//   render_driver [--cv FILE] [--theme FILE] [--warmup N] [--renders N]
//                 [--out FILE] [--batch N] [--sample-every K] [--blocks]
//
//   --cv FILE        the CV (default bench/render/cv.json in the source tree)
//   --theme FILE     the theme (default themes_dir() / "classic.json")
//   --warmup N       renders before timing, not timed (default 3)
//   --renders N      timed renders (default 50)
//   --out FILE       the last render's PDF is written here
//   --batch N        instead of the timed renders: N CVs in a row, each
//                    Document built again from the parsed JSON and rendered,
//                    the resident memory (VmRSS) sampled before the first and
//                    after every K-th (--sample-every, default 10)
//   --blocks         print the Document's blocks as JSON and stop (run checks
//                    that weasy.py lays out the same text)
//
// Prints one JSON object on standard output: every render's time in ms (the
// call to render_pdf, the Document already built, as weasy.py times
// write_pdf with its HTML already built), the median, the page count, the
// PDF's size and the process's peak resident set (KiB: getrusage's ru_maxrss,
// or VmHWM when larger).
// Exit 1 when the CV or the theme cannot be read, 2 on a bad argument.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "typeset/document.h"

namespace fs = std::filesystem;
namespace ts = peto::typeset;
using nlohmann::json;

namespace {

struct Options {
  fs::path cv = fs::path(PETO_SOURCE_DIR) / "bench" / "render" / "cv.json";
  fs::path theme;  // empty: themes_dir() / "classic.json"
  int warmup = 3;
  int renders = 50;
  int batch = 0;
  int sample_every = 10;
  fs::path out;
  bool blocks = false;
};

// The value of a "Name:   123 kB" line of /proc/self/status, or -1.
std::int64_t status_kib(std::string_view name) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.size() > name.size() && line.compare(0, name.size(), name) == 0 &&
        line[name.size()] == ':')
      return std::stoll(line.substr(name.size() + 1));
  }
  return -1;
}

std::int64_t rss_kib() { return status_kib("VmRSS"); }

// getrusage's ru_maxrss, or VmHWM when larger: the kernel updates the
// former lazily, and a sample of VmRSS can be above it.
std::int64_t peak_rss_kib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return std::max<std::int64_t>(usage.ru_maxrss, status_kib("VmHWM"));
}

std::string text(const json& cv, const char* key) {
  return ts::escape(cv.at(key).get<std::string>());
}

std::string joined(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (const auto& p : parts) {
    if (!out.empty()) out += sep;
    out += p;
  }
  return out;
}

// The CV's blocks; weasy.py builds the same sequence as HTML (bench/render/run
// compares the two lists before measuring).
ts::Document cv_document(const json& cv) {
  ts::Document doc;
  doc.title = cv.at("name").get<std::string>() + " — CV";
  doc.author = cv.at("name").get<std::string>();
  doc.language = cv.at("language").get<std::string>();
  auto add = [&](ts::BlockKind kind, std::string markup, std::string aside = {}) {
    ts::Block block;
    block.kind = kind;
    block.markup = std::move(markup);
    block.aside = std::move(aside);
    doc.blocks.push_back(std::move(block));
  };
  add(ts::BlockKind::title, text(cv, "name"));
  add(ts::BlockKind::subtitle, text(cv, "headline"));
  std::vector<std::string> contact;
  for (const auto& c : cv.at("contact")) contact.push_back(ts::escape(c.get<std::string>()));
  add(ts::BlockKind::subtitle, joined(contact, " · "));

  add(ts::BlockKind::heading, "Profile");
  add(ts::BlockKind::paragraph, text(cv, "profile"));

  add(ts::BlockKind::heading, "Experience");
  for (const auto& e : cv.at("experience")) {
    add(ts::BlockKind::entry,
        "<b>" + text(e, "role") + "</b>, " + text(e, "company") + ", " + text(e, "place"),
        text(e, "dates"));
    for (const auto& h : e.at("highlights"))
      add(ts::BlockKind::bullet, ts::escape(h.get<std::string>()));
  }

  add(ts::BlockKind::heading, "Education");
  for (const auto& e : cv.at("education")) {
    add(ts::BlockKind::entry, "<b>" + text(e, "degree") + "</b>, " + text(e, "school"),
        text(e, "dates"));
    add(ts::BlockKind::paragraph, text(e, "note"));
  }

  add(ts::BlockKind::heading, "Skills");
  for (const auto& s : cv.at("skills")) {
    add(ts::BlockKind::paragraph, "<b>" + text(s, "group") + ":</b> " + text(s, "items"));
  }

  add(ts::BlockKind::heading, "Projects");
  for (const auto& p : cv.at("projects")) {
    add(ts::BlockKind::entry, "<b>" + text(p, "name") + "</b>", text(p, "dates"));
    add(ts::BlockKind::paragraph, text(p, "description"));
  }

  add(ts::BlockKind::heading, "Languages");
  std::vector<std::string> languages;
  for (const auto& l : cv.at("languages")) {
    languages.push_back(text(l, "language") + " (" + text(l, "level") + ")");
  }
  add(ts::BlockKind::paragraph, joined(languages, " · "));

  add(ts::BlockKind::small, text(cv, "footer"));
  return doc;
}

const char* kind_name(ts::BlockKind kind) {
  switch (kind) {
    case ts::BlockKind::title:
      return "title";
    case ts::BlockKind::subtitle:
      return "subtitle";
    case ts::BlockKind::heading:
      return "heading";
    case ts::BlockKind::entry:
      return "entry";
    case ts::BlockKind::paragraph:
      return "paragraph";
    case ts::BlockKind::bullet:
      return "bullet";
    case ts::BlockKind::small:
      return "small";
  }
  return "?";
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

[[noreturn]] void usage_error(const std::string& what) {
  std::cerr << "render_driver: " << what
            << " (see the comment at the top of bench/render/render_driver.cpp)\n";
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage_error(std::string(a) + " needs a value");
      return argv[++i];
    };
    auto number = [&]() {
      const std::string v = value();
      try {
        return std::stoi(v);
      } catch (const std::exception&) {
        usage_error(std::string(a) + " wants a number, not " + v);
      }
    };
    if (a == "--cv")
      o.cv = value();
    else if (a == "--theme")
      o.theme = value();
    else if (a == "--warmup")
      o.warmup = number();
    else if (a == "--renders")
      o.renders = number();
    else if (a == "--batch")
      o.batch = number();
    else if (a == "--sample-every")
      o.sample_every = std::max(1, number());
    else if (a == "--out")
      o.out = value();
    else if (a == "--blocks")
      o.blocks = true;
    else
      usage_error("unknown argument " + std::string(a));
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  std::ifstream in(o.cv);
  if (!in) {
    std::cerr << "render_driver: cannot read " << o.cv << "\n";
    return 1;
  }
  const json cv = json::parse(in);
  const ts::Document doc = cv_document(cv);
  if (o.blocks) {
    json blocks = json::array();
    for (const auto& b : doc.blocks)
      blocks.push_back({{"kind", kind_name(b.kind)}, {"markup", b.markup}, {"aside", b.aside}});
    std::cout << blocks.dump(1) << "\n";
    return 0;
  }
  const fs::path theme_path = o.theme.empty() ? ts::themes_dir() / "classic.json" : o.theme;
  auto loaded = ts::Theme::load(theme_path);
  if (const auto* why = std::get_if<std::string>(&loaded)) {
    std::cerr << "render_driver: " << theme_path << ": " << *why << "\n";
    return 1;
  }
  const ts::Theme& theme = std::get<ts::Theme>(loaded);

  json result = {
      {"cv", o.cv.string()}, {"theme", theme_path.string()}, {"blocks", doc.blocks.size()}};
  ts::Rendered last;
  for (int i = 0; i < o.warmup; ++i) last = ts::render_pdf(doc, theme, ts::PageSize::a4);
  if (o.batch > 0) {
    json samples = json::array({{{"after", 0}, {"rss_kib", rss_kib()}}});
    const auto start = std::chrono::steady_clock::now();
    for (int i = 1; i <= o.batch; ++i) {
      const ts::Document each = cv_document(cv);
      last = ts::render_pdf(each, theme, ts::PageSize::a4);
      if (i % o.sample_every == 0 || i == o.batch)
        samples.push_back({{"after", i}, {"rss_kib", rss_kib()}});
    }
    result["batch"] = {
        {"cvs", o.batch}, {"seconds", ms_since(start) / 1000}, {"rss_samples", samples}};
  } else {
    std::vector<double> times;
    times.reserve(static_cast<std::size_t>(std::max(0, o.renders)));
    for (int i = 0; i < o.renders; ++i) {
      const auto start = std::chrono::steady_clock::now();
      last = ts::render_pdf(doc, theme, ts::PageSize::a4);
      times.push_back(ms_since(start));
    }
    result["warmup"] = o.warmup;
    result["renders_ms"] = times;
    result["median_ms"] = median(times);
  }
  result["pages"] = last.pages;
  result["pdf_bytes"] = last.pdf.size();
  result["peak_rss_kib"] = peak_rss_kib();
  if (!o.out.empty()) {
    std::ofstream pdf(o.out, std::ios::binary);
    pdf << last.pdf;
    if (!pdf) {
      std::cerr << "render_driver: cannot write " << o.out << "\n";
      return 1;
    }
  }
  std::cout << result.dump() << "\n";
  return 0;
}
