#include "sync/dav_multistatus.h"

#include <expat.h>

#include <cctype>
#include <climits>
#include <cstring>

#include "core/text.h"

namespace peto::sync::multistatus {

namespace {

constexpr std::size_t kMaxDepth = 64;
using text::trimmed;

class MultiStatusReader {
 public:
  // nullopt when `xml` is not a well-formed DAV:multistatus document, or one
  // peto refuses to read (a DOCTYPE, too deep).
  static std::optional<MultiStatus> read(const std::string& xml) {
    MultiStatusReader reader;
    return reader.parse(xml);
  }

  // The local name of the first element inside a DAV:error document
  // ("valid-sync-token", "valid-calendar-data"), "" for anything else.
  static std::string error_precondition(const std::string& xml) {
    MultiStatusReader reader;
    reader.error_mode_ = true;
    if (!reader.parse(xml)) return "";
    return reader.precondition_;
  }

 private:
  XML_Parser parser_ = nullptr;
  std::vector<std::string> stack_;
  std::string text_;
  bool refused_ = false;
  bool error_mode_ = false;
  bool root_ok_ = false;
  std::string precondition_;
  MultiStatus out_;
  std::optional<DavResponse> response_;
  std::optional<Propstat> propstat_;

  std::optional<MultiStatus> parse(const std::string& xml) {
    if (xml.size() > static_cast<std::size_t>(INT_MAX)) return std::nullopt;
    parser_ = XML_ParserCreateNS(nullptr, '|');
    if (parser_ == nullptr) return std::nullopt;
    XML_SetUserData(parser_, this);
    XML_SetElementHandler(parser_, &MultiStatusReader::on_start, &MultiStatusReader::on_end);
    XML_SetCharacterDataHandler(parser_, &MultiStatusReader::on_text);
    XML_SetStartDoctypeDeclHandler(parser_, &MultiStatusReader::on_doctype);
    XML_SetEntityDeclHandler(parser_, &MultiStatusReader::on_entity);
    bool ok =
        XML_Parse(parser_, xml.data(), static_cast<int>(xml.size()), XML_TRUE) == XML_STATUS_OK;
    XML_ParserFree(parser_);
    parser_ = nullptr;
    if (!ok || refused_ || !root_ok_) return std::nullopt;
    return std::move(out_);
  }

  void refuse() {
    refused_ = true;
    XML_StopParser(parser_, XML_FALSE);
  }

  const std::string& parent() const {
    static const std::string none;
    return stack_.size() >= 2 ? stack_[stack_.size() - 2] : none;
  }

  static void on_doctype(void* self, const XML_Char*, const XML_Char*, const XML_Char*, int) {
    static_cast<MultiStatusReader*>(self)->refuse();
  }
  static void on_entity(void* self, const XML_Char*, int, const XML_Char*, int, const XML_Char*,
                        const XML_Char*, const XML_Char*, const XML_Char*) {
    static_cast<MultiStatusReader*>(self)->refuse();
  }
  static void on_text(void* self, const XML_Char* s, int len) {
    auto* r = static_cast<MultiStatusReader*>(self);
    if (len > 0) r->text_.append(s, static_cast<std::size_t>(len));
  }
  static void on_start(void* self, const XML_Char* name, const XML_Char**) {
    static_cast<MultiStatusReader*>(self)->start(name);
  }
  static void on_end(void* self, const XML_Char* name) {
    static_cast<MultiStatusReader*>(self)->end(name);
  }

  void start(const std::string& name) {
    if (refused_) return;
    if (stack_.size() >= kMaxDepth) return refuse();
    stack_.push_back(name);
    text_.clear();
    if (stack_.size() == 1) {
      root_ok_ = error_mode_ ? name == "DAV:|error" : name == "DAV:|multistatus";
      if (!root_ok_) return refuse();
      return;
    }
    if (error_mode_) {
      if (stack_.size() == 2 && precondition_.empty())
        precondition_ = name.substr(name.rfind('|') + 1);  // any namespace: CalDAV's too
      return;
    }
    if (name == "DAV:|response" && parent() == "DAV:|multistatus") {
      response_.emplace();
    } else if (name == "DAV:|propstat" && response_ && parent() == "DAV:|response") {
      propstat_.emplace();
    } else if (name == "DAV:|collection" && propstat_ && parent() == "DAV:|resourcetype") {
      propstat_->collection = true;
    }
  }

  void end(const std::string& name) {
    if (refused_ || stack_.empty()) return;
    const std::string& up = parent();
    if (!error_mode_) {
      if (name == "DAV:|href" && response_ && up == "DAV:|response") {
        if (response_->href.empty()) response_->href = trimmed(text_);
      } else if (name == "DAV:|status" && propstat_ && up == "DAV:|propstat") {
        propstat_->status = status_of(trimmed(text_));
      } else if (name == "DAV:|status" && response_ && up == "DAV:|response") {
        response_->status = status_of(trimmed(text_));
      } else if (name == "DAV:|getetag" && propstat_ && up == "DAV:|prop") {
        propstat_->etag = trimmed(text_);
      } else if (name == "DAV:|sync-token" && propstat_ && up == "DAV:|prop") {
        propstat_->sync_token = trimmed(text_);
      } else if (name == "DAV:|sync-token" && up == "DAV:|multistatus") {
        out_.sync_token = trimmed(text_);
      } else if (name == "DAV:|propstat" && propstat_ && response_) {
        if (propstat_->status == 200) {
          response_->found = true;
          if (!propstat_->etag.empty()) response_->etag = propstat_->etag;
          if (propstat_->collection) response_->collection = true;
          if (!propstat_->sync_token.empty()) response_->sync_token = propstat_->sync_token;
        }
        propstat_.reset();
      } else if (name == "DAV:|response" && response_) {
        if (!response_->href.empty()) out_.responses.push_back(std::move(*response_));
        response_.reset();
      }
    }
    stack_.pop_back();
    text_.clear();
  }
};

}  // namespace

int status_of(std::string_view line) {
  auto space = line.find(' ');
  if (space == std::string_view::npos) return 0;
  int code = 0;
  std::size_t i = space + 1;
  std::size_t digits = 0;
  for (; i < line.size() && digits < 3 && std::isdigit(static_cast<unsigned char>(line[i]));
       ++i, ++digits)
    code = code * 10 + (line[i] - '0');
  return digits == 3 ? code : 0;
}

std::optional<MultiStatus> read(const std::string& xml) { return MultiStatusReader::read(xml); }

std::string error_precondition(const std::string& xml) {
  return MultiStatusReader::error_precondition(xml);
}

}  // namespace peto::sync::multistatus
