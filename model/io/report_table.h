// The human-readable report: one column per variant, then the cross-node volume comparison in units of
// M (the model's fp16 size) with the factors that make it up.
#pragma once

#include <string>

#include "model/report/report.h"

namespace zerosim::io {

std::string FormatReportTable(const model::Report& r);

}  // namespace zerosim::io
