#include "core/version.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <utility>

namespace envbisect {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_lower_alnum(char c) { return is_digit(c) || (c >= 'a' && c <= 'z'); }
bool is_separator(char c) { return c == '-' || c == '_' || c == '.'; }
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// A read position in the lower-cased version text. The grammar is PEP 440's appendix regex; every
// optional part is tried at a saved position and the position restored when its label is absent.
class Cursor {
public:
  explicit Cursor(std::string text) : m_text(std::move(text)) {}

  bool at_end() const { return m_pos == m_text.size(); }
  char peek(std::size_t ahead = 0) const {
    return m_pos + ahead < m_text.size() ? m_text[m_pos + ahead] : '\0';
  }
  std::size_t pos() const { return m_pos; }
  void seek(std::size_t pos) { m_pos = pos; }

  // Consume one character when it is `c`.
  bool eat(char c) {
    if (peek() != c) {
      return false;
    }
    ++m_pos;
    return true;
  }

  // Consume one "-", "_" or "." when there is one.
  void eat_separator() {
    if (is_separator(peek())) {
      ++m_pos;
    }
  }

  // Consume the first label of `labels` that the text continues with; return its index or -1.
  // Labels are listed longest first where one is a prefix of another ("preview" before "pre").
  template <std::size_t N>
  int eat_label(const std::array<std::string_view, N>& labels) {
    for (std::size_t i = 0; i < N; ++i) {
      if (std::string_view(m_text).substr(m_pos, labels[i].size()) == labels[i]) {
        m_pos += labels[i].size();
        return static_cast<int>(i);
      }
    }
    return -1;
  }

  // Consume a run of digits as a number. Return nullopt (consuming nothing) when there is no digit,
  // and set `overflow` when the number does not fit 64 bits.
  std::optional<std::uint64_t> eat_number(bool& overflow) {
    if (!is_digit(peek())) {
      return std::nullopt;
    }
    std::uint64_t value = 0;
    constexpr std::uint64_t k_max = std::numeric_limits<std::uint64_t>::max();
    while (is_digit(peek())) {
      const auto digit = static_cast<std::uint64_t>(m_text[m_pos] - '0');
      if (value > (k_max - digit) / 10) {
        overflow = true;
      }
      value = value * 10 + digit;
      ++m_pos;
    }
    return value;
  }

  // Consume a run of lower-case letters and digits; return it ("" when there is none).
  std::string eat_alnum() {
    const std::size_t start = m_pos;
    while (is_lower_alnum(peek())) {
      ++m_pos;
    }
    return m_text.substr(start, m_pos - start);
  }

private:
  std::string m_text;
  std::size_t m_pos = 0;
};

constexpr std::array<std::string_view, 8> k_pre_labels{"alpha", "beta", "preview", "pre", "rc", "a", "b", "c"};
constexpr std::array<PreKind, 8> k_pre_kinds{PreKind::a,  PreKind::b, PreKind::rc, PreKind::rc,
                                             PreKind::rc, PreKind::a, PreKind::b,  PreKind::rc};
constexpr std::array<std::string_view, 3> k_post_labels{"post", "rev", "r"};
constexpr std::array<std::string_view, 1> k_dev_labels{"dev"};

std::string_view pre_kind_text(PreKind kind) {
  switch (kind) {
    case PreKind::a: return "a";
    case PreKind::b: return "b";
    case PreKind::rc: return "rc";
  }
  return "?";
}

// Return -1, 0 or 1 as a is less than, equal to or greater than b.
template <typename T>
int three_way(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

}  // namespace

std::optional<Version> Version::parse(std::string_view text) {
  // The spec is case-insensitive and ignores surrounding whitespace: fold both away first.
  while (!text.empty() && is_space(text.front())) {
    text.remove_prefix(1);
  }
  while (!text.empty() && is_space(text.back())) {
    text.remove_suffix(1);
  }
  std::string lowered(text);
  std::transform(lowered.begin(), lowered.end(), lowered.begin(), [](char c) {
    return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  });
  Cursor in(std::move(lowered));
  Version version;
  bool overflow = false;

  in.eat('v');

  // Epoch: digits followed by "!"; otherwise those digits start the release.
  const std::size_t start = in.pos();
  if (auto epoch = in.eat_number(overflow); epoch && in.eat('!')) {
    version.m_epoch = *epoch;
  } else {
    in.seek(start);
  }

  // Release: N(.N)*, a "." only counts when a digit follows it.
  version.m_release.clear();
  auto first = in.eat_number(overflow);
  if (!first) {
    return std::nullopt;
  }
  version.m_release.push_back(*first);
  while (in.peek() == '.' && is_digit(in.peek(1))) {
    in.eat('.');
    version.m_release.push_back(*in.eat_number(overflow));
  }

  // Pre-release: [sep] label [sep] [N].
  std::size_t saved = in.pos();
  in.eat_separator();
  if (int label = in.eat_label(k_pre_labels); label >= 0) {
    in.eat_separator();
    version.m_pre = PreRelease{k_pre_kinds[static_cast<std::size_t>(label)], in.eat_number(overflow).value_or(0)};
  } else {
    in.seek(saved);
  }

  // Post-release: "-N" (implicit), or [sep] label [sep] [N].
  saved = in.pos();
  if (in.peek() == '-' && is_digit(in.peek(1))) {
    in.eat('-');
    version.m_post = in.eat_number(overflow);
  } else {
    in.eat_separator();
    if (in.eat_label(k_post_labels) >= 0) {
      in.eat_separator();
      version.m_post = in.eat_number(overflow).value_or(0);
    } else {
      in.seek(saved);
    }
  }

  // Development release: [sep] "dev" [sep] [N].
  saved = in.pos();
  in.eat_separator();
  if (in.eat_label(k_dev_labels) >= 0) {
    in.eat_separator();
    version.m_dev = in.eat_number(overflow).value_or(0);
  } else {
    in.seek(saved);
  }

  // Local label: "+" alnum ([sep] alnum)*, each segment numeric when it is all digits.
  if (in.eat('+')) {
    for (;;) {
      std::string segment = in.eat_alnum();
      if (segment.empty()) {
        return std::nullopt;
      }
      LocalSegment local;
      local.numeric = std::all_of(segment.begin(), segment.end(), is_digit);
      if (local.numeric) {
        Cursor digits(segment);
        local.number = *digits.eat_number(overflow);
        local.text = std::to_string(local.number);
      } else {
        local.text = std::move(segment);
      }
      version.m_local.push_back(std::move(local));
      if (!is_separator(in.peek())) {
        break;
      }
      in.eat_separator();
    }
  }

  // Anything left over (or a number past 64 bits) makes the whole text invalid, as the spec's regex is anchored.
  if (!in.at_end() || overflow) {
    return std::nullopt;
  }
  return version;
}

std::string Version::public_version() const {
  std::string out;
  if (m_epoch != 0) {
    out += std::to_string(m_epoch) + "!";
  }
  for (std::size_t i = 0; i < m_release.size(); ++i) {
    out += (i == 0 ? "" : ".") + std::to_string(m_release[i]);
  }
  if (m_pre) {
    out += std::string(pre_kind_text(m_pre->kind)) + std::to_string(m_pre->number);
  }
  if (m_post) {
    out += ".post" + std::to_string(*m_post);
  }
  if (m_dev) {
    out += ".dev" + std::to_string(*m_dev);
  }
  return out;
}

std::string Version::local() const {
  std::string out;
  for (std::size_t i = 0; i < m_local.size(); ++i) {
    out += (i == 0 ? "" : ".") + m_local[i].text;
  }
  return out;
}

bool Version::has_local() const { return !m_local.empty(); }

std::string Version::to_string() const {
  return has_local() ? public_version() + "+" + local() : public_version();
}

namespace {

// Compare release numbers as if the shorter were padded with zeros (1.0 == 1.0.0).
int compare_release(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
  const std::size_t n = std::max(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t x = i < a.size() ? a[i] : 0;
    const std::uint64_t y = i < b.size() ? b[i] : 0;
    if (int c = three_way(x, y); c != 0) {
      return c;
    }
  }
  return 0;
}

// The sort key of a version without its local label, as pip's packaging builds it: a bare dev
// release sorts before every pre-release of its release, no pre-release after every pre-release,
// no post release before any post release, no dev release after any dev release.
struct PublicKey {
  int pre_rank;  // 0: dev-only (lowest), 1: has a pre-release, 2: none
  int pre_kind;
  std::uint64_t pre_number;
  int post_rank;  // 0: none, 1: has a post release
  std::uint64_t post_number;
  int dev_rank;  // 0: has a dev release, 1: none
  std::uint64_t dev_number;
  auto operator<=>(const PublicKey&) const = default;
};

PublicKey public_key(const Version& v) {
  PublicKey key{};
  if (v.pre()) {
    key.pre_rank = 1;
    key.pre_kind = static_cast<int>(v.pre()->kind);
    key.pre_number = v.pre()->number;
  } else {
    key.pre_rank = (!v.post() && v.dev()) ? 0 : 2;
  }
  key.post_rank = v.post() ? 1 : 0;
  key.post_number = v.post().value_or(0);
  key.dev_rank = v.dev() ? 0 : 1;
  key.dev_number = v.dev().value_or(0);
  return key;
}

// Compare everything but the local label.
int compare_public(const Version& a, const Version& b) {
  if (int c = three_way(a.epoch(), b.epoch()); c != 0) {
    return c;
  }
  if (int c = compare_release(a.release(), b.release()); c != 0) {
    return c;
  }
  const auto order = public_key(a) <=> public_key(b);
  return order < 0 ? -1 : (order > 0 ? 1 : 0);
}

}  // namespace

std::weak_ordering Version::operator<=>(const Version& other) const {
  if (int c = compare_public(*this, other); c != 0) {
    return c < 0 ? std::weak_ordering::less : std::weak_ordering::greater;
  }
  // Local labels: none sorts first; then segment by segment (a numeric segment after an
  // alphanumeric one), and a label that is a prefix of another sorts first.
  const std::size_t n = std::min(m_local.size(), other.m_local.size());
  for (std::size_t i = 0; i < n; ++i) {
    const LocalSegment& x = m_local[i];
    const LocalSegment& y = other.m_local[i];
    int c = 0;
    if (x.numeric != y.numeric) {
      c = x.numeric ? 1 : -1;
    } else if (x.numeric) {
      c = three_way(x.number, y.number);
    } else {
      c = three_way(x.text, y.text);
    }
    if (c != 0) {
      return c < 0 ? std::weak_ordering::less : std::weak_ordering::greater;
    }
  }
  return m_local.size() <=> other.m_local.size();
}

bool Version::operator==(const Version& other) const { return (*this <=> other) == 0; }

bool Version::matches_exact(const Version& pin) const {
  // A pin with a local label is strict; one without ignores this version's local label.
  if (pin.has_local()) {
    return *this == pin;
  }
  return compare_public(*this, pin) == 0;
}

}  // namespace envbisect
