#include "core/marker.hpp"

#include <cctype>
#include <optional>
#include <vector>

#include "core/version.hpp"
#include "util/error.hpp"

namespace envbisect {

namespace {

// A recursive-descent reader of PEP 508's marker grammar:
//   or := and ('or' and)* ; and := atom ('and' atom)* ; atom := '(' or ')' | value op value
class MarkerReader {
public:
  MarkerReader(std::string_view text, const MarkerEnvironment& environment) : m_text(text), m_env(environment) {}

  bool read_all() {
    bool value = read_or();
    skip_space();
    if (m_pos != m_text.size()) {
      fail("unexpected '" + std::string(m_text.substr(m_pos)) + "'");
    }
    return value;
  }

private:
  [[noreturn]] void fail(const std::string& what) const {
    throw Error("marker '" + std::string(m_text) + "': " + what, ExitCode::bad_input);
  }

  void skip_space() {
    while (m_pos < m_text.size() && std::isspace(static_cast<unsigned char>(m_text[m_pos])) != 0) {
      ++m_pos;
    }
  }

  bool keyword(std::string_view word) {
    skip_space();
    if (m_text.substr(m_pos, word.size()) != word) {
      return false;
    }
    std::size_t end = m_pos + word.size();
    if (end < m_text.size() && (std::isalnum(static_cast<unsigned char>(m_text[end])) != 0 || m_text[end] == '_')) {
      return false;
    }
    m_pos = end;
    return true;
  }

  bool read_or() {
    bool value = read_and();
    while (keyword("or")) {
      bool right = read_and();
      value = value || right;
    }
    return value;
  }

  bool read_and() {
    bool value = read_atom();
    while (keyword("and")) {
      bool right = read_atom();
      value = value && right;
    }
    return value;
  }

  // A value: a quoted string, or a marker variable's value in the environment. nullopt: `extra`.
  std::optional<std::string> read_value(bool& is_variable, std::string& variable) {
    skip_space();
    if (m_pos >= m_text.size()) {
      fail("expected a value at the end");
    }
    char quote = m_text[m_pos];
    if (quote == '"' || quote == '\'') {
      std::size_t end = m_text.find(quote, m_pos + 1);
      if (end == std::string_view::npos) {
        fail("unterminated string");
      }
      std::string value(m_text.substr(m_pos + 1, end - m_pos - 1));
      m_pos = end + 1;
      is_variable = false;
      return value;
    }
    std::size_t start = m_pos;
    while (m_pos < m_text.size() && (std::isalnum(static_cast<unsigned char>(m_text[m_pos])) != 0 ||
                                     m_text[m_pos] == '_' || m_text[m_pos] == '.')) {
      ++m_pos;
    }
    variable = std::string(m_text.substr(start, m_pos - start));
    if (variable.empty()) {
      fail("expected a variable or a quoted string at '" + std::string(m_text.substr(start)) + "'");
    }
    is_variable = true;
    if (variable == "extra") {
      return std::nullopt;
    }
    auto found = m_env.variables.find(variable);
    if (found == m_env.variables.end()) {
      fail("unknown variable '" + variable + "'");
    }
    return found->second;
  }

  std::string read_operator() {
    skip_space();
    for (std::string_view op : {"===", "==", "!=", "<=", ">=", "~=", "<", ">"}) {
      if (m_text.substr(m_pos, op.size()) == op) {
        m_pos += op.size();
        return std::string(op);
      }
    }
    if (keyword("in")) {
      return "in";
    }
    if (keyword("not")) {
      if (!keyword("in")) {
        fail("expected 'in' after 'not'");
      }
      return "not in";
    }
    fail("expected a comparison at '" + std::string(m_text.substr(m_pos)) + "'");
  }

  bool read_atom() {
    skip_space();
    if (m_pos < m_text.size() && m_text[m_pos] == '(') {
      ++m_pos;
      bool value = read_or();
      skip_space();
      if (m_pos >= m_text.size() || m_text[m_pos] != ')') {
        fail("expected ')'");
      }
      ++m_pos;
      return value;
    }
    bool left_is_variable = false;
    bool right_is_variable = false;
    std::string left_name;
    std::string right_name;
    std::optional<std::string> left = read_value(left_is_variable, left_name);
    std::string op = read_operator();
    std::optional<std::string> right = read_value(right_is_variable, right_name);
    if (!left || !right) {
      // `extra`: the comparison holds for the extras the environment names, none by default.
      const std::string value = left ? *left : (right ? *right : std::string());
      bool named = (left || right) && m_env.extras.count(value) > 0;
      if (op == "==" || op == "===" || op == "in") {
        return named;
      }
      if (op == "!=" || op == "not in") {
        return !named;
      }
      fail("cannot compare 'extra' with " + op);
    }
    return compare(*left, op, *right, left_is_variable ? left_name : right_name);
  }

  static bool is_version_variable(const std::string& name) {
    return name == "python_version" || name == "python_full_version" || name == "implementation_version";
  }

  bool compare(const std::string& left, const std::string& op, const std::string& right, const std::string& variable) {
    if (op == "in") {
      return right.find(left) != std::string::npos;
    }
    if (op == "not in") {
      return right.find(left) == std::string::npos;
    }
    if (op == "===") {
      return left == right;
    }
    if (is_version_variable(variable)) {
      std::optional<Version> a = Version::parse(left);
      std::optional<Version> b = Version::parse(right);
      if (a && b) {
        if (op == "==") {
          // "3.12.*" is not a version; a prefix match is what PEP 440 means by ==X.*
          return *a == *b;
        }
        if (op == "!=") {
          return *a != *b;
        }
        if (op == "<") {
          return *a < *b;
        }
        if (op == "<=") {
          return *a <= *b;
        }
        if (op == ">") {
          return *a > *b;
        }
        if (op == ">=") {
          return *a >= *b;
        }
        if (op == "~=") {
          // ~=X.Y means >=X.Y, ==X.*
          const auto& release = b->release();
          if (release.size() < 2 || *a < *b) {
            return false;
          }
          for (std::size_t i = 0; i + 1 < release.size(); ++i) {
            if (i >= a->release().size() || a->release()[i] != release[i]) {
              return false;
            }
          }
          return true;
        }
      }
      if ((op == "==" || op == "!=") && right.size() > 2 && right.substr(right.size() - 2) == ".*") {
        std::string prefix = right.substr(0, right.size() - 1);
        bool match = (left + ".").rfind(prefix, 0) == 0;
        return op == "==" ? match : !match;
      }
    }
    if (op == "==") {
      return left == right;
    }
    if (op == "!=") {
      return left != right;
    }
    fail("cannot compare '" + left + "' " + op + " '" + right + "' as strings");
  }

  std::string_view m_text;
  const MarkerEnvironment& m_env;
  std::size_t m_pos = 0;
};

}  // namespace

MarkerEnvironment linux_marker_environment(const std::string& python_version, const std::string& machine) {
  std::optional<Version> version = Version::parse(python_version);
  if (!version || version->release().size() < 2 || version->release().size() > 3 || version->has_local()) {
    throw Error("--python: expected a Python version such as 3.12 or 3.12.3, got '" + python_version + "'",
                ExitCode::bad_input);
  }
  const auto& release = version->release();
  const std::string short_version = std::to_string(release[0]) + "." + std::to_string(release[1]);
  const std::string full_version = short_version + "." + std::to_string(release.size() == 3 ? release[2] : 0);
  MarkerEnvironment environment = cpython_linux_environment(short_version, full_version, machine);
  environment.variables["platform_release"] = "";
  environment.variables["platform_version"] = "";
  return environment;
}

MarkerEnvironment cpython_linux_environment(const std::string& python_version, const std::string& python_full_version,
                                            const std::string& machine) {
  MarkerEnvironment environment;
  environment.variables = {{"python_version", python_version},
                           {"python_full_version", python_full_version},
                           {"implementation_version", python_full_version},
                           {"implementation_name", "cpython"},
                           {"platform_python_implementation", "CPython"},
                           {"sys_platform", "linux"},
                           {"platform_system", "Linux"},
                           {"os_name", "posix"},
                           {"platform_machine", machine}};
  return environment;
}

bool evaluate_marker(std::string_view marker, const MarkerEnvironment& environment) {
  std::size_t first = marker.find_first_not_of(" \t");
  if (first == std::string_view::npos) {
    return true;
  }
  return MarkerReader(marker, environment).read_all();
}

std::optional<bool> marker_holds(std::string_view marker, const MarkerEnvironment& environment) {
  try {
    return evaluate_marker(marker, environment);
  } catch (const Error&) {
    return std::nullopt;
  }
}

}  // namespace envbisect
