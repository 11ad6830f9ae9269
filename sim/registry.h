#pragma once
// Implementations chosen by name (as Ramulator 2's `impl:` keys): an interface keeps a registry of factories,
// each implementation registers itself from its own file with NPUSIM_REGISTER_IMPL, and the config names one.
// An unknown name is a ConfigError listing the valid ones; nothing falls back to a default.
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "sim/config/hw_config.h"

namespace npusim::sim {

template <class Interface>
class ImplRegistry {
 public:
  using Factory = std::function<std::unique_ptr<Interface>(const HwConfig&)>;
  static ImplRegistry& instance() {
    static ImplRegistry r;
    return r;
  }
  bool add(const std::string& name, Factory f) { return factories_.emplace(name, std::move(f)).second; }
  std::unique_ptr<Interface> create(const std::string& key, const std::string& name, const HwConfig& hw) const {
    const auto it = factories_.find(name);
    if (it == factories_.end())
      throw ConfigError(key + " = '" + name + "' is not a registered implementation (valid: " + names() + ")");
    return it->second(hw);
  }
  std::string names() const {
    std::string s;
    for (const auto& [n, f] : factories_) s += (s.empty() ? "" : ", ") + n;
    return s;
  }

 private:
  std::map<std::string, Factory> factories_;  // sorted: the listing is stable
};

#define NPUSIM_REGISTER_IMPL(Interface, Name, Class)                                                         \
  static const bool npusim_impl_registered_##Class = ::npusim::sim::ImplRegistry<Interface>::instance().add( \
      Name,                                                                                                  \
      [](const ::npusim::sim::HwConfig& hw) -> std::unique_ptr<Interface> { return std::make_unique<Class>(hw); })

}  // namespace npusim::sim
