#include "domain/kinds.h"

#include <algorithm>
#include <stdexcept>

namespace peto::domain {

std::string application_past_draft(const std::string& a) { return a + ".status <> 'draft'"; }

std::string listing_applied(const std::string& l) {
  return "EXISTS (SELECT 1 FROM applications a WHERE a.listing_id = " + l + ".id AND " +
         application_past_draft("a") + ")";
}

std::string listing_taken_up(const std::string& l) {
  return "EXISTS (SELECT 1 FROM applications a WHERE a.listing_id = " + l + ".id)";
}

std::string application_open(const std::string& a) {
  std::string in;
  for (const std::string& s : statuses())
    if (is_open_status(s)) in += (in.empty() ? "'" : ", '") + s + "'";
  return a + ".status IN (" + in + ")";
}

namespace {

using T = FieldType;

const std::vector<std::string> kStatuses = {
    "draft", "applied",  "acknowledged", "screening", "interviewing", "assessment",
    "offer", "accepted", "rejected",     "withdrawn", "ghosted"};

const std::vector<std::string> kEventKinds = {"status_change",
                                              "note",
                                              "email_sent",
                                              "email_received",
                                              "call",
                                              "interview",
                                              "interview_scheduled",
                                              "interview_cancelled",
                                              "interview_no_show",
                                              "assessment",
                                              "offer",
                                              "rejection",
                                              "follow_up",
                                              "document_sent",
                                              "other"};

const std::vector<std::string> kEndReasons = {
    "pay", "location", "not_a_match", "filled_internally", "my_choice", "other"};

// Today as a quoted literal is substituted for ":today" in tab conditions.
const char* kClosed = "(t.closed_at IS NOT NULL OR COALESCE(t.closes_on, '9999-12-31') < :today)";

// The role of the application a record belongs to, for its links.
Extra application_role() {
  return {"application_role",
          "(SELECT l.role FROM applications a JOIN listings l ON l.id = a.listing_id"
          " WHERE a.id = t.application_id)"};
}

// The languages a CV or a letter can be written in (their headings and
// dates come from the catalogue and ICU in that language).
const std::vector<std::string> kWrittenIn = {"en", "fr", "de", "es", "it", "pt", "nl", "el", "ar"};

// A data table: every kind and field, one entry each, as docs/SPEC.md lists them.
// NOLINTNEXTLINE(readability-function-size)
std::vector<Kind> make_kinds() {
  std::vector<Kind> all;

  Kind companies;
  companies.name = "companies";
  companies.singular = "company";
  companies.title_field = "name";
  companies.fields = {Field("name", T::text).req().limit(200), Field("website", T::url).limit(500),
                      Field("location", T::text).limit(200),
                      Field("notes", T::long_text).limit(20000).unlisted()};
  companies.columns = {"name_key TEXT NOT NULL"};
  companies.constraints = {"UNIQUE (owner_id, name_key)"};
  companies.search = {"name", "location"};
  companies.extras = {
      {"listing_count", "(SELECT COUNT(*) FROM listings l WHERE l.company_id = t.id)", true}};
  all.push_back(std::move(companies));

  Kind contacts;
  contacts.name = "contacts";
  contacts.singular = "contact";
  contacts.title_field = "name";
  contacts.fields = {Field("name", T::text).req().limit(200),
                     Field("company_id", T::ref).to("companies"),
                     Field("role", T::text).limit(200),
                     Field("email", T::email).limit(254),
                     Field("phone", T::text).limit(40),
                     Field("notes", T::long_text).limit(20000).unlisted()};
  contacts.extras = {{"company_name", "(SELECT name FROM companies c WHERE c.id = t.company_id)"}};
  contacts.search = {"name", "role", "email"};
  contacts.filterable = {"company_id"};
  all.push_back(std::move(contacts));

  Kind listings;
  listings.name = "listings";
  listings.singular = "listing";
  listings.title_field = "role";
  listings.fields = {Field("role", T::text).req().limit(200),
                     Field("company_id", T::ref).req().to("companies"),
                     Field("url", T::url).limit(2000),
                     Field("location", T::text).limit(200),
                     Field("remote", T::choice).of({"", "onsite", "hybrid", "remote"}),
                     Field("salary_min", T::integer).range(0, 100000000).unlisted(),
                     Field("salary_max", T::integer).range(0, 100000000).unlisted(),
                     Field("currency", T::text).limit(3).unlisted(),
                     Field("closes_on", T::date),
                     Field("state", T::choice).of({"new", "shortlisted", "discarded"}),
                     Field("discard_reason", T::choice)
                         .of({"", "not_for_me", "pay", "location", "closed", "other"})
                         .unlisted(),
                     Field("source", T::text).limit(200).unlisted(),
                     Field("description", T::long_text).limit(40000).unlisted()};
  listings.columns = {"closed_at BIGINT", "closing_announced_for TEXT"};
  listings.extras = {
      {"company_name", "(SELECT name FROM companies c WHERE c.id = t.company_id)"},
      {"application_id", "(SELECT MIN(a.id) FROM applications a WHERE a.listing_id = t.id)", true},
      {"closed", std::string("CASE WHEN ") + kClosed + " THEN 1 ELSE 0 END", true}};
  const std::string applied = listing_applied("t");
  const std::string taken_up = listing_taken_up("t");
  listings.tabs = {
      // Deciding is shortlisting, discarding or starting an application.
      {"undecided", "t.state = 'new' AND NOT " + taken_up + " AND NOT " + kClosed},
      {"shortlisted", "(t.state = 'shortlisted' OR " + taken_up + ") AND t.state <> 'discarded'" +
                          " AND NOT " + applied + " AND NOT " + kClosed},
      {"discarded", "t.state = 'discarded'"},
      {"applied", applied},
      {"closed", std::string(kClosed) + " AND t.state <> 'discarded'"},
      {"all", "1 = 1"}};
  listings.search = {"role", "location", "company_name"};
  listings.filterable = {"company_id", "state", "remote"};
  all.push_back(std::move(listings));

  Kind applications;
  applications.name = "applications";
  applications.singular = "application";
  applications.title_field = "listing_role";
  applications.fields = {Field("listing_id", T::ref).req().to("listings"),
                         Field("status", T::choice).of(kStatuses).read_only(),
                         Field("channel", T::choice)
                             .of({"", "company_site", "job_board", "employment_service", "email",
                                  "referral", "recruiter", "event", "other"}),
                         Field("priority", T::integer).range(1, 3),
                         Field("contact_id", T::ref).to("contacts").unlisted(),
                         Field("deadline", T::date).unlisted(),
                         Field("applied_at", T::datetime).read_only(),
                         Field("closed_at", T::datetime).read_only().unlisted()};
  applications.columns = {"quiet_announced_at BIGINT"};
  applications.extras = {
      {"listing_role", "(SELECT role FROM listings l WHERE l.id = t.listing_id)"},
      {"company_name",
       "(SELECT c.name FROM listings l JOIN companies c ON c.id = l.company_id"
       " WHERE l.id = t.listing_id)"},
      {"company_id", "(SELECT l.company_id FROM listings l WHERE l.id = t.listing_id)", true},
      {"contact_name", "(SELECT name FROM contacts c WHERE c.id = t.contact_id)"}};
  applications.tabs = {{"open", application_open("t")},
                       {"closed", "t.status IN ('accepted','rejected','withdrawn','ghosted')"},
                       {"all", "1 = 1"}};
  applications.search = {"listing_role", "company_name"};
  applications.filterable = {"status", "listing_id", "channel"};
  applications.tag_links = "application_tags";
  all.push_back(std::move(applications));

  Kind reminders;
  reminders.name = "reminders";
  reminders.singular = "reminder";
  reminders.title_field = "title";
  // A reminder is due at a moment, on a day (all-day), or not at all.
  reminders.fields = {Field("title", T::text).req().limit(250), Field("due_at", T::datetime),
                      Field("due_on", T::date).unlisted(),
                      Field("application_id", T::ref).to("applications"),
                      Field("done_at", T::datetime).read_only()};
  reminders.columns = {"notified_at BIGINT"};
  reminders.extras = {application_role()};
  reminders.due_field = "due_at";
  reminders.day_field = "due_on";
  reminders.added = {{"due_on", 16}};
  reminders.tabs = {{"outstanding", "t.done_at IS NULL"},
                    {"undated", "t.done_at IS NULL AND t.due_at IS NULL"},
                    {"done", "t.done_at IS NOT NULL"},
                    {"all", "1 = 1"}};
  reminders.search = {"title"};
  reminders.filterable = {"application_id"};
  all.push_back(std::move(reminders));

  Kind interviews;
  interviews.name = "interviews";
  interviews.singular = "interview";
  interviews.title_field = "kind";
  interviews.fields = {
      Field("application_id", T::ref).req().to("applications"),
      Field("kind", T::choice).of({"video", "phone", "onsite", "panel", "assessment", "other"}),
      // starts_at, or starts_on for an all-day one (checked in records.cpp).
      Field("starts_at", T::datetime), Field("starts_on", T::date).unlisted(),
      Field("ends_at", T::datetime), Field("place", T::text).limit(500),
      // Changed only through Applications::set_outcome, which writes the
      // timeline and moves the application on.
      Field("outcome", T::choice).of({"scheduled", "done", "cancelled", "no_show"}).read_only(),
      Field("notes", T::long_text).limit(20000).unlisted()};
  interviews.columns = {"uid TEXT NOT NULL"};
  interviews.extras = {application_role(),
                       {"company_name",
                        "(SELECT c.name FROM applications a JOIN listings l ON l.id = a.listing_id"
                        " JOIN companies c ON c.id = l.company_id WHERE a.id = t.application_id)"}};
  interviews.due_field = "starts_at";
  interviews.day_field = "starts_on";
  interviews.added = {{"starts_on", 16}};
  interviews.filterable = {"application_id", "outcome"};
  all.push_back(std::move(interviews));

  Kind offers;
  offers.name = "offers";
  offers.singular = "offer";
  offers.title_field = "base_pay";
  offers.fields = {Field("application_id", T::ref).req().to("applications"),
                   Field("base_pay", T::integer).range(0, 100000000),
                   Field("currency", T::text).limit(3),
                   Field("period", T::choice).of({"year", "month", "day", "hour"}),
                   Field("start_on", T::date),
                   Field("answer_by", T::date),
                   Field("benefits", T::long_text).limit(5000).unlisted(),
                   Field("notes", T::long_text).limit(20000).unlisted()};
  offers.extras = {application_role()};
  offers.filterable = {"application_id"};
  all.push_back(std::move(offers));

  Kind notes;
  notes.name = "notes";
  notes.singular = "note";
  notes.title_field = "body";
  notes.fields = {Field("body", T::long_text).req().limit(20000),
                  Field("application_id", T::ref).to("applications"),
                  Field("listing_id", T::ref).to("listings"),
                  Field("company_id", T::ref).to("companies")};
  // What a note is attached to, by name rather than by number.
  notes.extras = {application_role(),
                  {"listing_role", "(SELECT role FROM listings l WHERE l.id = t.listing_id)"},
                  {"company_name", "(SELECT name FROM companies c WHERE c.id = t.company_id)"}};
  notes.search = {"body"};
  notes.filterable = {"application_id", "listing_id", "company_id"};
  all.push_back(std::move(notes));

  Kind tags;
  tags.name = "tags";
  tags.singular = "tag";
  tags.title_field = "name";
  tags.fields = {
      Field("name", T::text).req().limit(50),
      Field("colour", T::choice).of({"grey", "blue", "green", "amber", "red", "purple"})};
  tags.columns = {"slug TEXT NOT NULL"};
  tags.constraints = {"UNIQUE (owner_id, slug)"};
  tags.search = {"name"};
  all.push_back(std::move(tags));

  // The career record: what a person has done, written once, and the CVs
  // made from it (typeset to PDF by media/cv.h). An entry's section says what
  // it is; its fields are read as that section reads them (a degree's school
  // is its organisation, a language's CEFR level its level).
  Kind career;
  career.name = "career";
  career.singular = "entry";
  career.title_field = "title";
  career.since = 23;
  career.fields = {Field("section", T::choice)
                       .of({"experience", "education", "skill", "project", "certification",
                            "language", "link", "reference"}),
                   Field("title", T::text).req(),
                   Field("organisation", T::text),
                   Field("place", T::text),
                   Field("started_on", T::date),
                   Field("ended_on", T::date).unlisted(),
                   Field("level", T::text).limit(50),
                   Field("highlights", T::long_text).limit(5000).unlisted(),
                   Field("url", T::url).unlisted(),
                   Field("position", T::integer).range(0, 9999).unlisted(),
                   Field("cvs", T::text).unlisted()};
  career.search = {"title", "organisation", "highlights"};
  career.filterable = {"section"};
  all.push_back(std::move(career));

  Kind cvs;
  cvs.name = "cvs";
  cvs.singular = "cv";
  cvs.title_field = "name";
  cvs.since = 23;
  cvs.fields = {Field("name", T::text).req().limit(100),
                Field("full_name", T::text).req(),
                Field("headline", T::text),
                Field("town", T::text),
                Field("street", T::text).unlisted(),
                Field("email", T::email).unlisted(),
                Field("phone", T::text).limit(50).unlisted(),
                Field("website", T::url).unlisted(),
                Field("summary", T::long_text).limit(3000).unlisted(),
                Field("language", T::choice).of(kWrittenIn),
                Field("theme", T::choice).of({"classic", "modern"}),
                Field("page_size", T::choice).of({"a4", "letter"}),
                Field("entry_order", T::choice).of({"date", "hand"}).unlisted(),
                Field("with_references", T::choice).of({"no", "yes"}).unlisted(),
                Field("with_street", T::choice).of({"no", "yes"}).unlisted()};
  cvs.search = {"name", "headline"};
  all.push_back(std::move(cvs));

  // Letter templates: Markdown with the placeholders of formats/placeholders.h,
  // filled from an application when the letter is made (media/letter.h). The
  // sender's name and contact line come from the CV the letter names.
  Kind letters;
  letters.name = "letters";
  letters.singular = "letter";
  letters.title_field = "name";
  letters.since = 24;
  letters.fields = {
      Field("name", T::text).req().limit(100),
      Field("purpose", T::choice).of({"cover", "motivation", "speculative", "follow_up"}),
      Field("cv_id", T::ref).to("cvs"),
      Field("language", T::choice).of(kWrittenIn),
      Field("theme", T::choice).of({"classic", "modern"}).unlisted(),
      Field("page_size", T::choice).of({"a4", "letter"}).unlisted(),
      Field("regarding", T::text).limit(200).unlisted(),
      Field("body", T::long_text).req().limit(20000).unlisted()};
  letters.extras = {{"cv_name", "(SELECT name FROM cvs c WHERE c.id = t.cv_id)"}};
  letters.search = {"name", "body"};
  letters.filterable = {"purpose"};
  all.push_back(std::move(letters));

  return all;
}

std::string column_sql(const Field& f) {
  std::string type;
  switch (f.type) {
    case T::integer:
    case T::datetime:
    case T::ref:
      type = "BIGINT";
      break;
    default:
      type = "TEXT";
  }
  std::string sql = f.name + " " + type;
  if (f.type == T::ref) {
    sql += " REFERENCES " + f.ref_kind + " (id) ON DELETE " + (f.required ? "CASCADE" : "SET NULL");
  }
  return sql;
}

// The migration that added `field` to the kind's table; 0 for the first table.
int added_in(const Kind& k, const std::string& field) {
  for (const auto& [name, version] : k.added)
    if (name == field) return version;
  return 0;
}

// CREATE TABLE for one kind; `id` is the dialect's auto-increment key.
std::string table_sql(const Kind& k, const std::string& id) {
  std::string sql = "CREATE TABLE " + k.name + " (id " + id +
                    ", owner_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE";
  for (const Field& f : k.fields)
    if (added_in(k, f.name) == 0) sql += ", " + column_sql(f);
  for (const std::string& c : k.columns) sql += ", " + c;
  sql += ", created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL";
  for (const std::string& c : k.constraints) sql += ", " + c;
  sql += ");";
  sql += "CREATE INDEX " + k.name + "_owner ON " + k.name + " (owner_id, id);";
  sql += "CREATE INDEX " + k.name + "_updated ON " + k.name + " (owner_id, updated_at);";
  for (const Field& f : k.fields)
    if (f.type == T::ref)
      sql += "CREATE INDEX " + k.name + "_" + f.name + " ON " + k.name + " (" + f.name + ");";
  return sql;
}

std::string schema_sql(const std::string& id) {
  std::string sql;
  for (const Kind& k : kinds())
    if (k.since == 0) sql += table_sql(k, id);
  sql += "CREATE TABLE application_events (id " + id +
         ", application_id BIGINT NOT NULL REFERENCES applications (id) ON DELETE CASCADE"
         ", kind TEXT NOT NULL, occurred_at BIGINT NOT NULL, summary TEXT NOT NULL, body TEXT"
         ", from_status TEXT, to_status TEXT, end_reason TEXT"
         ", interview_id BIGINT REFERENCES interviews (id) ON DELETE SET NULL"
         ", actor TEXT NOT NULL DEFAULT '', created_at BIGINT NOT NULL);"
         "CREATE INDEX application_events_application ON application_events"
         " (application_id, occurred_at);"
         "CREATE TABLE application_tags ("
         "application_id BIGINT NOT NULL REFERENCES applications (id) ON DELETE CASCADE"
         ", tag_id BIGINT NOT NULL REFERENCES tags (id) ON DELETE CASCADE"
         ", PRIMARY KEY (application_id, tag_id));"
         "CREATE INDEX application_tags_tag ON application_tags (tag_id);"
         // What the dashboard and the scheduler's announcements look up.
         "CREATE INDEX reminders_open ON reminders (owner_id, due_at) WHERE done_at IS NULL;"
         "CREATE INDEX interviews_scheduled ON interviews (owner_id, starts_at)"
         " WHERE outcome = 'scheduled';"
         "CREATE INDEX listings_closing ON listings (owner_id, closes_on) WHERE closed_at IS NULL;"
         "CREATE INDEX listings_state ON listings (owner_id, state);"
         "CREATE INDEX applications_status ON applications (owner_id, status);";
  return sql;
}

}  // namespace

const Field* Kind::field(std::string_view n) const {
  for (const Field& f : fields)
    if (f.name == n) return &f;
  return nullptr;
}

const std::vector<Kind>& kinds() {
  static const std::vector<Kind> all = make_kinds();
  return all;
}

const Kind* find_kind(std::string_view name) {
  for (const Kind& k : kinds())
    if (k.name == name) return &k;
  return nullptr;
}

const Kind& kind(std::string_view name) {
  const Kind* k = find_kind(name);
  if (k == nullptr) throw std::out_of_range("no record kind " + std::string(name));
  return *k;
}

const std::vector<std::string>& statuses() { return kStatuses; }

int status_rank(std::string_view s) {
  auto it = std::find(kStatuses.begin(), kStatuses.end(), s);
  return it == kStatuses.end() ? -1 : static_cast<int>(it - kStatuses.begin());
}

bool is_open_status(std::string_view s) {
  int r = status_rank(s);
  return r >= 0 && r <= status_rank("offer");
}

bool is_sent_status(std::string_view s) {
  return status_rank(s) >= 0 && s != "draft" && s != "withdrawn";
}

const std::vector<std::string>& event_kinds() { return kEventKinds; }

bool is_system_event(std::string_view k) {
  // document_sent is written by media::Documents::record_sent, with its upload.
  return k == "status_change" || k == "interview_scheduled" || k == "interview_cancelled" ||
         k == "interview_no_show" || k == "document_sent";
}

const std::vector<std::string>& end_reasons() { return kEndReasons; }

std::vector<store::Migration> record_migrations() {
  return {{6, "records", schema_sql("INTEGER PRIMARY KEY"),
           schema_sql("BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY")}};
}

std::vector<store::Migration> added_field_migrations() {
  store::Migration days{16, "all-day and undated reminders and interviews", "", "", {}};
  for (const Kind& k : kinds())
    for (const auto& [name, version] : k.added)
      if (version == days.version)
        days.sql += "ALTER TABLE " + k.name + " ADD COLUMN " + column_sql(*k.field(name)) + ";";
  return {days};
}

namespace {

// Migration `version`: the tables of the kinds made in it.
store::Migration kind_tables(int version, std::string name) {
  auto tables = [version](const std::string& id) {
    std::string sql;
    for (const Kind& k : kinds())
      if (k.since == version) sql += table_sql(k, id);
    return sql;
  };
  return {version, std::move(name), tables("INTEGER PRIMARY KEY AUTOINCREMENT"),
          tables("BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY")};
}

}  // namespace

std::vector<store::Migration> career_migrations() {
  return {kind_tables(23, "the career record and CVs")};
}

std::vector<store::Migration> letter_migrations() { return {kind_tables(24, "letter templates")}; }

}  // namespace peto::domain
