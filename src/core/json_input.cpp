#include "core/json_input.hpp"

#include <algorithm>
#include <set>

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

namespace {

// A SAX pass that builds nothing: it finds members named twice in one object (nlohmann keeps the last
// silently, so a whole section could vanish) and nesting deeper than k_max_json_depth (code that walks
// a document recursively, dump() included, must never see one). Syntax errors are left to the DOM parse.
class StructureCheck {
public:
  using number_integer_t = nlohmann::json::number_integer_t;
  using number_unsigned_t = nlohmann::json::number_unsigned_t;
  using number_float_t = nlohmann::json::number_float_t;
  using string_t = nlohmann::json::string_t;
  using binary_t = nlohmann::json::binary_t;

  bool null() { return value(); }
  bool boolean(bool /*unused*/) { return value(); }
  bool number_integer(number_integer_t /*unused*/) { return value(); }
  bool number_unsigned(number_unsigned_t /*unused*/) { return value(); }
  bool number_float(number_float_t /*unused*/, const string_t& /*unused*/) { return value(); }
  bool string(string_t& /*unused*/) { return value(); }
  bool binary(binary_t& /*unused*/) { return value(); }
  bool start_object(std::size_t /*unused*/) { return open(false); }
  bool start_array(std::size_t /*unused*/) { return open(true); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(string_t& name) {
    Frame& frame = m_frames.back();
    frame.token = pointer_token(name);
    if (!frame.keys.insert(name).second) {
      m_duplicates.push_back(pointer() + ": duplicate key '" + name +
                             "' (a JSON object names each member once; which copy did you mean?)");
    }
    return true;
  }
  bool parse_error(std::size_t /*unused*/, const std::string& /*unused*/, const nlohmann::detail::exception& /*unused*/) {
    return false;
  }

  // Return the problems found, each "POINTER: what".
  std::vector<std::string> problems() const {
    std::vector<std::string> out = m_duplicates;
    if (!m_too_deep.empty()) {
      out.push_back(m_too_deep);
    }
    return out;
  }

private:
  struct Frame {
    bool array = false;
    std::size_t next_index = 0;
    std::string token;  // the member or element being read
    std::set<std::string> keys;
  };

  // A value starts: inside an array it is the next element.
  bool value() {
    if (!m_frames.empty() && m_frames.back().array) {
      m_frames.back().token = std::to_string(m_frames.back().next_index++);
    }
    return true;
  }
  bool open(bool array) {
    value();
    if (m_frames.size() >= k_max_json_depth) {
      std::string where = pointer();
      if (where.size() > 120) {
        where = where.substr(0, 120) + "...";
      }
      m_too_deep = where + ": nested deeper than " + std::to_string(k_max_json_depth) +
                   " levels (no input envbisect reads is that deep)";
      return false;  // stop here: nothing deeper is read
    }
    m_frames.push_back(Frame{array, 0, "", {}});
    return true;
  }
  bool close() {
    m_frames.pop_back();
    return true;
  }
  std::string pointer() const {
    std::string out;
    for (const Frame& frame : m_frames) {
      out += "/" + frame.token;
    }
    return out;
  }

  std::vector<Frame> m_frames;
  std::vector<std::string> m_duplicates;
  std::string m_too_deep;
};

}  // namespace

nlohmann::json parse_json_text(const std::string& text, const std::string& source) {
  // Structure first, without building anything: a document 100,000 levels deep stops at the limit.
  StructureCheck check;
  nlohmann::json::sax_parse(text, &check);
  if (std::vector<std::string> found = check.problems(); !found.empty()) {
    Problems problems(source);
    for (const std::string& problem : found) {
      problems.add("", problem);
    }
    problems.throw_if_any();
  }
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

void check_no_nul(const nlohmann::json& value, const std::string& pointer, Problems& problems) {
  if (value.is_string()) {
    if (value.get_ref<const std::string&>().find('\0') != std::string::npos) {
      problems.add(pointer, "contains a NUL character, which no argument, path or environment variable can hold");
    }
    return;
  }
  if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i) {
      check_no_nul(value[i], pointer + "/" + std::to_string(i), problems);
    }
    return;
  }
  if (value.is_object()) {
    for (const auto& [key, member] : value.items()) {
      if (key.find('\0') != std::string::npos) {
        problems.add(pointer + "/" + pointer_token(key), "the name contains a NUL character");
        continue;
      }
      check_no_nul(member, pointer + "/" + pointer_token(key), problems);
    }
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
