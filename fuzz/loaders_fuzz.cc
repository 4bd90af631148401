// libFuzzer target over the loaders and the analytic evaluation (`./dev.sh fuzz`; fuzz/README.md).
//
// An input is "<path>\n<bytes>": the shipped file at <path> (relative to the source tree, e.g.
// "topologies/dgx_h100_8x400g.toml") replaced by <bytes>; every other shipped input stays as it is. The
// file is loaded as what its path says (topologies/ a topology, scenarios/models/ a model,
// kernels/calibration/ a calibration, *.sweep.toml a sweep, any other scenarios/*.toml a scenario,
// tests/data/hf/ a Hugging Face config.json and tests/data/ds/ a DeepSpeed config, each applied to the
// default scenario as `run --hf-config` and `run --ds-config` apply them); a scenario's variants and a
// sweep's first points are then checked with model::Validate (io::ValidateVariant, a sweep point's reasons)
// and evaluated analytically. Anything but a clean Status or an infeasible result is a finding: a crash, a
// sanitizer report, an exception, or a broken invariant (model/report/invariants.h), which aborts here.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "model/io/ds_config.h"
#include "model/io/hf_config.h"
#include "model/io/loaders.h"
#include "model/io/report_json.h"
#include "model/io/sweep.h"
#include "model/report/evaluate.h"
#include "model/report/invariants.h"
#include "model/spec/feasibility.h"
#include "study/sweep_grid.h"

namespace {

namespace fs = std::filesystem;
using namespace zerosim;

std::map<std::string, std::string>& Shipped() {
  static std::map<std::string, std::string> files;
  return files;
}

// Reads every shipped input under `root` (scenarios/, topologies/, kernels/calibration/).
void LoadShipped(const fs::path& root) {
  for (const char* dir :
       {"scenarios", "topologies", "kernels/calibration", "tests/data/hf", "tests/data/ds"}) {
    if (!fs::exists(root / dir)) continue;
    for (const fs::directory_entry& e : fs::recursive_directory_iterator(root / dir)) {
      const std::string ext = e.path().extension().string();
      if (!e.is_regular_file() || (ext != ".toml" && ext != ".json")) continue;
      std::ifstream in(e.path(), std::ios::binary);
      Shipped()[fs::relative(e.path(), root).lexically_normal().string()] =
          std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    }
  }
}

[[noreturn]] void Finding(const std::string& what) {
  std::fprintf(stderr, "FINDING: %s\n", what.c_str());
  std::abort();
}

// `infeasible`: the variant's problems (model::Validate, as the loader or the sweep point found them).
void Evaluate(const std::string& scenario, const io::Variant& v, const model::ClusterSpec& c,
              const model::Calibration& cal, const std::string& infeasible) {
  if (!infeasible.empty()) return;  // an infeasible result
  const model::VariantReport r = model::EvaluateAnalyticVariant(v.name, {v.model, v.zero, c, cal});
  if (Status st = model::InvariantStatus(scenario, r); !st.ok()) Finding(st.message());
}

// Every variant of `s` that passes model::Validate, evaluated (a broken invariant is a finding).
void EvaluateScenario(const io::Scenario& s) {
  for (const io::Variant& v : s.variants) {
    Evaluate(s.name, v, s.cluster, s.calibration, model::DescribeProblems(io::ValidateVariant(s, v)));
  }
}

// A Hugging Face or DeepSpeed config (the HF loader's 64-bit dimensions, the DeepSpeed reader's duplicate
// keys and ranges) over the default scenario, as `run --hf-config` / `--ds-config` apply it.
void RunConfig(const io::MemoryFileSource& fs, const std::string& path, bool hf) {
  StatusOr<io::Scenario> s = io::LoadScenario(fs, "scenarios/default.toml", {.check_configuration = false});
  if (!s.ok()) return;
  if (hf) {
    StatusOr<io::ModelFile> m = io::LoadHfConfig(fs, path);
    if (!m.ok()) return;
    for (io::Variant& v : s.value().variants) {
      const int seq = v.model.seq_len;
      const model::AttentionImpl attention = v.model.attention;
      v.model = m->model;
      v.model.seq_len = seq;
      v.model.attention = attention;
    }
  } else {
    s = io::ApplyDsConfig(fs, path, std::move(s).value());
    if (!s.ok()) return;
  }
  EvaluateScenario(*s);
}

void RunOne(const std::string& path, const std::string& bytes) {
  std::map<std::string, std::string> files = Shipped();
  files[path] = bytes;
  const io::MemoryFileSource fs(std::move(files));
  auto ends_with = [&](const char* suffix) {
    const std::string s = suffix;
    return path.size() >= s.size() && path.compare(path.size() - s.size(), s.size(), s) == 0;
  };
  if (path.rfind("tests/data/hf/", 0) == 0 || path.rfind("tests/data/ds/", 0) == 0) {
    RunConfig(fs, path, path.rfind("tests/data/hf/", 0) == 0);
  } else if (path.rfind("topologies/", 0) == 0) {
    (void)io::LoadTopology(fs, path);
  } else if (path.rfind("scenarios/models/", 0) == 0) {
    (void)io::LoadModel(fs, path);
  } else if (path.rfind("kernels/calibration/", 0) == 0) {
    (void)io::LoadCalibration(fs, path);
  } else if (ends_with(".sweep.toml")) {
    StatusOr<io::SweepSpec> s = study::LoadSweep(fs, path);
    if (!s.ok()) return;
    for (size_t i = 0; i < study::PointCount(*s) && i < 4; ++i) {
      const study::SweepPoint p = study::MakePoint(*s, i);
      if (!p.infeasible.empty()) continue;
      for (size_t k = 0; k < p.variants.size(); ++k) {
        Evaluate(s->name, p.variants[k], p.cluster, p.calibration, p.variant_infeasible[k]);
      }
    }
  } else if (ends_with(".toml")) {
    StatusOr<io::Scenario> s = io::LoadScenario(fs, path);
    if (!s.ok()) return;
    model::Report report;
    report.scenario_name = s->name;
    report.cluster = s->cluster;
    for (const io::Variant& v : s->variants) {
      const std::string infeasible = model::DescribeProblems(io::ValidateVariant(*s, v));
      Evaluate(s->name, v, s->cluster, s->calibration, infeasible);
      if (infeasible.empty()) {
        report.variants.push_back(
            model::EvaluateAnalyticVariant(v.name, {v.model, v.zero, s->cluster, s->calibration}));
      }
    }
    (void)io::ReportJsonText(report);  // the JSON writer on whatever names the input carried
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* root = std::getenv("ZEROSIM_SOURCE_DIR");
  LoadShipped(root != nullptr ? root : ZEROSIM_SOURCE_DIR);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const size_t nl = input.find('\n');
  if (nl == std::string::npos || nl == 0 || nl > 200) return 0;
  const std::string path = input.substr(0, nl);
  if (path.find("..") != std::string::npos) return 0;
  try {
    RunOne(path, input.substr(nl + 1));
  } catch (const std::exception& e) {
    Finding(std::string("uncaught exception: ") + e.what());
  }
  return 0;
}
