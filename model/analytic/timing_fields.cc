#include "model/analytic/timing_fields.h"

#include <algorithm>
#include <array>

#include "model/aggregate_members.h"

namespace zerosim::model {

namespace {

constexpr TimingScalar kScalars[] = {
    {"iteration_s", [](Timing& t) -> double& { return t.iteration_s; }},
    {"compute_s", [](Timing& t) -> double& { return t.compute_s; }},
    {"optimizer_s", [](Timing& t) -> double& { return t.optimizer_s; }},
    {"gpu_side_s", [](Timing& t) -> double& { return t.gpu_side_s; }},
    {"interference_s", [](Timing& t) -> double& { return t.interference_s; }},
    {"queue_blocking_s", [](Timing& t) -> double& { return t.queue_blocking_s; }},
    {"compute_busy_s", [](Timing& t) -> double& { return t.compute_busy_s; }},
    {"exposed_comm_s", [](Timing& t) -> double& { return t.exposed_comm_s; }},
    {"compute_parts.gemm_s", [](Timing& t) -> double& { return t.compute_parts.gemm_s; }},
    {"compute_parts.attention_s", [](Timing& t) -> double& { return t.compute_parts.attention_s; }},
    {"compute_parts.memory_s", [](Timing& t) -> double& { return t.compute_parts.memory_s; }},
    {"compute_parts.launch_s", [](Timing& t) -> double& { return t.compute_parts.launch_s; }},
};

constexpr TimingSeries kSeries[] = {
    {"queue_busy_s",
     [](const Timing& t) { return std::vector<double>(t.queue_busy_s.begin(), t.queue_busy_s.end()); },
     [](Timing& t, std::vector<double> v) {
       if (v.size() != t.queue_busy_s.size()) return false;
       std::copy(v.begin(), v.end(), t.queue_busy_s.begin());
       return true;
     }},
    {"start_s", [](const Timing& t) { return t.start_s; },
     [](Timing& t, std::vector<double> v) {
       t.start_s = std::move(v);
       return true;
     }},
    {"finish_s", [](const Timing& t) { return t.finish_s; },
     [](Timing& t, std::vector<double> v) {
       t.finish_s = std::move(v);
       return true;
     }},
};

// Every member listed: Timing's 8 scalars, compute_parts (ComputeTime's 4, listed as
// "compute_parts.<member>") and the 3 series. A failure here means a member was added to (or removed from)
// Timing or ComputeTime: list it above, then update these counts.
static_assert(AggregateMembers<ComputeTime>() == 4, "ComputeTime changed: update kScalars' compute_parts.*");
static_assert(AggregateMembers<Timing>() == 8 + 1 + 3,
              "Timing changed: list its new member in kScalars or kSeries");
static_assert(std::size(kScalars) == 8 + 4 && std::size(kSeries) == 3);

}  // namespace

std::span<const TimingScalar> TimingScalars() { return kScalars; }
std::span<const TimingSeries> TimingSeriesList() { return kSeries; }

}  // namespace zerosim::model
