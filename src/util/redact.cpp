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

// A delta of a dimension whose values are named by the user (env, data): its name decides.
bool is_named_value_delta(const nlohmann::json& object) {
  auto dimension = object.find("dimension");
  auto name = object.find("name");
  return dimension != object.end() && dimension->is_string() && (*dimension == "env" || *dimension == "data") &&
         name != object.end() && name->is_string();
}

// Characters that end a URL inside free text.
bool ends_url(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '"' || c == '\'' || c == '<' || c == '>' || c == '`';
}

// Append the query "a=1&token=x" (without its '?') with the values of secret parameters redacted.
void append_query(std::string_view query, std::string& out) {
  std::size_t begin = 0;
  while (begin <= query.size()) {
    std::size_t end = query.find_first_of("&;", begin);
    const std::string_view param = query.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin);
    const std::size_t eq = param.find('=');
    if (eq != std::string_view::npos && eq > 0 && eq + 1 < param.size() && is_secret_name(param.substr(0, eq))) {
      out += param.substr(0, eq + 1);
      out += k_redacted;
    } else {
      out += param;
    }
    if (end == std::string_view::npos) {
      break;
    }
    out += query[end];
    begin = end + 1;
  }
}

}  // namespace

bool is_secret_name(std::string_view name) {
  if (name.substr(0, 4) == "AWS_" || name.substr(0, 4) == "aws_") {
    return true;
  }
  if (name == "PWD" || name == "OLDPWD") {
    return false;  // the shell's working directories, not MYSQL_PWD
  }
  // Whole words that name a secret. PW, PSWD, PWORD: short forms of password (GIT_ASKPASS_PW, DB_PW);
  // SSHPASS: the variable sshpass reads; PAT: a personal access token (GH_PAT); KEYS, TOKENS would hit
  // MAX_TOKENS, so only their secret compounds are suffixes below.
  static const std::array<std::string_view, 37> k_words{
      "TOKEN", "SECRET", "SECRETS", "PASSWORD", "PASSWORDS", "PASSWD", "PASS", "PWD", "PW", "PSWD", "PWORD",
      "PASSPHRASE", "KEY", "APIKEY", "PRIVATE", "CREDENTIAL", "CREDENTIALS", "CREDS", "AUTH", "AUTHORIZATION",
      "COOKIE", "COOKIES", "SESSION", "SESSIONID", "DSN", "BEARER", "JWT", "WEBHOOK", "SIGNATURE", "SIG",
      "PASSCODE", "OTP", "SSHPASS", "PAT", "PRIVKEY", "APIKEYS", "CLIENTSECRET"};
  // Word endings that name a secret: ACCESSTOKEN, PGPASSWORD, AWSSECRETKEY, DBPW. Endings only where no
  // ordinary word ends so (KEY would take MONKEY and HOTKEY, PASS would take BYPASS and COMPASS).
  static const std::array<std::string_view, 14> k_suffixes{"TOKEN",      "SECRET",    "PASSWORD",  "PASSWD",
                                                           "APIKEY",     "PASSPHRASE", "COOKIE",   "SESSIONID",
                                                           "SECRETKEY",  "ACCESSKEY", "PRIVATEKEY", "PRIVKEY",
                                                           "AUTHKEY",    "CREDENTIALS"};
  for (const std::string& word : name_words(name)) {
    if (std::find(k_words.begin(), k_words.end(), word) != k_words.end()) {
      return true;
    }
    for (std::string_view suffix : k_suffixes) {
      if (word.size() >= suffix.size() && std::string_view(word).substr(word.size() - suffix.size()) == suffix) {
        return true;
      }
    }
  }
  return false;
}

bool is_secret_flag(std::string_view arg) {
  if (arg.size() < 2 || arg[0] != '-' || arg.find('=') != std::string_view::npos) {
    return false;
  }
  const std::string_view name = arg.substr(arg[1] == '-' ? 2 : 1);
  if (name.substr(0, 3) == "no-" || name.substr(0, 3) == "no_" || name.empty() || !is_alnum(name.front())) {
    return false;  // "--no-auth" switches something off and takes no value
  }
  return is_secret_name(name);
}

std::string redact_url_credentials(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t copied = 0;
  for (std::size_t mark = text.find("://"); mark != std::string_view::npos; mark = text.find("://", mark + 3)) {
    if (mark < copied || mark == 0 || !is_alnum(text[mark - 1])) {
      continue;  // not a scheme: "://" alone, or inside a part already copied
    }
    const std::size_t host_begin = mark + 3;
    std::size_t url_end = host_begin;
    while (url_end < text.size() && !ends_url(text[url_end])) {
      ++url_end;
    }
    const std::string_view url = text.substr(host_begin, url_end - host_begin);
    const std::size_t authority_end = std::min(url.find_first_of("/?#"), url.size());
    const std::string_view authority = url.substr(0, authority_end);
    out += text.substr(copied, host_begin - copied);
    if (const std::size_t at = authority.rfind('@'); at != std::string_view::npos) {
      const std::string_view userinfo = authority.substr(0, at);
      if (const std::size_t colon = userinfo.find(':'); colon != std::string_view::npos) {
        out += userinfo.substr(0, colon + 1);
        out += k_redacted;
      } else {
        out += looks_like_token(userinfo) ? std::string(k_redacted) : std::string(userinfo);
      }
      out += authority.substr(at);
    } else {
      out += authority;
    }
    // The path stays; the query loses the values of secret parameters.
    const std::string_view rest = url.substr(authority_end);
    const std::size_t question = rest.find('?');
    if (question == std::string_view::npos) {
      out += rest;
    } else {
      const std::size_t hash = std::min(rest.find('#', question), rest.size());
      out += rest.substr(0, question + 1);
      append_query(rest.substr(question + 1, hash - question - 1), out);
      out += rest.substr(hash);
    }
    copied = url_end;
  }
  out += text.substr(copied);
  return out;
}

bool looks_like_token(std::string_view value) {
  return prefixed_token(value) || is_jwt(value) || random_looking(value);
}

std::string redact_env_value(std::string_view name, std::string_view value) {
  if (is_secret_name(name) && !value.empty()) {
    // A webhook URL is a credential as a whole: its host may show, nothing after it.
    const std::size_t mark = value.find("://");
    const std::vector<std::string> words = name_words(name);
    const bool webhook = std::find(words.begin(), words.end(), "WEBHOOK") != words.end();
    if (webhook && mark != std::string_view::npos && mark > 0) {
      const std::size_t host_end = std::min(value.find_first_of("/?#", mark + 3), value.size());
      const std::string_view authority = value.substr(mark + 3, host_end - mark - 3);
      const std::size_t at = authority.rfind('@');
      return std::string(value.substr(0, mark + 3)) +
             std::string(at == std::string_view::npos ? authority : authority.substr(at + 1)) + "/" + std::string(k_redacted);
    }
    return std::string(k_redacted);
  }
  if (looks_like_token(value)) {
    return std::string(k_redacted);
  }
  const std::string without_urls = redact_url_credentials(value);
  // A token or NAME=secret inside the value (a header, a list of options) hides the whole value.
  return redact_text(without_urls) != without_urls ? std::string(k_redacted) : without_urls;
}

std::vector<std::string> redact_argv(const std::vector<std::string>& argv) {
  std::vector<std::string> out;
  out.reserve(argv.size());
  for (std::size_t i = 0; i < argv.size(); ++i) {
    if (i > 0 && is_secret_flag(argv[i - 1])) {
      out.emplace_back(k_redacted);
    } else {
      out.push_back(redact_text(argv[i]));
    }
  }
  return out;
}

namespace {

std::string redact_words(std::string_view raw, TokenRule rule) {
  const std::string without_urls = redact_url_credentials(raw);
  const std::string_view text = without_urls;
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  bool after_secret_flag = false;  // the previous word was "--token" and only blanks followed it
  while (i < text.size()) {
    if (after_secret_flag && (text[i] == '\'' || text[i] == '"')) {
      // "--password 'two words'": the quoted value goes whole.
      const std::size_t close = text.find(text[i], i + 1);
      out += k_redacted;
      i = close == std::string_view::npos ? text.size() : close + 1;
      after_secret_flag = false;
      continue;
    }
    if (!is_word_char(text[i])) {
      after_secret_flag = after_secret_flag && (text[i] == ' ' || text[i] == '\t');
      out += text[i++];
      continue;
    }
    const std::size_t length = run_length(text, i, is_word_char);
    const std::string_view word = text.substr(i, length);
    out += after_secret_flag ? std::string(k_redacted) : redact_word(word, rule);
    after_secret_flag = !after_secret_flag && is_secret_flag(word);
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
    // An array of strings may be an argv: the argument after "--token" goes whatever it looks like.
    nlohmann::json out = nlohmann::json::array();
    bool after_secret_flag = false;
    for (const auto& item : doc) {
      out.push_back(after_secret_flag && item.is_string() ? nlohmann::json(k_redacted) : redact_json(item));
      after_secret_flag = item.is_string() && is_secret_flag(item.get_ref<const std::string&>());
    }
    return out;
  }
  if (!doc.is_object()) {
    return doc;
  }
  nlohmann::json out = nlohmann::json::object();
  const std::string* delta_name = is_named_value_delta(doc) ? &doc["name"].get_ref<const std::string&>() : nullptr;
  for (const auto& [key, value] : doc.items()) {
    if (delta_name != nullptr && (key == "good" || key == "bad") && value.is_string()) {
      out[key] = redact_env_value(*delta_name, value.get_ref<const std::string&>());
    } else if ((key == "env" || key == "data") && value.is_object()) {
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
