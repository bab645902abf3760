#pragma once
// A config struct names its settings: `static auto fields()` returns a tuple of
// field("name", &Config::member) pairs, so that a host (the R glue) fills any config by name
// with one generic function and no code per sampler. A member that is itself a struct with
// fields() is filled from the same flat set of names.
#include <tuple>

namespace vhmc {

template <class C, class T>
struct Field {
  const char* name;
  T C::*member;
};

template <class C, class T>
constexpr Field<C, T> field(const char* name, T C::*member) {
  return {name, member};
}

}  // namespace vhmc
