// Errors as values (after leveldb's Status): nothing below main() exits or throws for bad input.
// A Status is either ok or carries a human-readable message that already names file, line and key
// where the error came from an input file.
#pragma once

#include <optional>
#include <string>
#include <utility>

namespace zerosim {

class Status {
 public:
  Status() = default;  // ok
  static Status Ok() { return Status(); }
  static Status Error(std::string message) { return Status(std::move(message)); }

  bool ok() const { return !message_.has_value(); }
  // The error text; empty for an ok status.
  const std::string& message() const {
    static const std::string kEmpty;
    return message_ ? *message_ : kEmpty;
  }

 private:
  explicit Status(std::string message) : message_(std::move(message)) {}
  std::optional<std::string> message_;
};

// A value or the Status that explains why there is none.
template <typename T>
class StatusOr {
 public:
  StatusOr(T value) : value_(std::move(value)) {}                // NOLINT: implicit by design
  StatusOr(Status status) : status_(std::move(status)) {}         // NOLINT: precondition !status.ok()
  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  const T& value() const& { return *value_; }
  T& value() & { return *value_; }
  T&& value() && { return std::move(*value_); }
  const T* operator->() const { return &*value_; }
  const T& operator*() const { return *value_; }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace zerosim
