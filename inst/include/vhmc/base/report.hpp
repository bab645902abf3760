#pragma once
// Named values a sampler reports about a chain (what its warmup phases chose, what its
// surrogate measured, ...). Every phase writes into a Report the same way, so the host
// converts every report with one function (src/glue_convert.h) and never needs to know
// which sampler made it. Names are kept in the order they were added.
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "types.hpp"

namespace vhmc {

class Report {
 public:
  // A nested report groups values that belong together (e.g. a network's parameters).
  using Value = std::variant<double, long, bool, std::string, Vec, Mat, std::shared_ptr<const Report>>;

  void add(const std::string& name, double v) { put(name, Value(v)); }
  void add(const std::string& name, int v) { put(name, Value(static_cast<long>(v))); }
  void add(const std::string& name, long v) { put(name, Value(v)); }
  void add(const std::string& name, bool v) { put(name, Value(v)); }
  void add(const std::string& name, const char* v) { put(name, Value(std::string(v))); }
  void add(const std::string& name, const std::string& v) { put(name, Value(v)); }
  void add(const std::string& name, const Vec& v) { put(name, Value(v)); }
  void add(const std::string& name, const Mat& v) { put(name, Value(v)); }
  void add(const std::string& name, const Report& v) { put(name, Value(std::make_shared<const Report>(v))); }

  // Adds (or replaces) every value of other.
  void merge(const Report& other) {
    for (const auto& kv : other.items_) put(kv.first, kv.second);
  }

  const std::vector<std::pair<std::string, Value>>& items() const { return items_; }
  bool empty() const { return items_.empty(); }

  // The value stored under name (for tests); throws std::out_of_range if absent.
  const Value& at(const std::string& name) const {
    for (const auto& kv : items_)
      if (kv.first == name) return kv.second;
    throw std::out_of_range("Report: no value named '" + name + "'");
  }

 private:
  // A second value under the same name replaces the first (phases may refine a value).
  void put(const std::string& name, Value v) {
    for (auto& kv : items_)
      if (kv.first == name) {
        kv.second = std::move(v);
        return;
      }
    items_.emplace_back(name, std::move(v));
  }
  std::vector<std::pair<std::string, Value>> items_;
};

}  // namespace vhmc
