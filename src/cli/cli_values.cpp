// How the command line's values are named, checked and explained when a parse fails.
#include "cli/cli_values.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <vector>

#include <CLI/CLI.hpp>

#include "util/strings.hpp"

namespace envbisect {

namespace {

// Return the value name --help shows for an option: what to type (PATH, SECONDS, N), never CLI11's
// TEXT or INT. Named by the option's long name; otherwise its name in capitals.
std::string value_name(const CLI::Option& option) {
  static const std::map<std::string, std::string> k_names = {
      {"output", "PATH"}, {"out", "PATH"}, {"recipe", "FILE"}, {"wheels", "DIR"}, {"uv-cache", "DIR"},
      {"store", "DIR"}, {"results", "DIR"}, {"checkpoints", "DIR"}, {"venv", "DIR"}, {"rootfs", "DIR"},
      {"remote-root", "DIR"}, {"find-links", "DIR|URL"}, {"index-url", "URL"}, {"journal", "FILE"},
      {"ssh-config", "FILE"}, {"remote-bundle", "FILE"}, {"isolation-base", "DIR|IMAGE"},
      {"index-timeout", "SECONDS"}, {"download-timeout", "SECONDS"}, {"run-seconds", "SECONDS"}, {"budget", "DURATION"}, {"repeats", "N"},
      {"max-runs", "N"}, {"anchor-runs", "N"}, {"slots", "N"}, {"jobs", "N"}, {"slurm-gpus", "N"},
      {"max-log-mb", "MIB"}, {"older-than", "DAYS"}, {"cell", "INDEX"}, {"via", "COMMAND"}, {"prefix", "COMMAND"},
      {"python", "PYTHON"}, {"host", "USER@HOST"}, {"repo", "NAME=PATH"}, {"as-of", "TIME"}, {"at", "REVISION"},
      {"machine", "ARCH"}, {"name", "NAME"}, {"date", "YYYY-MM-DD"}, {"slurm-partition", "PARTITION"},
      {"format", "FORMAT"}, {"executor", "EXECUTOR"}, {"builder", "BUILDER"}, {"probe", "MODE"},
      {"isolation", "ISOLATION"}, {"good", "GOOD.json"}, {"bad", "BAD.json"}, {"spec", "SPEC.json"},
      {"request", "FILE"}, {"lockfile", "LOCKFILE"}, {"rundir", "RUNDIR"}, {"candidate", "CANDIDATE"},
      {"requirement", "NAME==VERSION"}, {"shell", "SHELL"}, {"command", "COMMAND"}};
  std::string key = option.get_lnames().empty() ? option.get_name(true) : option.get_lnames().front();
  const auto found = k_names.find(key);
  if (found != k_names.end()) {
    return found->second;
  }
  std::string upper;
  for (char c : key) {
    upper += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return upper;
}

}  // namespace

// Give every option that takes a value a check refusing an empty one, in every subcommand.
void reject_empty_values(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    if (option->get_type_size() != 0) {
      option->check(CLI::Validator(
          [](std::string& value) { return value.empty() ? std::string("an empty value (an unset variable?)") : std::string(); },
          "", "not empty"));
    }
  }
  for (CLI::App* sub : app.get_subcommands({})) {
    reject_empty_values(*sub);
  }
}

// Give every option that takes a value its value name, in every subcommand, and its range in words
// ("1 to 100", not "INT in [1 - 100]").
void name_values(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    if (option->get_type_name().empty()) {
      continue;  // a flag: it takes no value
    }
    option->type_name(value_name(*option));
    for (int index = 0;; ++index) {
      CLI::Validator* validator = nullptr;
      try {
        validator = option->get_validator(index);
      } catch (const CLI::OptionNotFound&) {
        break;
      }
      const std::string text = validator->get_description();
      const auto open = text.find(" in [");
      const auto dash = text.find(" - ", open);
      if (open != std::string::npos && dash != std::string::npos && text.back() == ']') {
        validator->description(text.substr(open + 5, dash - open - 5) + " to " +
                               text.substr(dash + 3, text.size() - dash - 4));
      }
    }
  }
  for (CLI::App* sub : app.get_subcommands({})) {
    name_values(*sub);
  }
}

// Return "--NAME needs a value: VALUE (...)" when an option that takes a value ends the command line
// or is followed by another option (`--repeats` alone, `--repeats --explain`); "" otherwise. CLI11 says
// "1 required INT:INT in [1 - 100] missing" there.
std::string missing_value(const CLI::App& app, int argc, char** argv) {
  const CLI::App* scope = &app;
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    for (const CLI::App* sub : scope->get_subcommands({})) {
      if (sub->get_name() == word) {
        scope = sub;
      }
    }
    if (word.rfind("-", 0) != 0 || word.find('=') != std::string::npos || word == "--") {
      continue;
    }
    const bool last = i + 1 == argc;
    const bool option_next = !last && argv[i + 1][0] == '-' && !std::isdigit(static_cast<unsigned char>(argv[i + 1][1]));
    if (!last && !option_next) {
      continue;
    }
    for (const CLI::App* where : {scope, &app}) {
      for (const CLI::Option* option : where->get_options()) {
        if (!option->get_type_name().empty() && !option->get_positional() && option->check_name(word)) {
          std::string type = option->get_type_name();
          std::string values;
          if (const auto colon = type.find(':'); colon != std::string::npos) {
            values = type.substr(colon + 1);
            type = type.substr(0, colon);
          }
          return word + " needs a value: " + word + " " + type + (values.empty() ? "" : " (" + values + ")");
        }
      }
    }
  }
  return "";
}

// Return what a parse error most likely meant: an unknown subcommand or option named with the nearest
// known one ("did you mean diff?"); "" when nothing is near.
std::string suggestion(const CLI::App& app, int argc, char** argv) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands({})) {
    names.push_back(sub->get_name());
  }
  const CLI::App* sub = nullptr;
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word.empty() || word[0] == '-') {
      continue;
    }
    for (const CLI::App* candidate : app.get_subcommands({})) {
      if (candidate->get_name() == word) {
        sub = candidate;
      }
    }
    if (sub == nullptr) {
      const std::string near = did_you_mean(word, names);
      return "unknown subcommand '" + word + "'" + (near.empty() ? "" : "; did you mean '" + near + "'?");
    }
    break;
  }
  std::vector<std::string> flags;
  for (const CLI::App* scope : {&app, sub}) {
    if (scope == nullptr) {
      continue;
    }
    for (const CLI::Option* option : scope->get_options()) {
      for (const std::string& name : option->get_lnames()) {
        flags.push_back("--" + name);
      }
    }
  }
  for (int i = 1; i < argc; ++i) {
    std::string word = argv[i];
    if (word.rfind("--", 0) != 0 || word == "--") {
      continue;
    }
    word = word.substr(0, word.find('='));
    if (std::find(flags.begin(), flags.end(), word) == flags.end()) {
      const std::string near = did_you_mean(word, flags);
      return "unknown option '" + word + "'" + (sub != nullptr ? " for " + sub->get_name() : "") +
             (near.empty() ? "" : "; did you mean '" + near + "'?");
    }
  }
  return "";
}

}  // namespace envbisect
