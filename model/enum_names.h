// Names of an enum's values as one array in the enum's order: the value's name (its input spelling or label)
// and back. A table instead of a switch per enum, so a name is written once, next to its siblings; the
// arrays' sizes are checked against the enums' value counts where they are written.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace zerosim::model {

// names[value], or `unknown` for a value outside the table.
template <typename E, size_t N>
constexpr const char* NameOf(const std::array<const char*, N>& names, E value, const char* unknown = "?") {
  const auto i = static_cast<size_t>(value);
  return i < N ? names[i] : unknown;
}

// The value whose name is `name`; nullopt for none.
template <typename E, size_t N>
std::optional<E> ValueNamed(const std::array<const char*, N>& names, std::string_view name) {
  for (size_t i = 0; i < N; ++i) {
    if (name == names[i]) return static_cast<E>(i);
  }
  return std::nullopt;
}

}  // namespace zerosim::model
