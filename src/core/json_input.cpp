#include "core/json_input.hpp"

#include <algorithm>

#include "util/error.hpp"
#include "util/strings.hpp"

namespace envbisect {

void Problems::add(const std::string& pointer, const std::string& message) {
  m_items.push_back(m_source + ": " + (pointer.empty() ? "" : pointer + ": ") + message);
}

void Problems::throw_if_any() const {
  if (m_items.empty()) {
    return;
  }
  std::string message = m_items.size() == 1 ? m_items.front()
                                             : std::to_string(m_items.size()) + " problems:\n  " + join(m_items, "\n  ");
  throw Error(message, ExitCode::bad_input);
}

nlohmann::json parse_json_text(const std::string& text, const std::string& source) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& error) {
    // nlohmann reports a byte offset; users need line and column.
    std::size_t offset = std::min<std::size_t>(error.byte == 0 ? 0 : error.byte - 1, text.size());
    std::size_t line = 1;
    std::size_t column = 1;
    for (std::size_t i = 0; i < offset; ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    std::string what = error.what();
    std::size_t detail = what.find("syntax error");
    throw Error(source + ":" + std::to_string(line) + ":" + std::to_string(column) + ": malformed JSON: " +
                    (detail == std::string::npos ? what : what.substr(detail)),
                ExitCode::bad_input);
  } catch (const nlohmann::json::out_of_range& error) {
    // A number past a double ("1e400") is out_of_range, not a parse_error; it is still bad input. The
    // message quotes the number: its first occurrence gives the line and column.
    std::string what = error.what();
    std::size_t detail = what.find("number overflow");
    std::string where;
    std::size_t quote = what.find('\'');
    std::size_t end = quote == std::string::npos ? std::string::npos : what.find('\'', quote + 1);
    if (end != std::string::npos && end > quote + 1) {
      std::size_t offset = text.find(what.substr(quote + 1, end - quote - 1));
      if (offset != std::string::npos) {
        std::size_t line = 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
        std::size_t line_start = text.rfind('\n', offset == 0 ? 0 : offset - 1);
        std::size_t column = line_start == std::string::npos || offset == 0 ? offset + 1 : offset - line_start;
        where = ":" + std::to_string(line) + ":" + std::to_string(column);
      }
    }
    throw Error(source + where + ": malformed JSON: " + (detail == std::string::npos ? what : what.substr(detail)),
                ExitCode::bad_input);
  }
}

void check_fields(const nlohmann::json& object, const std::string& pointer,
                  std::initializer_list<const char*> allowed, Problems& problems) {
  std::vector<std::string> names(allowed.begin(), allowed.end());
  for (const auto& [key, value] : object.items()) {
    if (std::find(names.begin(), names.end(), key) != names.end()) {
      continue;
    }
    std::string hint = did_you_mean(key, names);
    problems.add(pointer + "/" + pointer_token(key),
                 "unknown field '" + key + "'" + (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
  }
}

std::string json_type_name(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::null: return "null";
    case nlohmann::json::value_t::object: return "an object";
    case nlohmann::json::value_t::array: return "an array";
    case nlohmann::json::value_t::string: return "a string";
    case nlohmann::json::value_t::boolean: return "a boolean";
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned: return "an integer";
    case nlohmann::json::value_t::number_float: return "a number";
    default: return "an unsupported value";
  }
}

}  // namespace envbisect
