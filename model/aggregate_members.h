// AggregateMembers<T>(): how many members an aggregate struct has, counted at compile time (the largest
// number of initializers T{...} accepts from a value convertible to anything; Boost.PFR's technique). A
// field list that must name every member of a struct asserts the count beside the list, so a member added to
// the struct and not to the list fails the build instead of being dropped silently
// (model/analytic/timing_fields.cc).
#pragma once

#include <cstddef>

namespace zerosim::model {

namespace aggregate_detail {
// Converts to any member type (declared only: used in unevaluated requires-expressions).
struct AnyMember {
  template <typename T>
  operator T() const;  // NOLINT(google-explicit-constructor)
};
}  // namespace aggregate_detail

template <typename T, typename... Init>
constexpr std::size_t AggregateMembers() {
  if constexpr (requires { T{Init{}..., aggregate_detail::AnyMember{}}; }) {
    return AggregateMembers<T, Init..., aggregate_detail::AnyMember>();
  } else {
    return sizeof...(Init);
  }
}

}  // namespace zerosim::model
