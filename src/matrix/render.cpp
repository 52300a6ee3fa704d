#include <algorithm>
#include <cmath>
#include <cstdio>

#include "matrix/render.hpp"
#include "stats/quantity.hpp"
#include "util/strings.hpp"

namespace envbisect::matrix {

namespace {

std::string number(std::optional<double> value) {
  if (!value) {
    return "-";
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", *value);
  return text;
}

// Return the cell's median against its baseline in words with the unit: "2.77× slower", "1.3× faster",
// "same" within 1 %; "-" without both.
std::string change_text(const CellReport& cell, const MatrixNight& night) {
  if (!cell.median || !cell.judgement.baseline || !(*cell.median > 0) || !(*cell.judgement.baseline > 0)) {
    return "-";
  }
  const double ratio = *cell.median / *cell.judgement.baseline;
  if (std::fabs(ratio - 1.0) < 0.01) {
    return "same";
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", ratio >= 1.0 ? ratio : 1.0 / ratio);
  const std::string words = stats::comparison_words(1.0, ratio, night.higher_is_better ? stats::Better::higher : stats::Better::lower, night.unit);
  return std::string(text) + "× " + words.substr(words.rfind(' ') + 1);
}

// Return a median with the night's unit ("1030 tok/s").
std::string median_text(const CellReport& cell, const MatrixNight& night) {
  return cell.median ? number(cell.median) + (night.unit.empty() ? "" : " " + night.unit) : "-";
}

std::string status_label(const CellReport& cell) {
  switch (cell.judgement.status) {
    case CellStatus::green:
      return "green";
    case CellStatus::red:
      return cell.judgement.new_red ? "RED (new)" : "red since " + cell.judgement.red_since.value_or("?");
    case CellStatus::no_history:
      return "not enough history";
    case CellStatus::skip:
      return "skip";
  }
  return "skip";
}

std::string values_text(const CellReport& cell) {
  std::vector<std::string> parts;
  for (const auto& [name, value] : cell.assignment) {
    auto resolved = cell.resolved.find(name);
    std::string shown = value;
    if (resolved != cell.resolved.end() && resolved->second != value) {
      shown += " (" + resolved->second + ")";
    }
    parts.push_back(name + "=" + shown);
  }
  return join(parts, ", ");
}

std::string cause_text(const CellReport& cell) {
  const CellBisect& b = cell.bisect;
  if (b.status.empty()) {
    return "";
  }
  if (b.status == "found") {
    std::string text = join(b.cause, " + ");
    if (!b.refined.empty()) {
      text += "; " + join(b.refined, "; ");
    }
    return text + " (vs " + b.last_green_date + ")" + (starts_with(b.note, "bisected on ") ? "; " + b.note : "");
  }
  return (b.status == "not_found" ? "not isolated: " : "no bisection: ") + b.note;
}

std::string md_cell(std::string text) {
  std::string out;
  for (char c : text) {
    out += c == '|' ? std::string("\\|") : c == '\n' ? std::string(" ") : std::string(1, c);
  }
  return out;
}

std::string html_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string css_class(const CellReport& cell) {
  switch (cell.judgement.status) {
    case CellStatus::green:
      return "green";
    case CellStatus::red:
      return cell.judgement.new_red ? "red new" : "red";
    case CellStatus::no_history:
      return "nohistory";
    case CellStatus::skip:
      return "skip";
  }
  return "skip";
}

std::string fixed(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", value);
  return text;
}

}  // namespace

std::string svg_trend(const std::vector<CellNight>& trend) {
  constexpr double width = 120.0;
  constexpr double height = 28.0;
  constexpr double pad = 4.0;
  std::vector<double> values;
  for (const CellNight& night : trend) {
    if (night.median) {
      values.push_back(*night.median);
    }
  }
  std::string svg = "<svg class=\"trend\" width=\"120\" height=\"28\" viewBox=\"0 0 120 28\" role=\"img\" aria-label=\"trend\">";
  if (trend.empty()) {
    return svg + "</svg>";
  }
  double low = values.empty() ? 0.0 : *std::min_element(values.begin(), values.end());
  double high = values.empty() ? 1.0 : *std::max_element(values.begin(), values.end());
  // A flat history still draws a line in the middle; zero stays visible as the floor.
  low = std::min(low, 0.0);
  if (high <= low) {
    high = low + 1.0;
  }
  auto x_of = [&](std::size_t i) {
    return trend.size() == 1 ? width / 2 : pad + (width - 2 * pad) * static_cast<double>(i) / static_cast<double>(trend.size() - 1);
  };
  auto y_of = [&](double v) { return height - pad - (height - 2 * pad) * (v - low) / (high - low); };
  std::string points;
  for (std::size_t i = 0; i < trend.size(); ++i) {
    if (trend[i].median) {
      points += (points.empty() ? "" : " ") + fixed(x_of(i)) + "," + fixed(y_of(*trend[i].median));
    }
  }
  if (!points.empty()) {
    svg += "<polyline class=\"line\" fill=\"none\" points=\"" + points + "\"/>";
  }
  for (std::size_t i = 0; i < trend.size(); ++i) {
    const CellNight& night = trend[i];
    std::string title = "<title>" + html_escape(night.date + ": " + std::string(to_string(night.status)) +
                                                (night.median ? ", median " + number(night.median) : "")) + "</title>";
    if (night.median && night.status != CellStatus::red) {
      svg += "<circle class=\"dot " + std::string(to_string(night.status)) + "\" cx=\"" + fixed(x_of(i)) + "\" cy=\"" +
             fixed(y_of(*night.median)) + "\" r=\"2.5\">" + title + "</circle>";
    } else {
      // Red nights (and nights without a metric) are crosses on the floor or at their median.
      double y = night.median ? y_of(*night.median) : height - pad;
      std::string x0 = fixed(x_of(i) - 3);
      std::string x1 = fixed(x_of(i) + 3);
      svg += "<path class=\"cross " + std::string(to_string(night.status)) + "\" d=\"M" + x0 + "," + fixed(y - 3) + "L" +
             x1 + "," + fixed(y + 3) + "M" + x0 + "," + fixed(y + 3) + "L" + x1 + "," + fixed(y - 3) + "\">" + title +
             "</path>";
    }
  }
  return svg + "</svg>";
}

std::string render_matrix_markdown(const MatrixNight& night) {
  std::string out = "# Matrix " + night.name + ", " + night.date + "\n\n" + summary_line(night) + "\n\n";
  out += "Metric `" + night.metric + "` (" + (night.higher_is_better ? "higher" : "lower") +
         " is better); red: a failed run, or worse than the cell's own history (median of earlier passing nights) by "
         "more than " + number(night.threshold * 100.0) + " %; cells need " + std::to_string(night.min_history) +
         " earlier passing night(s) before a regression can be judged.\n\n";
  out += "| cell | status | median | against its history | runs | why | cause (auto-bisect) |\n";
  out += "|---|---|---|---|---|---|---|\n";
  for (const CellReport& cell : night.cells) {
    std::string cause = cause_text(cell);
    if (!cell.bisect.report.empty()) {
      cause += " [report](" + cell.bisect.report + ")";
    }
    std::string runs = std::to_string(cell.runs) + (cell.failed > 0 ? " (" + std::to_string(cell.failed) + " failed)" : "");
    std::string why = cell.judgement.reason + (cell.first_error.empty() ? "" : "; error: " + cell.first_error);
    out += "| " + md_cell(values_text(cell)) + " | " + md_cell(status_label(cell)) + " | " + median_text(cell, night) + " | " +
           change_text(cell, night) + " | " + runs + " | " + md_cell(why) + " | " + md_cell(cause) + " |\n";
  }
  return out;
}

std::string render_matrix_html(const MatrixNight& night) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>envbisect matrix " +
      html_escape(night.name + " " + night.date) +
      "</title>\n<style>\n"
      ":root{color-scheme:light dark;--fg:#1b1b1b;--bg:#fff;--green:#d8f3dc;--red:#ffd6d6;--newred:#ff9e9e;"
      "--gray:#eceff1;--line:#555}\n"
      "@media (prefers-color-scheme:dark){:root{--fg:#e6e6e6;--bg:#161616;--green:#1e4d2b;--red:#5c1f1f;"
      "--newred:#8f1d1d;--gray:#2b2f33;--line:#bbb}}\n"
      "body{font:14px/1.4 system-ui,sans-serif;color:var(--fg);background:var(--bg);margin:1.5em}\n"
      "table{border-collapse:collapse}td,th{border:1px solid #8884;padding:4px 8px;vertical-align:middle;text-align:left}\n"
      "tr.green td.status{background:var(--green)}tr.red td.status{background:var(--red)}"
      "tr.new td.status{background:var(--newred);font-weight:bold}"
      "tr.nohistory td.status,tr.skip td.status{background:var(--gray)}\n"
      "svg.trend .line{stroke:var(--line);stroke-width:1.2}svg.trend .dot{fill:var(--line)}"
      "svg.trend .cross{stroke:#d00;stroke-width:1.6}svg.trend .cross.skip{stroke:#888}\n"
      "td.num{text-align:right;font-variant-numeric:tabular-nums}\n</style></head><body>\n";
  out += "<h1>Matrix " + html_escape(night.name) + ", " + html_escape(night.date) + "</h1>\n";
  out += "<p>" + html_escape(summary_line(night)) + "</p>\n";
  out += "<p>Metric <code>" + html_escape(night.metric) + "</code> (" + (night.higher_is_better ? "higher" : "lower") +
         " is better). Red: a failed run, or worse than the cell's own history (median of earlier passing nights) by "
         "more than " + number(night.threshold * 100.0) + " %.</p>\n";
  out += "<table>\n<thead><tr><th>cell</th><th>status</th><th>median</th><th>against its history</th><th>trend</th><th>runs</th>"
         "<th>why</th><th>cause (auto-bisect)</th></tr></thead>\n<tbody>\n";
  for (const CellReport& cell : night.cells) {
    std::string cause = html_escape(cause_text(cell));
    if (!cell.bisect.report.empty()) {
      cause += " <a href=\"" + html_escape(cell.bisect.report) + "\">report</a>";
    }
    std::string why = cell.judgement.reason + (cell.first_error.empty() ? "" : "; error: " + cell.first_error);
    out += "<tr class=\"" + css_class(cell) + "\" id=\"" + html_escape(cell.id) + "\"><td>" + html_escape(values_text(cell)) +
           "</td><td class=\"status\">" + html_escape(status_label(cell)) + "</td><td class=\"num\">" + html_escape(median_text(cell, night)) +
           "</td><td class=\"num\">" + html_escape(change_text(cell, night)) + "</td><td>" + svg_trend(cell.trend) + "</td><td class=\"num\">" +
           std::to_string(cell.runs) + (cell.failed > 0 ? " (" + std::to_string(cell.failed) + " failed)" : "") +
           "</td><td>" + html_escape(why) + "</td><td>" + cause + "</td></tr>\n";
  }
  out += "</tbody></table>\n</body></html>\n";
  return out;
}

}  // namespace envbisect::matrix
