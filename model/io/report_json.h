// The JSON report: a public interface (schema and stability promise in docs/report.md). Same Report,
// same bytes: keys are ordered as written here and numbers are printed round-trip exact.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "model/report/report.h"

namespace zerosim::io {

nlohmann::ordered_json ReportToJson(const model::Report& r);
nlohmann::ordered_json VariantToJson(const model::VariantReport& v);
nlohmann::ordered_json ZeroToJson(const model::ZeroConfig& z);
nlohmann::ordered_json ProvenanceToJson(const model::Provenance& p);

// ReportToJson(r) as indented text with a trailing newline.
std::string ReportJsonText(const model::Report& r);

}  // namespace zerosim::io
