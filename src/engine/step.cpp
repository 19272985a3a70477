#include "engine/step.h"

#include <algorithm>

namespace peto::engine {

namespace {

std::string words_for(const Figure& f, std::int64_t n) {
  std::string words(n == 1 ? f.one : f.many);
  if (words.empty()) words = std::string(n == 1 ? f.many : f.one);
  const std::string count = std::to_string(n);
  for (auto at = words.find("{n}"); at != std::string::npos; at = words.find("{n}", at))
    words.replace(at, 3, count);
  return words;
}

}  // namespace

StepResult::StepResult(std::initializer_list<Figure> declared) {
  figures_.reserve(declared.size());
  for (const auto& f : declared) figures_.emplace_back(f, 0);
}

void StepResult::add(const Figure& f, std::int64_t n) {
  auto it = std::find_if(figures_.begin(), figures_.end(),
                         [&](const auto& entry) { return entry.first.key == f.key; });
  if (it == figures_.end())
    figures_.emplace_back(f, n);
  else
    it->second += n;
}

void StepResult::merge(const StepResult& other) {
  for (const auto& [f, n] : other.figures_) add(f, n);
}

std::int64_t StepResult::operator[](std::string_view key) const {
  for (const auto& [f, n] : figures_)
    if (f.key == key) return n;
  return 0;
}

Counts StepResult::counts() const {
  Counts out;
  for (const auto& [f, n] : figures_) out[std::string(f.key)] += n;
  return out;
}

std::vector<std::string> StepResult::summary() const {
  std::vector<std::string> lines;
  for (const auto& [f, n] : figures_)
    if (n != 0 && !(f.one.empty() && f.many.empty())) lines.push_back(words_for(f, n));
  return lines;
}

bool StepResult::all_zero() const {
  return std::all_of(figures_.begin(), figures_.end(),
                     [](const auto& entry) { return entry.second == 0; });
}

}  // namespace peto::engine
