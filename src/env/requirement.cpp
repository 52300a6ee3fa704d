#include "env/requirement.hpp"

#include <cctype>

#include "util/strings.hpp"

namespace envbisect {

namespace {

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_' || c == '.';
}

// Return whether `version`'s release starts with `prefix`'s release (zero-padded), same epoch.
bool release_prefix_matches(const Version& version, const Version& prefix) {
  if (version.epoch() != prefix.epoch()) {
    return false;
  }
  const auto& have = version.release();
  const auto& want = prefix.release();
  for (std::size_t i = 0; i < want.size(); ++i) {
    const std::uint64_t component = i < have.size() ? have[i] : 0;
    if (component != want[i]) {
      return false;
    }
  }
  return true;
}

bool clause_holds(const Version& version, const Specifier& spec) {
  if (spec.op == "===") {
    return version.to_string() == spec.version || spec.version == version.public_version();
  }
  const bool wildcard = spec.version.size() > 2 && spec.version.compare(spec.version.size() - 2, 2, ".*") == 0;
  const std::optional<Version> target =
      Version::parse(wildcard ? std::string_view(spec.version).substr(0, spec.version.size() - 2) : spec.version);
  if (!target) {
    return false;
  }
  if (spec.op == "==" || spec.op == "!=") {
    const bool equal = wildcard ? release_prefix_matches(version, *target) : version.matches_exact(*target);
    return spec.op == "==" ? equal : !equal;
  }
  // Ordered comparisons ignore the candidate's local label (PEP 440).
  const Version public_version = Version::parse(version.public_version()).value_or(version);
  if (spec.op == ">=") {
    return public_version >= *target;
  }
  if (spec.op == "<=") {
    return public_version <= *target;
  }
  if (spec.op == ">") {
    return public_version > *target;
  }
  if (spec.op == "<") {
    return public_version < *target;
  }
  if (spec.op == "~=") {
    const auto& release = target->release();
    if (release.size() < 2) {
      return false;
    }
    std::string prefix;
    for (std::size_t i = 0; i + 1 < release.size(); ++i) {
      prefix += (i == 0 ? "" : ".") + std::to_string(release[i]);
    }
    return public_version >= *target && release_prefix_matches(version, *Version::parse(prefix));
  }
  return false;
}

}  // namespace

std::optional<Requirement> parse_requirement(std::string_view text) {
  Requirement req;
  req.text = trim(text);
  std::string_view rest = req.text;
  if (const std::size_t semi = rest.find(';'); semi != std::string_view::npos) {
    req.marker = trim(rest.substr(semi + 1));
    rest = rest.substr(0, semi);
  }
  std::size_t i = 0;
  while (i < rest.size() && std::isspace(static_cast<unsigned char>(rest[i])) != 0) {
    ++i;
  }
  const std::size_t name_start = i;
  while (i < rest.size() && is_name_char(rest[i])) {
    ++i;
  }
  if (i == name_start) {
    return std::nullopt;
  }
  req.name = normalize_package_name(rest.substr(name_start, i - name_start));
  std::string clauses(rest.substr(i));
  // Extras ("[x,y]") never matter: no extra is requested.
  if (const std::size_t open = clauses.find('['); open != std::string::npos) {
    const std::size_t close = clauses.find(']', open);
    if (close == std::string::npos) {
      return std::nullopt;
    }
    clauses.erase(open, close - open + 1);
  }
  std::string cleaned;
  for (const char c : clauses) {
    if (c != '(' && c != ')' && std::isspace(static_cast<unsigned char>(c)) == 0) {
      cleaned += c;
    }
  }
  if (cleaned.rfind('@', 0) == 0) {
    return std::nullopt;  // a direct URL reference
  }
  std::size_t start = 0;
  while (start < cleaned.size()) {
    std::size_t end = cleaned.find(',', start);
    if (end == std::string::npos) {
      end = cleaned.size();
    }
    const std::string clause = cleaned.substr(start, end - start);
    start = end + 1;
    if (clause.empty()) {
      continue;
    }
    std::size_t op_len = 0;
    for (const char* op : {"===", "==", "!=", ">=", "<=", "~=", ">", "<"}) {
      const std::size_t len = std::char_traits<char>::length(op);
      if (clause.compare(0, len, op) == 0) {
        op_len = len;
        break;
      }
    }
    if (op_len == 0 || op_len == clause.size()) {
      return std::nullopt;
    }
    std::string_view version = std::string_view(clause).substr(op_len);
    if (version.size() > 2 && version.substr(version.size() - 2) == ".*") {
      version.remove_suffix(2);
    }
    if (op_len != 3 && !Version::parse(version)) {
      return std::nullopt;
    }
    req.specifiers.push_back({clause.substr(0, op_len), clause.substr(op_len)});
  }
  return req;
}

DistMetadata parse_metadata(std::string_view text, std::vector<std::string>* unreadable) {
  DistMetadata meta;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) {
      end = text.size();
    }
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    if (!line.empty() && line.back() == '\r') {
      line.remove_suffix(1);
    }
    if (line.empty()) {
      break;  // the headers end at the first blank line; the description follows
    }
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos || line[0] == ' ' || line[0] == '\t') {
      continue;
    }
    const std::string key = trim(line.substr(0, colon));
    const std::string value = trim(line.substr(colon + 1));
    if (key == "Name") {
      meta.name = normalize_package_name(value);
    } else if (key == "Version") {
      meta.version = value;
    } else if (key == "Requires-Dist") {
      if (auto req = parse_requirement(value)) {
        meta.requires_dist.push_back(std::move(*req));
      } else if (unreadable != nullptr) {
        unreadable->push_back(value);
      }
    }
  }
  return meta;
}

bool satisfies(const Version& version, const Requirement& requirement) {
  for (const Specifier& spec : requirement.specifiers) {
    if (!clause_holds(version, spec)) {
      return false;
    }
  }
  return true;
}

}  // namespace envbisect
