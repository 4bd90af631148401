// Test fixtures over files on disk: a scratch directory of the running test, and one that holds the shared
// test inputs (test_inputs.h).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>

#include "test_inputs.h"

namespace zerosim::testing {

// A directory of its own for the running test: zerosim_<tag>_<pid>_<test name> under the system's temporary
// directory (tests running in parallel do not share one), created by SetUp and removed with its contents by
// TearDown.
class ScratchDirTest : public ::testing::Test {
 protected:
  explicit ScratchDirTest(std::string tag) : tag_(std::move(tag)) {}

  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           std::filesystem::path("zerosim_" + tag_ + "_" + std::to_string(::getpid()) + "_" +
                                 ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Writes `text` to file `name` of the directory (replacing it).
  void Write(const std::string& name, const std::string& text) const { std::ofstream(dir_ / name) << text; }
  // The path of file `name` of the directory.
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  // The bytes of file `p` ("" if it cannot be read).
  static std::string Read(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }

  std::filesystem::path dir_;

 private:
  std::string tag_;
};

// A scratch directory holding the shared inputs as files: t.toml (kTopology), m.toml (kModel), s.toml
// (kScenario) and c.json (Calibration()).
class InputFilesTest : public ScratchDirTest {
 protected:
  using ScratchDirTest::ScratchDirTest;

  void SetUp() override {
    ScratchDirTest::SetUp();
    for (const auto& [name, text] : InputFiles()) Write(name, text);
  }
};

}  // namespace zerosim::testing
