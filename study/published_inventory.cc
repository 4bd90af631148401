#include "study/published_inventory.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace zerosim::study {
namespace {

std::string Reasons(const std::map<std::string, int>& reasons) {
  std::string out;
  for (const auto& [why, n] : reasons) out += fmt::format("\n    {:3}  {}", n, why);
  return out;
}

}  // namespace

StatusOr<std::string> FormatPublishedInventory(const std::string& json_text, const std::string& path,
                                               const std::vector<std::string>& validated) {
  const nlohmann::json j = nlohmann::json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object() || !j.contains("cases") || !j["cases"].is_array()) {
    return Status::Error(
        fmt::format("{}: not an inventory of published runs (a JSON object with \"cases\")", path));
  }
  std::set<std::string> files;
  for (const std::string& f : validated) files.insert(std::filesystem::path(f).filename().string());
  int exact = 0, approximated = 0, cannot = 0, skipped = 0;
  std::map<std::string, int> approximations, reasons;
  for (const nlohmann::json& c : j["cases"]) {
    if (!c.is_object() || !c.contains("id") || !c.contains("run") || !c["run"].is_boolean()) {
      return Status::Error(fmt::format("{}: a case without \"id\" and \"run\"", path));
    }
    if (!c["run"].get<bool>()) {
      ++cannot;
      ++reasons[c.value("reason", std::string("no reason given"))];
      continue;
    }
    if (!files.count(c.value("scenario", std::string()))) {
      ++skipped;
      continue;
    }
    const nlohmann::json a = c.value("approximations", nlohmann::json::array());
    if (a.is_array() && !a.empty()) {
      ++approximated;
      for (const nlohmann::json& why : a)
        ++approximations[why.is_string() ? why.get<std::string>() : why.dump()];
    } else {
      ++exact;
    }
  }
  const int total = exact + approximated + cannot + skipped;
  std::string out = fmt::format(
      "published runs ({}: {} cases): {} ran without approximation, {} ran with "
      "approximations, {} cannot run{}\n",
      path, total, exact, approximated, cannot,
      skipped > 0 ? fmt::format(", {} not among the scenarios validated", skipped) : "");
  if (approximated > 0) out += fmt::format("  approximations:{}\n", Reasons(approximations));
  if (cannot > 0) out += fmt::format("  cannot run:{}\n", Reasons(reasons));
  return out;
}

StatusOr<std::string> PublishedInventories(const std::vector<std::string>& scenario_files) {
  std::set<std::string> dirs;
  for (const std::string& f : scenario_files) dirs.insert(std::filesystem::path(f).parent_path().string());
  std::string out;
  for (const std::string& d : dirs) {
    const std::string path = (std::filesystem::path(d) / "cases.json").string();
    std::ifstream in(path, std::ios::binary);
    if (!in) continue;
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    StatusOr<std::string> s = FormatPublishedInventory(text, path, scenario_files);
    if (!s.ok()) return s.status();
    out += *s;
  }
  return out;
}

}  // namespace zerosim::study
