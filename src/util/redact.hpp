#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace envbisect {

// What a secret is replaced by, everywhere envbisect writes.
inline constexpr std::string_view k_redacted = "<redacted>";

// Return whether an environment variable's name says its value is a secret: a word (split at "_",
// "-", "." and lower-to-upper case changes) TOKEN, SECRET, PASSWORD, PASSWD, KEY, APIKEY, CREDENTIAL(S),
// AUTH, AUTHORIZATION, COOKIE, or a word ending in TOKEN/SECRET/PASSWORD/APIKEY, or an AWS_ prefix.
// "KEYBOARD", "MONKEY", "AUTHOR" and "TOKENIZERS_PARALLELISM" are not secrets.
bool is_secret_name(std::string_view name);

// Return whether a value looks like a credential whatever its name: a known token prefix (hf_, ghp_,
// github_pat_, sk-, xoxb-, glpat-, AKIA...), a JWT, or 24+ characters of random-looking text (upper
// and lower case letters and 3+ digits). Hex digests, paths and words are not tokens.
bool looks_like_token(std::string_view value);

// Return "<redacted>" when the variable's name or its value says it is a secret, else the value.
std::string redact_env_value(std::string_view name, std::string_view value);

// Return `text` with every token-looking word, and the value of every NAME=value whose NAME is a
// secret name, replaced by "<redacted>" (for log excerpts and argv strings).
std::string redact_text(std::string_view text);

// Return a copy of `doc` with secrets replaced by "<redacted>": members of any object named "env" as
// redact_env_value says, the "good"/"bad" values of env deltas with a secret name, and in every other
// string NAME=value with a secret NAME and the unmistakable tokens (known prefixes, JWTs) only: a
// random-looking checksum or id there may be compared by a resumed run. Keys, numbers and shape are kept.
nlohmann::json redact_json(const nlohmann::json& doc);

}  // namespace envbisect
