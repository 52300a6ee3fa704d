#include "report/delta_table.hpp"

#include <algorithm>

#include "util/redact.hpp"
#include "util/strings.hpp"

namespace envbisect {

namespace {

std::string pad(const std::string& text, std::size_t width) {
  return text.size() >= width ? text : text + std::string(width - text.size(), ' ');
}

const char* change_kind(const Delta& delta) {
  if (!delta.good) {
    return "added";
  }
  if (!delta.bad) {
    return "removed";
  }
  return "changed";
}

}  // namespace

std::string render_delta_table(const std::vector<Delta>& shown) {
  // The table goes to terminals and reports: env and data secrets are shown as "<redacted>", and
  // control characters from the states as escapes (a value must not retitle or clear the terminal).
  std::vector<Delta> deltas = shown;
  for (Delta& delta : deltas) {
    if (delta.dimension == Dimension::env || delta.dimension == Dimension::data) {
      delta.good = delta.good ? std::optional<std::string>(redact_env_value(delta.name, *delta.good)) : std::nullopt;
      delta.bad = delta.bad ? std::optional<std::string>(redact_env_value(delta.name, *delta.bad)) : std::nullopt;
    }
    // A repo named by a tag, branch or revision shows it first, its resolved id beside it: v2.3 (0a515c7d1e2f).
    if (delta.good && !delta.good_ref.empty()) {
      delta.good = delta.good_ref + " (" + delta.good->substr(0, 12) + ")";
    }
    if (delta.bad && !delta.bad_ref.empty()) {
      delta.bad = delta.bad_ref + " (" + delta.bad->substr(0, 12) + ")";
    }
    delta.name = escape_control(delta.name);
    delta.good = delta.good ? std::optional<std::string>(escape_control(*delta.good)) : std::nullopt;
    delta.bad = delta.bad ? std::optional<std::string>(escape_control(*delta.bad)) : std::nullopt;
  }
  std::size_t name_width = 4;
  std::size_t good_width = 4;
  std::size_t bad_width = 3;
  for (const Delta& delta : deltas) {
    name_width = std::max(name_width, delta.name.size());
    good_width = std::max(good_width, delta.good.value_or("-").size());
    bad_width = std::max(bad_width, delta.bad.value_or("-").size());
  }
  std::string out;
  for (std::size_t i = 0; i < deltas.size(); ++i) {
    const Delta& delta = deltas[i];
    if (i == 0 || deltas[i - 1].dimension != delta.dimension) {
      out += std::string(to_string(delta.dimension)) + "\n";
    }
    out += "  " + pad(delta.name, name_width) + "  " + pad(delta.good.value_or("-"), good_width) + "  ->  " +
           pad(delta.bad.value_or("-"), bad_width) + "  " + change_kind(delta) + "\n";
  }
  return out;
}

}  // namespace envbisect
