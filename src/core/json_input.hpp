#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace envbisect {

// Collects every problem found in one input document, so they can be reported together.
class Problems {
public:
  // Start collecting problems for the document named `source` (a file name).
  explicit Problems(std::string source) : m_source(std::move(source)) {}

  // Record that the value at JSON `pointer` is wrong, with a message saying what was expected.
  void add(const std::string& pointer, const std::string& message);

  // Return true when no problem was recorded.
  bool empty() const { return m_items.empty(); }

  // Throw one Error (bad_input) listing every recorded problem; do nothing when there are none.
  void throw_if_any() const;

  // Take over every problem recorded in `other` (another document's), keeping its file names.
  void absorb(const Problems& other) { m_items.insert(m_items.end(), other.m_items.begin(), other.m_items.end()); }

  // Return the name of the document.
  const std::string& source() const { return m_source; }

private:
  std::string m_source;
  std::vector<std::string> m_items;
};

// The deepest nesting of objects and arrays an input document may have.
inline constexpr std::size_t k_max_json_depth = 128;

// Parse JSON text; throw Error naming `source`, line and column when it is malformed, and `source`
// with the JSON pointer of every member named twice in one object, or of where the nesting passes
// k_max_json_depth levels (exit code bad_input).
nlohmann::json parse_json_text(const std::string& text, const std::string& source);

// Record every member of `object` not in `allowed` as an unknown field, with a did-you-mean.
void check_fields(const nlohmann::json& object, const std::string& pointer,
                  std::initializer_list<const char*> allowed, Problems& problems);

// Record every string (and member name) under `value` that holds a NUL character: such a value would
// be cut short where it becomes an argument, a path or an environment variable.
void check_no_nul(const nlohmann::json& value, const std::string& pointer, Problems& problems);

// Return a short name of the JSON type of `value` for messages ("a string", "an object", ...).
std::string json_type_name(const nlohmann::json& value);

}  // namespace envbisect
