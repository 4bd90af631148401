#include "sim/sim_result.h"

#include <cstring>
#include <type_traits>

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
  bool done() const { return pos_ == in_.size(); }

 private:
  const std::string& in_;
  size_t pos_ = 0;
};

}  // namespace

std::string SerializeSimResult(const SimResult& r) {
  Writer w;
  w.Put(kMagic);
  const model::Timing& t = r.timing;
  for (double v : {t.iteration_s, t.compute_s, t.optimizer_s, t.gpu_side_s, t.interference_s,
                   t.compute_busy_s, t.exposed_comm_s}) {
    w.Put(v);
  }
  w.Put(t.queue_busy_s);
  w.PutVector(t.start_s);
  w.PutVector(t.finish_s);
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
  model::Timing& t = r.timing;
  bool ok = rd.Get(&magic) && magic == kMagic;
  for (double* v : {&t.iteration_s, &t.compute_s, &t.optimizer_s, &t.gpu_side_s, &t.interference_s,
                    &t.compute_busy_s, &t.exposed_comm_s}) {
    ok = ok && rd.Get(v);
  }
  ok = ok && rd.Get(&t.queue_busy_s) && rd.GetVector(&t.start_s) && rd.GetVector(&t.finish_s) &&
       rd.Get(&r.volumes.cross_node) && rd.Get(&r.volumes.intra_node) && rd.Get(&r.stats) &&
       rd.GetVector(&r.trace) && rd.done();
  if (!ok) return Status::Error("malformed simulation result from the child process");
  return r;
}

}  // namespace zerosim::sim
