#include "core/recipe.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/json_input.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace envbisect {

using nlohmann::json;

namespace {

const std::set<std::string> k_plain_placeholders = {"python", "env_dir", "recipe_dir", "seed", "attempt",
                                                     "gpus.target", "gpus.drafter", "run_dir"};
const std::set<std::string> k_family_placeholders = {"threads", "data", "env", "package", "cache", "repo"};

// Call `visit(name)` for each placeholder in `text`; return false on an unbalanced brace.
template <typename Visit>
bool scan_placeholders(const std::string& text, Visit visit) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '{' && i + 1 < text.size() && text[i + 1] == '{') {
      ++i;
      continue;
    }
    if (text[i] == '}' && i + 1 < text.size() && text[i + 1] == '}') {
      ++i;
      continue;
    }
    if (text[i] == '}') {
      return false;
    }
    if (text[i] == '{') {
      std::size_t end = text.find('}', i);
      if (end == std::string::npos) {
        return false;
      }
      visit(text.substr(i + 1, end - i - 1));
      i = end;
    }
  }
  return true;
}

std::string placeholder_problem(const std::string& name) {
  if (k_plain_placeholders.count(name) != 0) {
    return "";
  }
  std::size_t dot = name.find('.');
  if (dot != std::string::npos && dot + 1 < name.size() && k_family_placeholders.count(name.substr(0, dot)) != 0) {
    return "";
  }
  return "unknown placeholder {" + name +
         "}; known: {python} {env_dir} {recipe_dir} {run_dir} {seed} {attempt} {gpus.target} {gpus.drafter} "
         "{threads.NAME} {data.NAME} {env.NAME} {package.NAME} {cache.NAME} {repo.NAME}";
}

void check_template(const std::string& text, const std::string& pointer, Problems& problems) {
  bool balanced = scan_placeholders(text, [&](const std::string& name) {
    std::string problem = placeholder_problem(name);
    if (!problem.empty()) {
      problems.add(pointer, problem);
    }
  });
  if (!balanced) {
    problems.add(pointer, "unbalanced '{' or '}' (write {{ or }} for a literal brace)");
  }
}

std::vector<std::string> read_argv(const json& doc, const char* key, Problems& problems, bool required) {
  std::vector<std::string> out;
  std::string pointer = std::string("/") + key;
  auto it = doc.find(key);
  if (it == doc.end()) {
    if (required) {
      problems.add(pointer, "missing; expected an argv array such as [\"{python}\", \"bench.py\"]");
    }
    return out;
  }
  if (!it->is_array() || it->empty()) {
    problems.add(pointer, "expected a non-empty array of strings (an argv), got " +
                              (it->is_array() ? std::string("an empty array") : json_type_name(*it)));
    return out;
  }
  for (std::size_t i = 0; i < it->size(); ++i) {
    const json& arg = (*it)[i];
    if (i == 0 && arg.is_string() && trim(arg.get_ref<const std::string&>()).empty()) {
      problems.add(pointer + "/0", "the program to run is empty");
      continue;
    }
    if (arg.is_string() && arg.get_ref<const std::string&>().find('\0') != std::string::npos) {
      problems.add(pointer + "/" + std::to_string(i), "contains a NUL character, which no argument can hold");
      continue;
    }
    if (arg.is_string()) {
      out.push_back(arg.get<std::string>());
    } else if (arg.is_number_integer()) {
      out.push_back(arg.dump());
    } else {
      problems.add(pointer + "/" + std::to_string(i), "expected a string, got " + json_type_name(arg));
      continue;
    }
    check_template(out.back(), pointer + "/" + std::to_string(i), problems);
  }
  return out;
}

}  // namespace

Recipe parse_recipe(const std::string& text, const std::string& source, Deterministic deterministic) {
  json doc = parse_json_text(text, source);
  Problems problems(source);
  if (!doc.is_object()) {
    problems.add("", "expected a JSON object (a recipe), got " + json_type_name(doc));
    problems.throw_if_any();
  }
  check_fields(doc, "", {"format", "name", "description", "command", "warmup", "env", "metric", "unit", "direction",
                         "checksum", "error_field", "repeats", "timeout_s", "seed", "isolation", "network", "outcome"},
               problems);
  for (const auto& [key, value] : doc.items()) {
    if (key != "command" && key != "warmup" && key != "env") {  // those three say so themselves
      check_no_nul(value, "/" + pointer_token(key), problems);
    }
  }
  Recipe recipe;
  if (!doc.contains("format") || !doc["format"].is_number_integer() || doc["format"].get<std::int64_t>() != 1) {
    problems.add("/format", "expected 1 (this envbisect reads recipe format 1)");
  }
  auto text_field = [&](const char* key, std::string& target, bool required) {
    auto it = doc.find(key);
    if (it == doc.end()) {
      if (required) {
        problems.add(std::string("/") + key, "missing; expected a string");
      }
    } else if (!it->is_string() || it->get<std::string>().empty()) {
      problems.add(std::string("/") + key, "expected a non-empty string, got " + it->dump());
    } else {
      target = it->get<std::string>();
    }
  };
  text_field("name", recipe.name, false);
  text_field("description", recipe.description, false);
  if (auto outcome = doc.find("outcome"); outcome != doc.end()) {
    if (*outcome == "pass-fail") {
      recipe.pass_fail = true;
    } else if (*outcome != "metric") {
      problems.add("/outcome", "expected \"metric\" or \"pass-fail\", got " + outcome->dump());
    }
  }
  recipe.pass_fail = recipe.pass_fail || deterministic == Deterministic::yes;
  // A pass/fail test is judged by its exit status alone: it needs no metric.
  if (!recipe.pass_fail && doc.find("metric") == doc.end()) {
    problems.add("/metric", "missing; expected the name of the metric the benchmark prints (a test whose exit status "
                            "is the whole result needs none: \"outcome\": \"pass-fail\" here, or --deterministic)");
  }
  text_field("metric", recipe.metric, false);
  text_field("unit", recipe.unit, false);
  text_field("checksum", recipe.checksum, false);
  text_field("error_field", recipe.error_field, false);
  recipe.command = read_argv(doc, "command", problems, true);
  recipe.warmup = read_argv(doc, "warmup", problems, false);
  if (auto env = doc.find("env"); env != doc.end()) {
    if (!env->is_object()) {
      problems.add("/env", "expected an object of NAME: value, got " + json_type_name(*env));
    } else {
      for (const auto& [name, value] : env->items()) {
        const std::string pointer = "/env/" + pointer_token(name);
        if (name.empty() || name.find('=') != std::string::npos || name.find('\0') != std::string::npos) {
          problems.add(pointer, "invalid environment variable name (empty, or with '=' or NUL)");
          continue;
        }
        if (!value.is_string()) {
          problems.add(pointer, "expected a string, got " + json_type_name(value));
          continue;
        }
        if (value.get_ref<const std::string&>().find('\0') != std::string::npos) {
          problems.add(pointer, "contains a NUL character, which no environment variable can hold");
          continue;
        }
        check_template(value.get<std::string>(), pointer, problems);
        recipe.env.emplace(name, value.get<std::string>());
      }
    }
  }
  if (auto direction = doc.find("direction"); direction != doc.end()) {
    if (*direction == "higher") {
      recipe.higher_is_better = true;
    } else if (*direction == "lower") {
      recipe.higher_is_better = false;
    } else {
      problems.add("/direction", "expected \"higher\" or \"lower\", got " + direction->dump());
    }
  }
  if (auto repeats = doc.find("repeats"); repeats != doc.end()) {
    // Read as 64 bits first: get<int>() would wrap 4294967297 to 1.
    if (!repeats->is_number_integer() || repeats->get<std::int64_t>() < 1 || repeats->get<std::int64_t>() > 100) {
      problems.add("/repeats", "expected an integer from 1 to 100, got " + repeats->dump());
    } else {
      recipe.repeats = static_cast<int>(repeats->get<std::int64_t>());
    }
  }
  if (auto timeout = doc.find("timeout_s"); timeout != doc.end()) {
    // A run turns this into whole milliseconds: below 1 ms it would become 0 ("no limit"), past a
    // million seconds the conversion overflows.
    if (!timeout->is_number() || !(timeout->get<double>() >= 0.001) || !(timeout->get<double>() <= 1e6)) {
      problems.add("/timeout_s", "expected a positive number of seconds, from 0.001 to 1000000, got " + timeout->dump());
    } else {
      recipe.timeout_s = timeout->get<double>();
    }
  }
  if (auto seed = doc.find("seed"); seed != doc.end()) {
    if (!seed->is_number_integer()) {
      problems.add("/seed", "expected an integer, got " + seed->dump());
    } else {
      recipe.seed = seed->get<std::int64_t>();
    }
  }
  if (auto isolation = doc.find("isolation"); isolation != doc.end()) {
    if (*isolation != "none" && *isolation != "bwrap" && *isolation != "podman" && *isolation != "lxc") {
      problems.add("/isolation", "expected \"none\", \"bwrap\", \"podman\" or \"lxc\", got " + isolation->dump());
    } else {
      recipe.isolation = isolation->get<std::string>();
    }
  }
  if (auto network = doc.find("network"); network != doc.end()) {
    if (!network->is_boolean()) {
      problems.add("/network", "expected true or false, got " + network->dump());
    } else {
      recipe.network = network->get<bool>();
    }
  }
  problems.throw_if_any();
  return recipe;
}

namespace {

// Return the placeholders named in the argv lists and the env values.
std::set<std::string> placeholders_in(std::initializer_list<const std::vector<std::string>*> argvs,
                                      const std::map<std::string, std::string>& env) {
  std::set<std::string> names;
  auto collect = [&](const std::string& text) { scan_placeholders(text, [&](const std::string& name) { names.insert(name); }); };
  for (const std::vector<std::string>* argv : argvs) {
    for (const std::string& arg : *argv) {
      collect(arg);
    }
  }
  for (const auto& [name, value] : env) {
    collect(value);
  }
  return names;
}

}  // namespace

std::vector<std::string> recipe_placeholders(const Recipe& recipe) {
  const std::set<std::string> names = placeholders_in({&recipe.command, &recipe.warmup}, recipe.env);
  return {names.begin(), names.end()};
}

std::set<std::string> warmup_placeholders(const Recipe& recipe) {
  return placeholders_in({recipe.warmup.empty() ? &recipe.command : &recipe.warmup}, recipe.env);
}

std::string expand_placeholders(const std::string& text, const std::map<std::string, std::string>& values,
                                const std::string& where) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if ((c == '{' || c == '}') && i + 1 < text.size() && text[i + 1] == c) {
      out += c;
      ++i;
      continue;
    }
    if (c != '{') {
      out += c;
      continue;
    }
    std::size_t end = text.find('}', i);
    std::string name = text.substr(i + 1, end == std::string::npos ? std::string::npos : end - i - 1);
    auto it = values.find(name);
    if (end == std::string::npos || it == values.end()) {
      throw Error(where + ": placeholder {" + name + "} has no value for this candidate", ExitCode::bad_input);
    }
    if (it->second.find('\0') != std::string::npos) {
      // An argv or environment string ends at its first NUL: the benchmark would get a cut value.
      throw Error(where + ": placeholder {" + name + "} holds a NUL character", ExitCode::bad_input);
    }
    out += it->second;
    i = end;
  }
  return out;
}

namespace {

// Return `line` with the bare words NaN, Infinity and -Infinity outside strings replaced by null.
std::string without_bare_non_finite(const std::string& line) {
  std::string out;
  out.reserve(line.size());
  bool in_string = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < line.size()) {
        out += line[++i];
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
      out += c;
      continue;
    }
    bool replaced = false;
    for (const std::string word : {"-Infinity", "Infinity", "NaN"}) {
      if (line.compare(i, word.size(), word) == 0) {
        out += "null";
        i += word.size() - 1;
        replaced = true;
        break;
      }
    }
    if (!replaced) {
      out += c;
    }
  }
  return out;
}

}  // namespace

BenchReport parse_bench_output(const std::string& stdout_text, const Recipe& recipe) {
  BenchReport report;
  // Scan lines from the end: the benchmark's result is its last JSON object line.
  std::size_t end = stdout_text.size();
  while (end > 0) {
    std::size_t begin = stdout_text.rfind('\n', end - 1);
    begin = begin == std::string::npos ? 0 : begin + 1;
    std::string line = stdout_text.substr(begin, end - begin);
    end = begin == 0 ? 0 : begin - 1;
    std::size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] != '{') {
      continue;
    }
    json doc = json::parse(line, nullptr, false);
    if (doc.is_discarded()) {
      // Python's json.dumps writes NaN and Infinity bare, which JSON has no words for: read them as
      // null, so the line is the benchmark's result with a metric that is not a number.
      doc = json::parse(without_bare_non_finite(line), nullptr, false);
    }
    if (doc.is_discarded() || !doc.is_object()) {
      continue;
    }
    report.found_json = true;
    report.json_line = line;
    for (const auto& item : doc.items()) {
      report.keys.push_back(item.key());
    }
    if (auto metric = doc.find(recipe.metric); metric != doc.end() && metric->is_number()) {
      double value = metric->get<double>();
      if (std::isfinite(value)) {
        report.metric = value;
      }
    }
    if (!recipe.checksum.empty()) {
      if (auto checksum = doc.find(recipe.checksum); checksum != doc.end() && !checksum->is_null()) {
        report.checksum = checksum->is_string() ? checksum->get<std::string>() : checksum->dump();
      }
    }
    if (auto error = doc.find(recipe.error_field); error != doc.end() && error->is_string()) {
      report.error_class = error->get<std::string>();
    }
    break;
  }
  return report;
}

}  // namespace envbisect
