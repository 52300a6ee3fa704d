#pragma once

#include <string>

namespace CLI {
class App;
}

namespace envbisect {

// Give every option that takes a value a check refusing an empty one, in every subcommand: an empty
// value is a mistake, never "not given".
void reject_empty_values(CLI::App& app);

// Give every option that takes a value its value name (PATH, SECONDS, N; never CLI11's TEXT or INT),
// in every subcommand, and its range in words ("1 to 100", not "INT in [1 - 100]").
void name_values(CLI::App& app);

// Return "--NAME needs a value: VALUE (...)" when an option that takes a value ends the command line
// or is followed by another option; "" otherwise.
std::string missing_value(const CLI::App& app, int argc, char** argv);

// Return what a parse error most likely meant: an unknown subcommand or option named with the nearest
// known one ("did you mean diff?"); "" when nothing is near.
std::string suggestion(const CLI::App& app, int argc, char** argv);

}  // namespace envbisect
