#include "env/index_page.hpp"

#include <algorithm>
#include <cctype>

#include <nlohmann/json.hpp>

#include "core/json_input.hpp"
#include "env/requirement.hpp"
#include "util/error.hpp"
#include "util/redact.hpp"
#include "util/strings.hpp"

namespace envbisect {

namespace {

bool is_hex64(std::string_view text) {
  if (text.size() != 64) {
    return false;
  }
  for (const char c : text) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) {
      return false;
    }
  }
  return true;
}

// Decode the HTML character references an attribute value may hold (&amp; &lt; &gt; &quot; &#39; &#NN; &#xNN;).
std::string decode_entities(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '&') {
      out += text[i];
      continue;
    }
    const std::size_t semi = text.find(';', i);
    if (semi == std::string_view::npos || semi - i > 10) {
      out += text[i];
      continue;
    }
    const std::string name(text.substr(i + 1, semi - i - 1));
    std::string replacement;
    if (name == "amp") {
      replacement = "&";
    } else if (name == "lt") {
      replacement = "<";
    } else if (name == "gt") {
      replacement = ">";
    } else if (name == "quot") {
      replacement = "\"";
    } else if (name == "apos") {
      replacement = "'";
    } else if (name.size() > 1 && name[0] == '#') {
      const bool hex = name[1] == 'x' || name[1] == 'X';
      try {
        const unsigned long code = std::stoul(name.substr(hex ? 2 : 1), nullptr, hex ? 16 : 10);
        if (code > 0 && code < 128) {
          replacement = std::string(1, static_cast<char>(code));
        }
      } catch (const std::exception&) {
        // not a number: kept as written
      }
    }
    if (replacement.empty()) {
      out += text[i];
      continue;
    }
    out += replacement;
    i = semi;
  }
  return out;
}

// Return the file an index URL points to: its path's last segment, percent-decoded.
std::string file_name_of(std::string_view url) {
  std::string_view path = url.substr(0, url.find_first_of("?#"));
  const std::size_t slash = path.rfind('/');
  return percent_decode(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

// Fill an IndexFile from an href (or JSON url) and what the page said about it.
IndexFile make_file(std::string_view page_url, std::string_view href, std::string_view shown_url) {
  IndexFile file;
  const std::size_t hash = href.find('#');
  if (hash != std::string_view::npos) {
    const std::string_view fragment = href.substr(hash + 1);
    if (fragment.rfind("sha256=", 0) == 0) {
      const std::string_view hex = fragment.substr(7);
      if (!is_hex64(hex)) {
        throw Error(std::string(shown_url) + ": " + file_name_of(href.substr(0, hash)) + ": sha256 fragment is not 64 hex digits: '" +
                        std::string(hex.substr(0, 80)) + "'",
                    ExitCode::bad_input);
      }
      file.sha256 = ascii_lower(hex);
    }
  }
  file.url = resolve_url(page_url, href.substr(0, hash));
  file.filename = file_name_of(file.url);
  file.page = std::string(shown_url);
  return file;
}

// Return the value of attribute `name` in the attribute text of a tag, "" with found=false when absent.
std::string attribute(std::string_view tag, std::string_view name, bool& found) {
  found = false;
  std::size_t i = 0;
  while (i < tag.size()) {
    while (i < tag.size() && (std::isspace(static_cast<unsigned char>(tag[i])) || tag[i] == '/')) {
      ++i;
    }
    const std::size_t key_start = i;
    while (i < tag.size() && !std::isspace(static_cast<unsigned char>(tag[i])) && tag[i] != '=' && tag[i] != '/') {
      ++i;
    }
    const std::string key = ascii_lower(tag.substr(key_start, i - key_start));
    while (i < tag.size() && std::isspace(static_cast<unsigned char>(tag[i]))) {
      ++i;
    }
    std::string value;
    bool has_value = false;
    if (i < tag.size() && tag[i] == '=') {
      has_value = true;
      ++i;
      while (i < tag.size() && std::isspace(static_cast<unsigned char>(tag[i]))) {
        ++i;
      }
      if (i < tag.size() && (tag[i] == '"' || tag[i] == '\'')) {
        const char quote = tag[i];
        const std::size_t end = tag.find(quote, i + 1);
        const std::size_t stop = end == std::string_view::npos ? tag.size() : end;
        value = std::string(tag.substr(i + 1, stop - i - 1));
        i = stop + 1;
      } else {
        const std::size_t start = i;
        while (i < tag.size() && !std::isspace(static_cast<unsigned char>(tag[i]))) {
          ++i;
        }
        value = std::string(tag.substr(start, i - start));
      }
    }
    if (key.empty() && !has_value) {
      ++i;
      continue;
    }
    if (key == name) {
      found = true;
      return decode_entities(value);
    }
  }
  return "";
}

// Return the scheme of a URL ("https"), "" when it has none. RFC 3986 3.1: a letter, then letters,
// digits, '+', '-' or '.'; "9x:/y" is a relative path, not a URL of scheme "9x".
std::string_view scheme_of(std::string_view url) {
  const std::size_t colon = url.find(':');
  if (colon == std::string_view::npos || colon == 0 || !std::isalpha(static_cast<unsigned char>(url[0]))) {
    return {};
  }
  for (std::size_t i = 0; i < colon; ++i) {
    const char c = url[i];
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '-' && c != '.') {
      return {};
    }
  }
  return url.substr(0, colon);
}

// Remove "." and ".." segments from an absolute path (RFC 3986 5.2.4).
std::string remove_dot_segments(std::string_view path) {
  std::vector<std::string> segments;
  std::size_t start = 1;
  while (start <= path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string_view::npos) {
      end = path.size();
    }
    const std::string segment(path.substr(start, end - start));
    const bool last = end == path.size();
    if (segment == "..") {
      if (!segments.empty()) {
        segments.pop_back();
      }
      if (last) {
        segments.emplace_back();
      }
    } else if (segment == ".") {
      if (last) {
        segments.emplace_back();
      }
    } else {
      segments.push_back(segment);
    }
    start = end + 1;
  }
  std::string out;
  for (const std::string& segment : segments) {
    out += "/" + segment;
  }
  return out.empty() ? "/" : out;
}

}  // namespace

PageFormat page_format(std::string_view content_type) {
  return ascii_lower(content_type).find("application/vnd.pypi.simple.v1+json") != std::string::npos ? PageFormat::pep691_json
                                                                                               : PageFormat::html;
}

std::string resolve_url(std::string_view base, std::string_view reference) {
  reference = reference.substr(0, reference.find('#'));
  if (!scheme_of(reference).empty()) {
    return std::string(reference);
  }
  base = base.substr(0, base.find('#'));
  const std::string_view scheme = scheme_of(base);
  const std::size_t authority_start = scheme.size() + 3;  // after "scheme://"
  std::size_t path_start = base.find_first_of("/?", authority_start);
  if (path_start == std::string_view::npos) {
    path_start = base.size();
  }
  const std::string origin(base.substr(0, path_start));
  if (reference.rfind("//", 0) == 0) {
    return std::string(scheme) + ":" + std::string(reference);
  }
  const std::string_view base_path_query = base.substr(path_start);
  const std::string_view base_path = base_path_query.substr(0, base_path_query.find('?'));
  if (reference.empty()) {
    return std::string(base);
  }
  if (reference[0] == '?') {
    return origin + std::string(base_path.empty() ? "/" : base_path) + std::string(reference);
  }
  const std::size_t query = reference.find('?');
  const std::string_view ref_path = reference.substr(0, query);
  const std::string ref_query = query == std::string_view::npos ? "" : std::string(reference.substr(query));
  std::string merged;
  if (!ref_path.empty() && ref_path[0] == '/') {
    merged = std::string(ref_path);
  } else {
    const std::size_t slash = base_path.rfind('/');
    merged = (slash == std::string_view::npos ? std::string("/") : std::string(base_path.substr(0, slash + 1))) +
             std::string(ref_path);
  }
  return origin + remove_dot_segments(merged) + ref_query;
}

std::string project_page_url(std::string_view index_url, std::string_view name) {
  std::string url(index_url);
  if (url.empty() || url.back() != '/') {
    url += '/';
  }
  return url + normalize_package_name(name) + "/";
}

std::string display_url(std::string_view url) {
  std::string out(url);
  const std::string_view scheme = scheme_of(url);
  if (!scheme.empty() && url.substr(scheme.size(), 3) == "://") {
    const std::size_t start = scheme.size() + 3;
    const std::size_t end = url.find_first_of("/?#", start);
    const std::string_view authority = url.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    const std::size_t at = authority.rfind('@');
    if (at != std::string_view::npos) {
      out = std::string(url.substr(0, start)) + std::string(k_redacted) + std::string(url.substr(start + at));
    }
  }
  return redact_url_credentials(out);
}

std::vector<IndexFile> parse_simple_html(std::string_view body, std::string_view page_url, std::string_view shown_url) {
  if (body.size() > k_max_index_page_bytes) {
    throw Error(std::string(shown_url) + ": index page larger than " + std::to_string(k_max_index_page_bytes) + " bytes",
                ExitCode::bad_input);
  }
  const std::string text = ascii_lower(body);
  const bool html = text.find("<html") != std::string::npos || text.find("<!doctype html") != std::string::npos;
  std::vector<IndexFile> files;
  bool anchors = false;
  std::size_t at = 0;
  while ((at = text.find("<a", at)) != std::string::npos) {
    // "<abbr>" and "<area>" are not anchors: the tag name must end here.
    if (at + 2 < text.size() && !std::isspace(static_cast<unsigned char>(text[at + 2])) && text[at + 2] != '>') {
      at += 2;
      continue;
    }
    const std::size_t close = text.find('>', at);
    if (close == std::string::npos) {
      throw Error(std::string(shown_url) + ": not a package index page: an <a> tag is never closed",
                  ExitCode::bad_input);
    }
    anchors = true;
    const std::string_view tag = body.substr(at + 2, close - at - 2);
    bool has_href = false;
    const std::string href = attribute(tag, "href", has_href);
    if (!has_href || href.empty()) {
      at = close;  // a named anchor links nowhere (pip skips it too)
      continue;
    }
    IndexFile file = make_file(page_url, href, shown_url);
    bool yanked = false;
    attribute(tag, "data-yanked", yanked);
    file.yanked = yanked;
    files.push_back(std::move(file));
    at = close;
  }
  if (!html && !anchors) {
    throw Error(std::string(shown_url) + ": not a package index page: neither HTML (PEP 503) nor JSON (PEP 691)",
                ExitCode::bad_input);
  }
  return files;
}

std::vector<IndexFile> parse_simple_json(std::string_view body, std::string_view page_url, std::string_view shown_url) {
  using nlohmann::json;
  const std::string where(shown_url);
  // Size and nesting are checked before anything is built, as for states: a page nested millions of
  // levels deep would otherwise cost gigabytes (and recursion) in the parser.
  if (body.size() > k_max_index_page_bytes) {
    throw Error(where + ": not a PEP 691 JSON page: larger than " + std::to_string(k_max_index_page_bytes) + " bytes",
                ExitCode::bad_input);
  }
  json doc;
  try {
    doc = parse_json_text(std::string(body), where);
  } catch (const Error& error) {
    std::string why = error.what();
    why = why.substr(why.rfind(where, 0) == 0 ? where.size() : 0);
    why = why.substr(std::min(why.find_first_not_of(": "), why.size()));
    throw Error(where + ": not a PEP 691 JSON page: " + why, ExitCode::bad_input);
  }
  if (!doc.is_object()) {
    throw Error(where + ": not a PEP 691 JSON page: expected an object", ExitCode::bad_input);
  }
  const auto meta = doc.find("meta");
  if (meta == doc.end() || !meta->is_object() || !meta->contains("api-version") || !(*meta)["api-version"].is_string() ||
      (*meta)["api-version"].get<std::string>().rfind("1.", 0) != 0) {
    throw Error(where + ": /meta/api-version: expected \"1.x\" (PEP 691)", ExitCode::bad_input);
  }
  const auto list = doc.find("files");
  if (list == doc.end() || !list->is_array()) {
    throw Error(where + ": /files: expected an array (PEP 691)", ExitCode::bad_input);
  }
  std::vector<IndexFile> files;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const json& entry = (*list)[i];
    const std::string pointer = where + ": /files/" + std::to_string(i);
    if (!entry.is_object() || !entry.contains("url") || !entry["url"].is_string() || !entry.contains("filename") ||
        !entry["filename"].is_string()) {
      throw Error(pointer + ": expected an object with string \"filename\" and \"url\"", ExitCode::bad_input);
    }
    IndexFile file = make_file(page_url, entry["url"].get<std::string>(), shown_url);
    file.filename = entry["filename"].get<std::string>();
    if (const auto hashes = entry.find("hashes"); hashes != entry.end() && hashes->is_object()) {
      if (const auto sha = hashes->find("sha256"); sha != hashes->end()) {
        if (!sha->is_string() || !is_hex64(sha->get<std::string>())) {
          throw Error(pointer + "/hashes/sha256: expected 64 hex digits", ExitCode::bad_input);
        }
        file.sha256 = ascii_lower(sha->get<std::string>());
      }
    }
    if (const auto yanked = entry.find("yanked"); yanked != entry.end()) {
      file.yanked = yanked->is_string() || (yanked->is_boolean() && yanked->get<bool>());
    }
    files.push_back(std::move(file));
  }
  return files;
}

}  // namespace envbisect
