#include "util/strings.hpp"

#include <algorithm>
#include <cctype>

namespace envbisect {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) {
    row[j] = j;
  }
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t above = row[j];
      std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + cost});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_distance = 3;
  for (const std::string& candidate : candidates) {
    std::size_t distance = edit_distance(word, candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  return best;
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) {
      out += sep;
    }
    out += parts[i];
  }
  return out;
}

std::string shell_quote(std::string_view text) {
  bool plain = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("@%_+=:,./-").find(c) != std::string_view::npos;
  });
  if (plain) {
    return std::string(text);
  }
  // A word with a control byte, a C1 control or invalid UTF-8 goes in bash's $'...' with every such
  // byte as \xHH: pasted, it gives the same bytes; printed, nothing reaches the terminal raw.
  if (escape_control(text) != text) {
    static const char* const k_hex = "0123456789abcdef";
    std::string out = "$'";
    for (std::size_t i = 0; i < text.size();) {
      const auto c = static_cast<unsigned char>(text[i]);
      const std::size_t length = c < 0x80 ? 1 : utf8_sequence_length(text, i);
      const bool c1 = length == 2 && c == 0xc2 && static_cast<unsigned char>(text[i + 1]) < 0xa0;
      if (c < 0x20 || c == 0x7f || length == 0 || c1) {
        for (std::size_t k = 0; k < std::max<std::size_t>(length, 1); ++k) {
          const auto b = static_cast<unsigned char>(text[i + k]);
          out += std::string("\\x") + k_hex[b >> 4] + k_hex[b & 0xf];
        }
        i += std::max<std::size_t>(length, 1);
        continue;
      }
      if (c == '\'' || c == '\\') {
        out += '\\';
      }
      out.append(text.substr(i, length));
      i += length;
    }
    return out + "'";
  }
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  out += "'";
  return out;
}

std::string display_argv(const std::vector<std::string>& argv) {
  std::vector<std::string> quoted;
  quoted.reserve(argv.size());
  for (const std::string& arg : argv) {
    quoted.push_back(shell_quote(arg));
  }
  return join(quoted, " ");
}

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

std::string trim(std::string_view text) {
  std::size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string_view::npos) {
    return "";
  }
  std::size_t end = text.find_last_not_of(" \t\r\n");
  return std::string(text.substr(begin, end - begin + 1));
}

std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
  // Its length from the lead byte, then continuation bytes, no overlong forms, surrogates or code
  // points past U+10FFFF.
  const auto c = static_cast<unsigned char>(text[i]);
  if (c < 0x80) {
    return 1;
  }
  const std::size_t length = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
  bool valid = length != 0 && i + length <= text.size();
  for (std::size_t k = 1; valid && k < length; ++k) {
    valid = (static_cast<unsigned char>(text[i + k]) & 0xc0) == 0x80;
  }
  if (valid && length == 3) {
    const auto second = static_cast<unsigned char>(text[i + 1]);
    valid = !(c == 0xe0 && second < 0xa0) && !(c == 0xed && second >= 0xa0);  // overlong, surrogate
  }
  if (valid && length == 4) {
    const auto second = static_cast<unsigned char>(text[i + 1]);
    valid = !(c == 0xf0 && second < 0x90) && !(c == 0xf4 && second >= 0x90);
  }
  return valid ? length : 0;
}

bool is_valid_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = utf8_sequence_length(text, i);
    if (length == 0) {
      return false;
    }
    i += length;
  }
  return true;
}

std::string escape_control(std::string_view text) {
  static const char* const k_hex = "0123456789abcdef";
  auto byte_escape = [](unsigned char c) { return std::string("\\x") + k_hex[c >> 4] + k_hex[c & 0xf]; };
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7f) {
      out += byte_escape(c);
      ++i;
      continue;
    }
    if (c < 0x80) {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    const std::size_t length = utf8_sequence_length(text, i);
    if (length == 0) {
      out += byte_escape(c);
      ++i;
      continue;
    }
    const auto second = static_cast<unsigned char>(text[i + 1]);
    if (c == 0xc2 && second < 0xa0) {
      // U+0080..U+009F: C1 controls (U+009B is CSI to many terminals).
      out += std::string("\\u00") + k_hex[second >> 4] + k_hex[second & 0xf];
    } else {
      out.append(text.substr(i, length));
    }
    i += length;
  }
  return out;
}

std::string escape_control_lines(std::string_view text) {
  std::string out;
  std::size_t begin = 0;
  while (true) {
    const std::size_t newline = text.find('\n', begin);
    out += escape_control(text.substr(begin, newline == std::string_view::npos ? std::string_view::npos : newline - begin));
    if (newline == std::string_view::npos) {
      return out;
    }
    out += '\n';
    begin = newline + 1;
  }
}

std::string pointer_token(std::string_view token) {
  std::string out;
  for (char c : token) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

std::string ascii_lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') {
      c = static_cast<char>(c - 'A' + 'a');
    }
  }
  return out;
}

std::string percent_decode(std::string_view text) {
  const auto hex_value = [](char c) {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
  };
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size()) {
      const int high = hex_value(text[i + 1]);
      const int low = hex_value(text[i + 2]);
      if (high >= 0 && low >= 0) {
        out += static_cast<char>(high * 16 + low);
        i += 2;
        continue;
      }
    }
    out += text[i];
  }
  return out;
}

std::vector<std::string> lines_of(std::string_view text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') {
      line.remove_suffix(1);
    }
    lines.emplace_back(line);
    start = end + 1;
  }
  return lines;
}

}  // namespace envbisect
