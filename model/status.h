// Errors as values (after leveldb's Status): nothing below main() exits or throws for bad input.
// A Status is either ok or carries a human-readable message that already names file, line and key
// where the error came from an input file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace zerosim {

// `text` with what a terminal would act on instead of show written as escapes: control characters other than
// newline and tab (NUL, ESC of a colour sequence, carriage return, DEL) as \xNN, the C1 controls and
// Unicode's direction overrides and isolates (U+202A to U+202E, U+2066 to U+2069, U+200E, U+200F, U+061C) as
// \u{NNNN}, and bytes that are not UTF-8 as \xNN. Printable text, UTF-8 included, is unchanged, and so is
// escaped text (the escapes are printable): an error message quoting an input's name cannot rewrite the
// terminal.
inline std::string EscapeUnprintable(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  auto byte = [&](unsigned char c) {
    out += "\\x";
    out += kHex[c >> 4];
    out += kHex[c & 15];
  };
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
        byte(c);
      } else {
        out += static_cast<char>(c);
      }
      ++i;
      continue;
    }
    // A UTF-8 sequence: its length from the lead byte, its continuation bytes checked, overlong forms
    // refused.
    const size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    uint32_t cp = n == 2 ? c & 0x1fu : n == 3 ? c & 0x0fu : c & 0x07u;
    bool valid = n > 0 && i + n <= text.size();
    for (size_t k = 1; valid && k < n; ++k) {
      const unsigned char d = static_cast<unsigned char>(text[i + k]);
      valid = (d & 0xc0) == 0x80;
      cp = (cp << 6) | (d & 0x3fu);
    }
    valid = valid && !(n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) &&
            !(n == 4 && (cp < 0x10000 || cp > 0x10ffff));
    if (!valid) {
      byte(c);
      ++i;
      continue;
    }
    const bool control = (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) ||
                         (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200e || cp == 0x200f || cp == 0x061c;
    if (control) {
      out += "\\u{";
      for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(cp >> shift) & 15];
      out += "}";
    } else {
      out.append(text.substr(i, n));
    }
    i += n;
  }
  return out;
}

class Status {
 public:
  Status() = default;  // ok
  static Status Ok() { return Status(); }
  // Every error is formed here: what in `message` is not printable is escaped (EscapeUnprintable).
  static Status Error(std::string message) { return Status(EscapeUnprintable(message)); }

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
