#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace envbisect {

// The kind of a pre-release, in PEP 440 order (a < b < rc).
enum class PreKind { a, b, rc };

// A pre-release marker: its kind and number ("rc1" is {rc, 1}; an implicit number is 0).
struct PreRelease {
  PreKind kind = PreKind::a;
  std::uint64_t number = 0;
  bool operator==(const PreRelease&) const = default;
};

// A PEP 440 version: [N!]N(.N)*[{a|b|rc}N][.postN][.devN][+local], parsed from any of the spellings
// the spec accepts and ordered as the spec (and pip) orders them. Numbers are limited to 64 bits.
class Version {
public:
  // Construct the version "0".
  Version() = default;

  // Parse a version in any PEP 440 spelling (case-insensitive, leading "v", surrounding whitespace,
  // "alpha"/"c"/"pre"/"preview"/"rev"/"r", "-N" post releases, "-"/"_"/"." separators, implicit 0).
  // Return nullopt when the text is not a PEP 440 version or a number does not fit 64 bits.
  static std::optional<Version> parse(std::string_view text);

  // Return the normalised form ("1.0-1" -> "1.0.post1", "1.0+Ubuntu-1" -> "1.0+ubuntu.1").
  std::string to_string() const;

  // Return the normalised form without the local label ("2.11.0+cu128" -> "2.11.0").
  std::string public_version() const;

  // Return the normalised local label without "+" ("cu128"), or "" when there is none.
  std::string local() const;

  // Return whether the version has a local label.
  bool has_local() const;

  // Return the epoch (0 when none was written).
  std::uint64_t epoch() const { return m_epoch; }

  // Return the release numbers as written ("1.0" -> {1, 0}; never empty).
  const std::vector<std::uint64_t>& release() const { return m_release; }

  // Return the pre-release marker, if any.
  std::optional<PreRelease> pre() const { return m_pre; }

  // Return the post-release number, if any.
  std::optional<std::uint64_t> post() const { return m_post; }

  // Return the development-release number, if any.
  std::optional<std::uint64_t> dev() const { return m_dev; }

  // Return whether this is a pre-release or a development release (pip skips those by default).
  bool is_prerelease() const { return m_pre.has_value() || m_dev.has_value(); }

  // Return whether this version satisfies the specifier "==pin" (no wildcard): a pin without a local
  // label matches every local label of its public version ("==2.11.0" matches "2.11.0+cu130"); a pin
  // with a local label matches only that label. Release numbers are zero-padded ("==2.11" matches "2.11.0").
  bool matches_exact(const Version& pin) const;

  // Order as PEP 440 does: dev < pre < release < post, release zero-padded (1.0 == 1.0.0), a local
  // label after none, local segments numeric when numeric, and a numeric segment after an alphanumeric one.
  std::weak_ordering operator<=>(const Version& other) const;

  // Return whether the versions are equal in PEP 440 order (so "1.0" == "1.0.0").
  bool operator==(const Version& other) const;

private:
  // One dot-separated segment of a local label: a number, or lower-case alphanumeric text.
  struct LocalSegment {
    bool numeric = false;
    std::uint64_t number = 0;
    std::string text;  // the lower-case text; for numeric segments, the number without leading zeros
  };

  std::uint64_t m_epoch = 0;
  std::vector<std::uint64_t> m_release{0};
  std::optional<PreRelease> m_pre;
  std::optional<std::uint64_t> m_post;
  std::optional<std::uint64_t> m_dev;
  std::vector<LocalSegment> m_local;
};

}  // namespace envbisect
