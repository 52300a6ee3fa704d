#include "matrix/spec.hpp"

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

#include "core/json_input.hpp"
#include "core/state.hpp"
#include "core/version.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace envbisect::matrix {

using nlohmann::json;

namespace {

const std::set<std::string> k_dimensions = {"packages", "caches", "threads", "env", "data"};

// Split "dimension.key" and check the dimension; "" on success, else the problem.
std::string split_axis_name(const std::string& name, std::string& dimension, std::string& key) {
  std::size_t dot = name.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == name.size()) {
    return "expected DIMENSION.NAME (packages, caches, threads, env or data), e.g. packages.torch";
  }
  dimension = name.substr(0, dot);
  key = name.substr(dot + 1);
  if (k_dimensions.count(dimension) == 0) {
    std::string close = did_you_mean(dimension, {k_dimensions.begin(), k_dimensions.end()});
    return "unknown dimension '" + dimension + "'" + (close.empty() ? "" : " (did you mean '" + close + "'?)") +
           "; known: packages, caches, threads, env, data";
  }
  if (dimension == "packages") {
    key = normalize_package_name(key);
  }
  return "";
}

// Return the value as text if it suits the dimension; otherwise record a problem and return nullopt.
std::optional<std::string> axis_value(const std::string& dimension, const json& value, const std::string& pointer,
                                      Problems& problems) {
  if (dimension == "threads") {
    if (!value.is_number_integer() || value.get<std::int64_t>() < 1) {
      problems.add(pointer, "expected a positive integer thread count, got " + value.dump());
      return std::nullopt;
    }
    return std::to_string(value.get<std::int64_t>());
  }
  if (dimension == "packages") {
    if (!value.is_string()) {
      problems.add(pointer, "expected a version string or \"latest\", got " + json_type_name(value));
      return std::nullopt;
    }
    std::string text = value.get<std::string>();
    if (text != "latest" && !Version::parse(text)) {
      problems.add(pointer, "'" + text + "' is not a PEP 440 version nor \"latest\"");
      return std::nullopt;
    }
    return text;
  }
  if (dimension == "caches") {
    if (!value.is_string() || (value.get<std::string>() != "cold" && value.get<std::string>() != "warm")) {
      problems.add(pointer, "expected \"cold\" or \"warm\"");
      return std::nullopt;
    }
    return value.get<std::string>();
  }
  // env and data: text, numbers kept as written.
  if (value.is_string()) {
    return value.get<std::string>();
  }
  if (value.is_number()) {
    return value.dump();
  }
  problems.add(pointer, "expected a string or a number, got " + json_type_name(value));
  return std::nullopt;
}

std::string read_string(const json& doc, const char* field, Problems& problems, bool required) {
  if (!doc.contains(field)) {
    if (required) {
      problems.add("/" + std::string(field), "missing (required)");
    }
    return "";
  }
  if (!doc[field].is_string() || (required && doc[field].get<std::string>().empty())) {
    problems.add("/" + std::string(field), "expected a non-empty string, got " + json_type_name(doc[field]));
    return "";
  }
  return doc[field].get<std::string>();
}

// Parse include or exclude: an array of objects mapping axis names to values.
std::vector<Assignment> read_rules(const json& doc, const char* field, const MatrixSpec& spec, Problems& problems) {
  std::vector<Assignment> rules;
  if (!doc.contains(field)) {
    return rules;
  }
  const std::string base = "/" + std::string(field);
  if (!doc[field].is_array()) {
    problems.add(base, "expected an array of objects, got " + json_type_name(doc[field]));
    return rules;
  }
  bool is_exclude = std::string(field) == "exclude";
  for (std::size_t i = 0; i < doc[field].size(); ++i) {
    const json& rule = doc[field][i];
    const std::string at = base + "/" + std::to_string(i);
    if (!rule.is_object() || rule.empty()) {
      problems.add(at, "expected a non-empty object of axis values, e.g. {\"threads.workers\": 2}");
      continue;
    }
    Assignment assignment;
    for (const auto& [name, value] : rule.items()) {
      const std::string pointer = at + "/" + pointer_token(name);
      std::string dimension;
      std::string key;
      std::string problem = split_axis_name(name, dimension, key);
      if (!problem.empty()) {
        problems.add(pointer, problem);
        continue;
      }
      const AxisSpec* axis = nullptr;
      for (const AxisSpec& candidate : spec.axes) {
        if (candidate.dimension == dimension && candidate.key == key) {
          axis = &candidate;
        }
      }
      if (axis == nullptr && is_exclude) {
        problems.add(pointer, "not an axis of this matrix; an exclude rule can only name axes");
        continue;
      }
      std::optional<std::string> text = axis_value(dimension, value, pointer, problems);
      if (!text) {
        continue;
      }
      if (is_exclude && std::find(axis->values.begin(), axis->values.end(), *text) == axis->values.end()) {
        problems.add(pointer, "'" + *text + "' is not a value of axis " + axis->name + ": the rule would match nothing");
        continue;
      }
      assignment[axis != nullptr ? axis->name : dimension + "." + key] = *text;
    }
    rules.push_back(assignment);
  }
  return rules;
}

}  // namespace

MatrixSpec parse_matrix_spec(const std::string& text, const std::string& source) {
  json doc = parse_json_text(text, source);
  Problems problems(source);
  MatrixSpec spec;
  if (!doc.is_object()) {
    problems.add("", "expected a JSON object (a matrix spec, format 1)");
    problems.throw_if_any();
  }
  check_fields(doc, "",
               {"format", "name", "description", "base", "recipe", "wheels", "store", "repeats", "threshold",
                "min_history", "history_window", "axes", "include", "exclude"},
               problems);
  if (!doc.contains("format")) {
    problems.add("/format", "missing (required); this reader understands format 1");
  } else if (!doc["format"].is_number_integer() || doc["format"].get<std::int64_t>() != 1) {
    problems.add("/format", "unsupported format " + doc["format"].dump() + "; this reader understands format 1");
  }
  spec.name = read_string(doc, "name", problems, false);
  spec.description = read_string(doc, "description", problems, false);
  spec.base_path = read_string(doc, "base", problems, true);
  spec.recipe_path = read_string(doc, "recipe", problems, true);
  spec.store_dir = read_string(doc, "store", problems, false);
  if (doc.contains("wheels")) {
    if (!doc["wheels"].is_array()) {
      problems.add("/wheels", "expected an array of folder paths, got " + json_type_name(doc["wheels"]));
    } else {
      for (std::size_t i = 0; i < doc["wheels"].size(); ++i) {
        if (!doc["wheels"][i].is_string() || doc["wheels"][i].get<std::string>().empty()) {
          problems.add("/wheels/" + std::to_string(i), "expected a folder path");
        } else {
          spec.wheel_dirs.push_back(doc["wheels"][i].get<std::string>());
        }
      }
    }
  }
  auto read_int = [&](const char* field, int low, int& out) {
    if (doc.contains(field)) {
      if (!doc[field].is_number_integer() || doc[field].get<std::int64_t>() < low ||
          doc[field].get<std::int64_t>() > 1000) {
        problems.add("/" + std::string(field), "expected an integer from " + std::to_string(low) + " to 1000, got " +
                                                   doc[field].dump());
      } else {
        out = doc[field].get<int>();
      }
    }
  };
  read_int("repeats", 1, spec.repeats);
  read_int("min_history", 1, spec.min_history);
  read_int("history_window", 1, spec.history_window);
  if (doc.contains("threshold")) {
    if (!doc["threshold"].is_number() || doc["threshold"].get<double>() <= 0.0 || doc["threshold"].get<double>() >= 10.0) {
      problems.add("/threshold", "expected a relative change above 0 (0.2 = 20 % worse), got " + doc["threshold"].dump());
    } else {
      spec.threshold = doc["threshold"].get<double>();
    }
  }
  if (!doc.contains("axes")) {
    problems.add("/axes", "missing (required): an object of axis name -> array of values");
  } else if (!doc["axes"].is_object() || doc["axes"].empty()) {
    problems.add("/axes", "expected a non-empty object of axis name -> array of values, got " +
                              json_type_name(doc["axes"]));
  } else {
    std::set<std::string> seen;
    for (const auto& [name, values] : doc["axes"].items()) {
      const std::string pointer = "/axes/" + pointer_token(name);
      AxisSpec axis;
      axis.name = name;
      std::string problem = split_axis_name(name, axis.dimension, axis.key);
      if (!problem.empty()) {
        problems.add(pointer, problem);
        continue;
      }
      if (!seen.insert(axis.dimension + "." + axis.key).second) {
        problems.add(pointer, "names the same field as another axis");
        continue;
      }
      if (!values.is_array() || values.empty()) {
        problems.add(pointer, "expected a non-empty array of values, got " + json_type_name(values));
        continue;
      }
      for (std::size_t i = 0; i < values.size(); ++i) {
        std::optional<std::string> value = axis_value(axis.dimension, values[i], pointer + "/" + std::to_string(i), problems);
        if (!value) {
          continue;
        }
        if (std::find(axis.values.begin(), axis.values.end(), *value) != axis.values.end()) {
          problems.add(pointer + "/" + std::to_string(i), "'" + *value + "' is listed twice");
          continue;
        }
        axis.values.push_back(*value);
      }
      spec.axes.push_back(axis);
    }
  }
  spec.include = read_rules(doc, "include", spec, problems);
  spec.exclude = read_rules(doc, "exclude", spec, problems);
  bool wants_latest = false;
  for (const AxisSpec& axis : spec.axes) {
    wants_latest = wants_latest || std::find(axis.values.begin(), axis.values.end(), "latest") != axis.values.end();
  }
  if (wants_latest && spec.wheel_dirs.empty()) {
    problems.add("/wheels", "an axis asks for \"latest\" but no wheel folder is given to look it up in");
  }
  problems.throw_if_any();
  return spec;
}

}  // namespace envbisect::matrix
