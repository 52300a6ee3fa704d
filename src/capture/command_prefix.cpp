#include "capture/command_prefix.hpp"

#include "util/error.hpp"
#include "util/strings.hpp"

namespace envbisect {

std::vector<std::string> split_command_prefix(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;  // true once a word has started (quotes can start an empty word)
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) {
        words.push_back(word);
        word.clear();
        in_word = false;
      }
    } else if (c == '\'') {
      const std::size_t end = text.find('\'', i + 1);
      if (end == std::string_view::npos) {
        throw Error("--via '" + std::string(text) + "': unterminated single quote");
      }
      word.append(text.substr(i + 1, end - i - 1));
      in_word = true;
      i = end;
    } else if (c == '"') {
      std::size_t j = i + 1;
      for (; j < text.size() && text[j] != '"'; ++j) {
        if (text[j] == '\\' && j + 1 < text.size() && (text[j + 1] == '"' || text[j + 1] == '\\')) {
          ++j;
        }
        word += text[j];
      }
      if (j >= text.size()) {
        throw Error("--via '" + std::string(text) + "': unterminated double quote");
      }
      in_word = true;
      i = j;
    } else if (c == '\\') {
      if (i + 1 >= text.size()) {
        throw Error("--via '" + std::string(text) + "': trailing backslash");
      }
      word += text[++i];
      in_word = true;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) {
    words.push_back(word);
  }
  return words;
}

std::vector<std::string> apply_command_prefix(const std::vector<std::string>& prefix,
                                              const std::vector<std::string>& argv) {
  std::vector<std::string> out = prefix;
  bool through_ssh = false;
  if (!prefix.empty()) {
    const std::string& first = prefix.front();
    const std::size_t slash = first.rfind('/');
    through_ssh = (slash == std::string::npos ? first : first.substr(slash + 1)) == "ssh";
  }
  for (const std::string& word : argv) {
    out.push_back(through_ssh ? shell_quote(word) : word);
  }
  return out;
}

}  // namespace envbisect
