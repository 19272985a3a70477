#include "domain/events.h"

#include <atomic>
#include <stdexcept>

namespace peto::domain {

namespace {
std::atomic<EventSink> g_sink{nullptr};
}  // namespace

void set_event_sink(EventSink sink) { g_sink.store(sink); }

void publish(store::Conn& conn, const Event& event) {
  EventSink sink = g_sink.load();
  if (sink == nullptr)
    throw std::logic_error("domain event '" + event.name +
                           "' published with no sink installed (notify::install_event_sink)");
  sink(conn, event);
}

}  // namespace peto::domain
