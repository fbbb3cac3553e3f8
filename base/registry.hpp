// The ground floor: one registry template for every kind of component that
// registers itself by name (organizations, allocators, topologies, routings,
// traffic patterns, ...). A registry also records its names under its kind,
// so code that only lists names (the config schema's choices) reads
// registered_names(kind) without including what it lists.
#pragma once
#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace nwn {

// Every name registered under `kind` ("topology", "routing", ...), sorted.
inline std::map<std::string, std::vector<std::string>>& registered_name_index() {
  static std::map<std::string, std::vector<std::string>> index;
  return index;
}
inline std::vector<std::string> registered_names(const std::string& kind) {
  auto it = registered_name_index().find(kind);
  return it == registered_name_index().end() ? std::vector<std::string>{} : it->second;
}

template <class T>
class Registry {
 public:
  explicit Registry(std::string kind) : kind_(std::move(kind)) {}

  // A second add under the same name replaces the first.
  void add(const std::string& name, T value) {
    if (items_.insert_or_assign(name, std::move(value)).second) {
      std::vector<std::string>& names = registered_name_index()[kind_];
      names.insert(std::lower_bound(names.begin(), names.end(), name), name);
    }
  }
  const T* find(const std::string& name) const {
    auto it = items_.find(name);
    return it == items_.end() ? nullptr : &it->second;
  }
  bool contains(const std::string& name) const { return items_.count(name) != 0; }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (auto& [n, v] : items_) out.push_back(n);
    return out;
  }
  bool empty() const { return items_.empty(); }
  auto begin() const { return items_.begin(); }
  auto end() const { return items_.end(); }
  const std::string& kind() const { return kind_; }

 private:
  std::string kind_;
  std::map<std::string, T> items_;
};

}  // namespace nwn
