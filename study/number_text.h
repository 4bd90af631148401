// Numbers as people read them in tables: "752,437", "1,069", "0.535". Never exponent notation for an amount
// of money or tokens ("7.5e+05" reads wrong).
#pragma once

#include <string>

namespace zerosim::study {

// `v` rounded to `decimals` places with its integer part grouped in thousands by commas: 752437.4 ->
// "752,437", -1234.5 with 1 decimal -> "-1,234.5". Non-finite values print as "-".
std::string GroupedNumber(double v, int decimals = 0);

}  // namespace zerosim::study
