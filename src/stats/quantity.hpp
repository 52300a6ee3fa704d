#pragma once

#include <string>

namespace envbisect::stats {

// Return a measured value as people quote it: 4 significant digits below 1000, whole numbers above,
// thousands grouped by a space from 10 000 on ("122 208", "1030", "204.6", "0.0179"); an exponent only
// below 1e-4.
std::string human_number(double value);

// Return human_number(value) followed by the unit when there is one ("122 208 tok/s").
std::string with_unit(double value, const std::string& unit);

// Which way a metric is better: the recipe's direction.
enum class Better { higher, lower };

// Return how `bad` compares with `good` in words a reader quotes, never below 1x: "3.33x slower",
// "1.96x faster" for a rate (unit ending in "/s") or a duration (s, ms, us, ns, min, h); "worse" and
// "better" otherwise, by `better`.
std::string comparison_words(double good, double bad, Better better, const std::string& unit);

}  // namespace envbisect::stats
