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

// Parse JSON text; throw Error naming `source`, line and column when it is malformed.
nlohmann::json parse_json_text(const std::string& text, const std::string& source);

// Record every member of `object` not in `allowed` as an unknown field, with a did-you-mean.
void check_fields(const nlohmann::json& object, const std::string& pointer,
                  std::initializer_list<const char*> allowed, Problems& problems);

// Return a short name of the JSON type of `value` for messages ("a string", "an object", ...).
std::string json_type_name(const nlohmann::json& value);

}  // namespace envbisect
