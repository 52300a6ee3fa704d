#include "util/redact.hpp"

#include <algorithm>
#include <array>
#include <vector>

namespace envbisect {

namespace {

bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alnum(char c) { return is_upper(c) || is_lower(c) || is_digit(c); }

// A character that may be part of a token-like word in free text ("=" splits NAME=value later).
bool is_word_char(char c) { return is_alnum(c) || c == '_' || c == '-' || c == '+' || c == '.' || c == '=' || c == '/'; }

// Split a variable name into upper-case words: "wandbApiKey" and "WANDB_API_KEY" give WANDB API KEY.
std::vector<std::string> name_words(std::string_view name) {
  std::vector<std::string> words;
  std::string word;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool boundary = !is_alnum(c) || (i > 0 && is_upper(c) && is_lower(name[i - 1]));
    if (boundary && !word.empty()) {
      words.push_back(word);
      word.clear();
    }
    if (is_alnum(c)) {
      word += is_lower(c) ? static_cast<char>(c - 'a' + 'A') : c;
    }
  }
  if (!word.empty()) {
    words.push_back(word);
  }
  return words;
}

// Return the length of the run of characters from `begin` that satisfy `pred`.
template <typename Pred>
std::size_t run_length(std::string_view text, std::size_t begin, Pred pred) {
  std::size_t end = begin;
  while (end < text.size() && pred(text[end])) {
    ++end;
  }
  return end - begin;
}

bool token_char(char c) { return is_alnum(c) || c == '_' || c == '-'; }

// A known token prefix followed by at least `min_rest` token characters, and nothing else.
bool prefixed_token(std::string_view value) {
  struct Prefix {
    std::string_view text;
    std::size_t min_rest;
  };
  constexpr std::array<Prefix, 12> k_prefixes{{{"hf_", 20}, {"ghp_", 20}, {"gho_", 20}, {"ghu_", 20}, {"ghs_", 20},
                                              {"ghr_", 20}, {"github_pat_", 20}, {"sk-", 20}, {"xoxb-", 10},
                                              {"xoxp-", 10}, {"glpat-", 16}, {"npm_", 20}}};
  for (const Prefix& prefix : k_prefixes) {
    if (value.substr(0, prefix.text.size()) == prefix.text) {
      const std::size_t rest = value.size() - prefix.text.size();
      return rest >= prefix.min_rest && run_length(value, prefix.text.size(), token_char) == rest;
    }
  }
  // AWS access key ids: AKIA/ASIA and 16 upper-case letters or digits.
  if (value.size() == 20 && (value.substr(0, 4) == "AKIA" || value.substr(0, 4) == "ASIA")) {
    return std::all_of(value.begin(), value.end(), [](char c) { return is_upper(c) || is_digit(c); });
  }
  return false;
}

// A JSON web token: three base64url parts, the first starting with "eyJ" ('{"' encoded).
bool is_jwt(std::string_view value) {
  if (value.substr(0, 3) != "eyJ" || value.size() < 30) {
    return false;
  }
  std::size_t dots = 0;
  for (char c : value) {
    if (c == '.') {
      ++dots;
    } else if (!token_char(c) && c != '=') {
      return false;
    }
  }
  return dots == 2;
}

// Random-looking: 24+ characters of one base64-ish word with upper, lower and 3+ digits.
bool random_looking(std::string_view value) {
  if (value.size() < 24) {
    return false;
  }
  std::size_t upper = 0;
  std::size_t lower = 0;
  std::size_t digits = 0;
  for (char c : value) {
    if (is_upper(c)) {
      ++upper;
    } else if (is_lower(c)) {
      ++lower;
    } else if (is_digit(c)) {
      ++digits;
    } else if (c != '_' && c != '-' && c != '+' && c != '=') {
      return false;
    }
  }
  return upper >= 2 && lower >= 2 && digits >= 3;
}

// Which values count as tokens: all of looks_like_token, or only the unmistakable ones (known
// prefixes, JWTs), for JSON fields that hold checksums and ids a resumed run compares.
enum class TokenRule { any, unmistakable };

bool is_token(std::string_view value, TokenRule rule) {
  return rule == TokenRule::any ? looks_like_token(value) : prefixed_token(value) || is_jwt(value);
}

// Redact one word of free text: NAME=value with a secret NAME, or a token-looking word.
std::string redact_word(std::string_view word, TokenRule rule) {
  // Sentence punctuation is not part of a token.
  std::size_t end = word.size();
  while (end > 0 && (word[end - 1] == '.' || word[end - 1] == '=')) {
    --end;
  }
  const std::string_view core = word.substr(0, end);
  const std::string_view trail = word.substr(end);
  if (const std::size_t eq = core.find('='); eq != std::string_view::npos && eq > 0) {
    const std::string_view name = core.substr(0, eq);
    const std::string_view value = core.substr(eq + 1);
    if (!value.empty() && (is_secret_name(name) || is_token(value, rule))) {
      return std::string(name) + "=" + std::string(k_redacted) + std::string(trail);
    }
    return std::string(word);
  }
  // Path parts are checked one by one: "/home/u/hf_..." hides a token, "/tmp/run" does not.
  if (core.find('/') != std::string_view::npos) {
    std::string out;
    std::size_t begin = 0;
    for (;;) {
      const std::size_t slash = core.find('/', begin);
      const std::string_view part = core.substr(begin, slash == std::string_view::npos ? std::string_view::npos : slash - begin);
      out += is_token(part, rule) ? std::string(k_redacted) : std::string(part);
      if (slash == std::string_view::npos) {
        break;
      }
      out += '/';
      begin = slash + 1;
    }
    return out + std::string(trail);
  }
  return is_token(core, rule) ? std::string(k_redacted) + std::string(trail) : std::string(word);
}

bool is_env_delta(const nlohmann::json& object) {
  auto dimension = object.find("dimension");
  auto name = object.find("name");
  return dimension != object.end() && dimension->is_string() && *dimension == "env" && name != object.end() &&
         name->is_string();
}

}  // namespace

bool is_secret_name(std::string_view name) {
  if (name.substr(0, 4) == "AWS_" || name.substr(0, 4) == "aws_") {
    return true;
  }
  static const std::array<std::string_view, 13> k_words{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "KEY", "APIKEY",
                                                        "CREDENTIAL", "CREDENTIALS", "AUTH", "AUTHORIZATION",
                                                        "COOKIE", "PASSPHRASE", "PRIVATE_KEY"};
  static const std::array<std::string_view, 4> k_suffixes{"TOKEN", "SECRET", "PASSWORD", "APIKEY"};
  for (const std::string& word : name_words(name)) {
    if (std::find(k_words.begin(), k_words.end(), word) != k_words.end()) {
      return true;
    }
    for (std::string_view suffix : k_suffixes) {
      if (word.size() > suffix.size() && std::string_view(word).substr(word.size() - suffix.size()) == suffix) {
        return true;
      }
    }
  }
  return false;
}

bool looks_like_token(std::string_view value) {
  return prefixed_token(value) || is_jwt(value) || random_looking(value);
}

std::string redact_env_value(std::string_view name, std::string_view value) {
  if (is_secret_name(name) || looks_like_token(value) || redact_text(value) != value) {
    return std::string(k_redacted);
  }
  return std::string(value);
}

namespace {

std::string redact_words(std::string_view text, TokenRule rule) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    if (!is_word_char(text[i])) {
      out += text[i++];
      continue;
    }
    const std::size_t length = run_length(text, i, is_word_char);
    out += redact_word(text.substr(i, length), rule);
    i += length;
  }
  return out;
}

}  // namespace

std::string redact_text(std::string_view text) { return redact_words(text, TokenRule::any); }

nlohmann::json redact_json(const nlohmann::json& doc) {
  if (doc.is_string()) {
    return redact_words(doc.get_ref<const std::string&>(), TokenRule::unmistakable);
  }
  if (doc.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& item : doc) {
      out.push_back(redact_json(item));
    }
    return out;
  }
  if (!doc.is_object()) {
    return doc;
  }
  nlohmann::json out = nlohmann::json::object();
  const bool secret_delta = is_env_delta(doc) && is_secret_name(doc["name"].get_ref<const std::string&>());
  for (const auto& [key, value] : doc.items()) {
    if (secret_delta && (key == "good" || key == "bad") && !value.is_null()) {
      out[key] = k_redacted;
    } else if (key == "env" && value.is_object()) {
      // An environment: a variable's name decides, then its value.
      nlohmann::json env = nlohmann::json::object();
      for (const auto& [name, variable] : value.items()) {
        env[name] = variable.is_string() ? nlohmann::json(redact_env_value(name, variable.get_ref<const std::string&>()))
                                         : redact_json(variable);
      }
      out[key] = env;
    } else {
      out[key] = redact_json(value);
    }
  }
  return out;
}

}  // namespace envbisect
