#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace envbisect {

// One file a package index lists for a project (PEP 503 anchor or PEP 691 "files" entry).
struct IndexFile {
  std::string filename;  // the last segment of the URL's path, percent-decoded ("torch-2.11.0+cu128-...whl")
  std::string url;       // absolute, fragment removed; may carry the page URL's credentials
  std::string sha256;    // lower-case hex from "#sha256=" or JSON "hashes"; "" when the index gives none
  bool yanked = false;   // PEP 592 data-yanked / JSON "yanked"
  std::string page;      // the page that listed it, credentials redacted (for messages)
};

// The largest index page parsed (after decompression), as HttpLimits::max_page_bytes fetches.
inline constexpr std::size_t k_max_index_page_bytes = std::size_t{64} << 20;

// Which form of the simple repository API a page is in.
enum class PageFormat { html, pep691_json };

// Return the format a response is in, from its Content-Type: PEP 691 JSON for
// "application/vnd.pypi.simple.v1+json", otherwise HTML.
PageFormat page_format(std::string_view content_type);

// Return the files of a PEP 503 HTML page (or a --find-links page: any page of anchors), their URLs
// resolved against `page_url`. `shown_url` names the page in errors (credentials redacted). Throw
// Error (bad_input) naming shown_url when the body is larger than k_max_index_page_bytes, not HTML (no
// <html>, <!doctype html> nor anchor), an anchor is unterminated, or a sha256 fragment is not 64 hex digits. Anchors without an
// href (named anchors) link nowhere and are skipped.
std::vector<IndexFile> parse_simple_html(std::string_view body, std::string_view page_url, std::string_view shown_url);

// Return the files of a PEP 691 JSON project page, URLs resolved against `page_url`. Throw Error
// (bad_input) naming shown_url and the JSON field when the body is larger than k_max_index_page_bytes,
// nested deeper than k_max_json_depth (checked before anything is built), not JSON, its
// meta.api-version is not 1.x, or a file lacks a string filename or url.
std::vector<IndexFile> parse_simple_json(std::string_view body, std::string_view page_url, std::string_view shown_url);

// Return `reference` resolved against `base` (RFC 3986: absolute, "//host", "/path", relative with
// "." and ".." segments, "?query"), fragment dropped.
std::string resolve_url(std::string_view base, std::string_view reference);

// Return the URL of project `name`'s page on the index at `index_url`: the index URL, "/" when it
// lacks one, the PEP 503 normalised name, "/".
std::string project_page_url(std::string_view index_url, std::string_view name);

// Return `url` fit to be shown or written: the userinfo ("user:password@") replaced by "<redacted>@"
// and secret query values redacted. A URL without credentials is returned unchanged.
std::string display_url(std::string_view url);

}  // namespace envbisect
