// A main for the fuzz target without libFuzzer (issue 20: "the fuzz target runs in CI for a bounded time"):
// the same LLVMFuzzerTestOneInput (loaders_fuzz.cc), built with the regular compiler into the test suite,
// run over the seed corpus and then over seeded random mutations of it until a time or count limit. Not
// coverage-guided (that is `./dev.sh fuzz`, clang and libFuzzer); what it keeps is the target's checks on
// every CI run: a crash, an uncaught exception or a broken invariant aborts with the input's seed and
// iteration, and `--reproduce` writes that input.
//
//   loaders_fuzz_replay CORPUS_DIR [--seconds S] [--runs N] [--seed K] [--reproduce ITERATION OUT]
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv);
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

namespace fs = std::filesystem;

volatile long g_iteration = -1;  // the mutated input running, for the message of a finding
volatile uint64_t g_seed = 0;

// A finding aborts inside the target (loaders_fuzz.cc Finding, a sanitizer, a crash): say which input.
extern "C" void OnFatal(int sig) {
  char line[160];
  const int n = std::snprintf(line, sizeof line, "\nfinding at mutated input %ld of seed %llu (rerun with --seed %llu "
                              "--reproduce %ld FILE to write it)\n", g_iteration,
                              static_cast<unsigned long long>(g_seed), static_cast<unsigned long long>(g_seed),
                              g_iteration);
  if (n > 0) (void)!write(2, line, static_cast<size_t>(n));
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void RunInput(const std::string& input) {
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
}

// Bytes a mutation inserts: TOML's structure and numbers at their edges, so that edits reach the loaders'
// range and unit checks rather than only their syntax errors.
const char* const kTokens[] = {"=", "[", "]", "{", "}", "\"", ".", ",", "\n", "#", "0", "-1", "1e308", "1e-320",
                               "65536", "2147483648", "\"1us\"", "\"0Gbps\"", "\"1e300TBps\"", "true", "nan",
                               "inf", "[[variant]]\nname = \"x\"\n", "strategy = \"fsdp2\"\n",
                               "zero_hpz_partition_size = 3\n", "nodes = 0\n"};

// One random edit of `s` after its first line (the path, which the target reads first).
std::string Mutate(const std::string& s, std::mt19937_64& rng) {
  const size_t body = s.find('\n') == std::string::npos ? s.size() : s.find('\n') + 1;
  std::string out = s;
  const size_t n = out.size() - body;
  auto at = [&](size_t extra) { return body + std::uniform_int_distribution<size_t>(0, n + extra - 1)(rng); };
  switch (std::uniform_int_distribution<int>(0, 5)(rng)) {
    case 0:  // flip a bit
      if (n > 0) out[at(0)] ^= static_cast<char>(1 << std::uniform_int_distribution<int>(0, 7)(rng));
      break;
    case 1: {  // insert a token
      const char* t = kTokens[std::uniform_int_distribution<size_t>(0, std::size(kTokens) - 1)(rng)];
      out.insert(at(1), t);
      break;
    }
    case 2:  // delete a range
      if (n > 0) {
        const size_t from = at(0);
        out.erase(from, std::uniform_int_distribution<size_t>(1, 64)(rng));
      }
      break;
    case 3:  // duplicate a range
      if (n > 0) {
        const size_t from = at(0);
        const std::string piece = out.substr(from, std::uniform_int_distribution<size_t>(1, 256)(rng));
        out.insert(at(1), piece);
      }
      break;
    case 4:  // replace a digit
      if (n > 0) {
        const size_t p = at(0);
        if (out[p] >= '0' && out[p] <= '9') out[p] = static_cast<char>('0' + rng() % 10);
      }
      break;
    default:  // truncate
      if (n > 0) out.resize(at(0));
      break;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR [--seconds S] [--runs N] [--seed K] [--reproduce ITERATION OUT]\n",
                 argv[0]);
    return 2;
  }
  double seconds = 20;
  long runs = 1000000;
  uint64_t seed = 1;
  long reproduce = -1;
  std::string reproduce_out;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--seconds" && i + 1 < argc) {
      seconds = std::atof(argv[++i]);
    } else if (a == "--runs" && i + 1 < argc) {
      runs = std::atol(argv[++i]);
    } else if (a == "--seed" && i + 1 < argc) {
      seed = std::strtoull(argv[++i], nullptr, 10);
    } else if (a == "--reproduce" && i + 2 < argc) {
      reproduce = std::atol(argv[++i]);
      reproduce_out = argv[++i];
    } else {
      std::fprintf(stderr, "unknown argument '%s'\n", a.c_str());
      return 2;
    }
  }
  std::vector<std::string> corpus;
  std::vector<fs::path> paths;
  for (const fs::directory_entry& e : fs::directory_iterator(argv[1])) {
    if (e.is_regular_file()) paths.push_back(e.path());
  }
  std::sort(paths.begin(), paths.end());  // a fixed order: the seed alone decides the inputs
  for (const fs::path& p : paths) {
    std::ifstream in(p, std::ios::binary);
    corpus.emplace_back((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  if (corpus.empty()) {
    std::fprintf(stderr, "no seed inputs in %s\n", argv[1]);
    return 2;
  }
  LLVMFuzzerInitialize(&argc, &argv);
  g_seed = seed;
  for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE}) std::signal(sig, OnFatal);
  if (reproduce < 0) {
    for (const std::string& input : corpus) RunInput(input);
  }
  std::mt19937_64 rng(seed);
  const auto start = std::chrono::steady_clock::now();
  long done = 0;
  for (; done < runs; ++done) {
    if (reproduce < 0 && std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > seconds) {
      break;
    }
    std::string input = corpus[std::uniform_int_distribution<size_t>(0, corpus.size() - 1)(rng)];
    const int edits = std::uniform_int_distribution<int>(1, 4)(rng);
    for (int e = 0; e < edits; ++e) input = Mutate(input, rng);
    if (reproduce >= 0) {
      if (done < reproduce) continue;
      std::ofstream(reproduce_out, std::ios::binary) << input;
      std::printf("iteration %ld of seed %llu written to %s\n", done, static_cast<unsigned long long>(seed),
                  reproduce_out.c_str());
      return 0;
    }
    g_iteration = done;
    RunInput(input);
  }
  std::printf("%zu seeds and %ld mutated inputs (seed %llu) ran without a finding\n", corpus.size(), done,
              static_cast<unsigned long long>(seed));
  return 0;
}
