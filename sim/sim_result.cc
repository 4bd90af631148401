#include "sim/sim_result.h"

#include <cstring>
#include <string_view>
#include <type_traits>

#include <fmt/format.h>

#include "model/analytic/timing_fields.h"

namespace zerosim::sim {
namespace {

constexpr uint32_t kMagic = 0x5a53494d;  // "ZSIM"

class Writer {
 public:
  template <typename T>
  void Put(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    out_.append(reinterpret_cast<const char*>(&v), sizeof(T));
  }
  template <typename T>
  void PutVector(const std::vector<T>& v) {
    Put(static_cast<uint64_t>(v.size()));
    if (!v.empty()) out_.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
  }
  void PutName(std::string_view name) {
    Put(static_cast<uint32_t>(name.size()));
    out_.append(name);
  }
  std::string str() && { return std::move(out_); }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(const std::string& in) : in_(in) {}
  template <typename T>
  bool Get(T* v) {
    static_assert(std::is_trivially_copyable_v<T>);
    if (pos_ + sizeof(T) > in_.size()) return false;
    std::memcpy(v, in_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return true;
  }
  template <typename T>
  bool GetVector(std::vector<T>* v) {
    uint64_t n = 0;
    if (!Get(&n) || n > (in_.size() - pos_) / sizeof(T)) return false;
    v->resize(n);
    if (n > 0) std::memcpy(v->data(), in_.data() + pos_, n * sizeof(T));
    pos_ += n * sizeof(T);
    return true;
  }
  bool GetName(std::string* name) {
    uint32_t n = 0;
    if (!Get(&n) || n > in_.size() - pos_) return false;
    name->assign(in_, pos_, n);
    pos_ += n;
    return true;
  }
  bool done() const { return pos_ == in_.size(); }

 private:
  const std::string& in_;
  size_t pos_ = 0;
};

// Timing crosses by name (model/analytic/timing_fields.h): a count, then each scalar as its name and value,
// then a count and each series as its name and values. The reader wants every name of the list exactly once.
void PutTiming(const model::Timing& t, Writer* w) {
  w->Put(static_cast<uint32_t>(model::TimingScalars().size()));
  for (const model::TimingScalar& f : model::TimingScalars()) {
    w->PutName(f.name);
    w->Put(f.Get(t));
  }
  w->Put(static_cast<uint32_t>(model::TimingSeriesList().size()));
  for (const model::TimingSeries& f : model::TimingSeriesList()) {
    w->PutName(f.name);
    w->PutVector(f.get(t));
  }
}

// Reads what PutTiming wrote. Errors: truncated bytes; a name the list does not have, one given twice, or one
// of the list missing.
template <typename Field, typename ReadOne>
Status GetNamed(std::span<const Field> fields, const char* kind, Reader* rd, ReadOne read_one) {
  uint32_t n = 0;
  if (!rd->Get(&n)) return Status::Error("truncated");
  std::vector<bool> seen(fields.size(), false);
  for (uint32_t i = 0; i < n; ++i) {
    std::string name;
    if (!rd->GetName(&name)) return Status::Error("truncated");
    size_t k = 0;
    while (k < fields.size() && name != fields[k].name) ++k;
    if (k == fields.size()) return Status::Error(fmt::format("unknown Timing {} '{}'", kind, name));
    if (seen[k]) return Status::Error(fmt::format("Timing {} '{}' given twice", kind, name));
    seen[k] = true;
    if (!read_one(fields[k]))
      return Status::Error(fmt::format("Timing {} '{}' truncated or malformed", kind, name));
  }
  for (size_t k = 0; k < fields.size(); ++k) {
    if (!seen[k]) return Status::Error(fmt::format("Timing {} '{}' missing", kind, fields[k].name));
  }
  return Status::Ok();
}

Status GetTiming(Reader* rd, model::Timing* t) {
  Status s = GetNamed(model::TimingScalars(), "scalar", rd,
                      [&](const model::TimingScalar& f) { return rd->Get(&f.ref(*t)); });
  if (!s.ok()) return s;
  return GetNamed(model::TimingSeriesList(), "series", rd, [&](const model::TimingSeries& f) {
    std::vector<double> v;
    return rd->GetVector(&v) && f.set(*t, std::move(v));
  });
}

}  // namespace

std::string SerializeSimResult(const SimResult& r) {
  Writer w;
  w.Put(kMagic);
  PutTiming(r.timing, &w);
  w.Put(r.volumes.cross_node);
  w.Put(r.volumes.intra_node);
  w.Put(r.stats);
  w.PutVector(r.trace);
  return std::move(w).str();
}

StatusOr<SimResult> DeserializeSimResult(const std::string& bytes) {
  Reader rd(bytes);
  SimResult r;
  uint32_t magic = 0;
  if (!rd.Get(&magic) || magic != kMagic)
    return Status::Error("malformed simulation result from the child process");
  if (const Status s = GetTiming(&rd, &r.timing); !s.ok()) {
    return Status::Error("malformed simulation result from the child process: " + s.message());
  }
  const bool ok = rd.Get(&r.volumes.cross_node) && rd.Get(&r.volumes.intra_node) && rd.Get(&r.stats) &&
                  rd.GetVector(&r.trace) && rd.done();
  if (!ok) return Status::Error("malformed simulation result from the child process");
  return r;
}

}  // namespace zerosim::sim
