#include "report/svg_plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "report/report_text.hpp"

namespace envbisect::report {

namespace {

// Coordinates with one decimal: enough for a screen, and the same bytes on every machine.
std::string num(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f", std::fabs(value) < 0.05 ? 0.0 : value);
  return buffer;
}

// A linear map from data to pixels.
struct Scale {
  double d0;
  double d1;
  double p0;
  double p1;
  double operator()(double value) const { return d1 == d0 ? (p0 + p1) / 2 : p0 + (value - d0) / (d1 - d0) * (p1 - p0); }
};

// Return 4-6 round tick values covering [lo, hi].
std::vector<double> nice_ticks(double lo, double hi) {
  if (!(hi > lo)) {
    return {lo};
  }
  double raw = (hi - lo) / 5;
  double power = std::pow(10, std::floor(std::log10(raw)));
  double step = power;
  for (double factor : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    step = factor * power;
    if (step >= raw) {
      break;
    }
  }
  std::vector<double> ticks;
  for (double tick = std::ceil(lo / step) * step; tick <= hi + step * 1e-9; tick += step) {
    ticks.push_back(std::fabs(tick) < step * 1e-9 ? 0 : tick);
  }
  return ticks;
}

std::string svg_open(const std::string& id, int width, int height, const std::string& title, const std::string& desc) {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\" id=\"" + id + "\" viewBox=\"0 0 " +
         std::to_string(width) + " " + std::to_string(height) + "\" width=\"" + std::to_string(width) +
         "\" height=\"" + std::to_string(height) + "\" role=\"img\" aria-labelledby=\"" + id + "-title " + id +
         "-desc\">\n<title id=\"" + id + "-title\">" + html_escape(title) + "</title>\n<desc id=\"" + id + "-desc\">" +
         html_escape(desc) + "</desc>\n";
}

std::string text(double x, double y, const std::string& content, const std::string& anchor,
                 const std::string& cls = "label") {
  return "<text class=\"" + cls + "\" x=\"" + num(x) + "\" y=\"" + num(y) + "\" text-anchor=\"" + anchor + "\">" +
         html_escape(content) + "</text>\n";
}

std::string line(double x1, double y1, double x2, double y2, const std::string& cls) {
  return "<line class=\"" + cls + "\" x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) + "\" y2=\"" +
         num(y2) + "\"/>\n";
}

std::string cross(double x, double y, const std::string& cls, const std::string& tip) {
  return "<path class=\"" + cls + " fail\" d=\"M" + num(x - 4) + " " + num(y - 4) + "L" + num(x + 4) + " " +
         num(y + 4) + "M" + num(x - 4) + " " + num(y + 4) + "L" + num(x + 4) + " " + num(y - 4) + "\"><title>" +
         html_escape(tip) + "</title></path>\n";
}

std::string dot(double x, double y, double r, const std::string& cls, const std::string& tip) {
  return "<circle class=\"" + cls + "\" cx=\"" + num(x) + "\" cy=\"" + num(y) + "\" r=\"" + num(r) + "\"><title>" +
         html_escape(tip) + "</title></circle>\n";
}

// The verdict class of a candidate: its anchor role, else its last decision's verdict.
std::string verdict_class(const ReportModel& model, const CandidateView& view) {
  if (view.role == "good-anchor") {
    return "good";
  }
  if (view.role == "bad-anchor") {
    return "bad";
  }
  if (!view.decisions.empty()) {
    std::string verdict = model.decisions[view.decisions.back()].verdict;
    if (verdict == "good" || verdict == "bad" || verdict == "skip") {
      return verdict;
    }
  }
  return "unknown";
}

std::vector<double> metrics_of(const ReportModel& model, const CandidateView* view) {
  std::vector<double> out;
  if (view != nullptr) {
    for (int index : view->attempts) {
      if (model.attempts[index].metric) {
        out.push_back(*model.attempts[index].metric);
      }
    }
  }
  return out;
}

const CandidateView* anchor(const ReportModel& model, const std::string& role) {
  for (const CandidateView& view : model.candidates) {
    if (view.role == role) {
      return &view;
    }
  }
  return nullptr;
}

// The metric's axis title in the reader's terms: its unit and which way is better ("tok/s, higher is
// better"); the recipe's key only when it names no unit.
std::string axis_label(const ReportModel& model) {
  const std::string name = !model.recipe.unit.empty() ? model.recipe.unit
                           : model.recipe.metric.empty() ? "metric" : model.recipe.metric;
  return name + (model.recipe.available ? ", " + model.recipe.direction + " is better" : "");
}

// The metric range shown: from 0 when every value is positive (ratios read honestly), padded on top.
std::pair<double, double> metric_range(const std::vector<double>& values) {
  double lo = *std::min_element(values.begin(), values.end());
  double hi = *std::max_element(values.begin(), values.end());
  if (lo >= 0) {
    lo = 0;
  } else {
    lo -= (hi - lo) * 0.05;
  }
  hi = hi + (hi - lo) * 0.08;
  if (hi == lo) {
    hi = lo + 1;
  }
  return {lo, hi};
}

// Return the labels under a candidate's column, one a line: its anchor role, then the number of every
// decision about it (a candidate asked again in a re-check or a verification keeps one column, and
// each of its decisions is named under it); "?" for a candidate of an earlier session only.
std::vector<std::string> tick_lines(const ReportModel& model, const CandidateView& view) {
  std::vector<std::string> lines;
  if (view.role == "good-anchor" || view.role == "bad-anchor") {
    lines.push_back(view.role == "good-anchor" ? "good" : "bad");
  }
  for (int index : view.decisions) {
    lines.push_back("#" + std::to_string(model.decisions[index].n));
  }
  if (lines.empty()) {
    lines.push_back("?");
  }
  return lines;
}

std::string y_axis(const Scale& y, double left, double right, const std::string& title, double title_y) {
  std::string out;
  for (double tick : nice_ticks(y.d0, y.d1)) {
    out += line(left, y(tick), right, y(tick), "grid");
    out += text(left - 6, y(tick) + 4, format_number(tick), "end");
  }
  out += text(left, title_y, title, "start", "label axis-title");
  return out;
}

}  // namespace

std::string svg_metric_per_candidate(const ReportModel& model) {
  std::vector<double> all;
  for (const Attempt& attempt : model.attempts) {
    if (attempt.metric) {
      all.push_back(*attempt.metric);
    }
  }
  if (all.empty() || model.candidates.empty()) {
    return "";
  }
  // Every decision is named under its candidate's column: the axis grows a line per label.
  std::size_t label_lines = 1;
  for (const CandidateView& view : model.candidates) {
    label_lines = std::max(label_lines, tick_lines(model, view).size());
  }
  const double extra = 12.0 * static_cast<double>(label_lines - 1);
  const double left = 70;
  const double top = 28;
  const double bottom_pad = 46 + extra;
  const int count = static_cast<int>(model.candidates.size());
  const int width = std::max(640, 90 + 34 * count);
  const int height = 320 + static_cast<int>(extra);
  const double right = width - 16;
  auto [lo, hi] = metric_range(all);
  Scale y{lo, hi, height - bottom_pad, top};
  double slot = (right - left) / count;
  const std::string metric = axis_label(model);
  std::string out = svg_open("plot-metric", width, height, metric + " per candidate",
                             "Every benchmark run of every candidate; shaded bands are the good and bad anchors' ranges, "
                             "dashed lines their medians; crosses are runs that produced no metric.");
  out += y_axis(y, left, right, metric, 16);

  // The anchors' ranges as bands behind everything else.
  for (const char* role : {"good-anchor", "bad-anchor"}) {
    std::vector<double> values = metrics_of(model, anchor(model, role));
    if (values.empty()) {
      continue;
    }
    std::string cls = std::string(role) == "good-anchor" ? "good" : "bad";
    double band_top = y(*std::max_element(values.begin(), values.end()));
    double band_bottom = y(*std::min_element(values.begin(), values.end()));
    out += "<rect class=\"band-" + cls + "\" x=\"" + num(left) + "\" y=\"" + num(band_top) + "\" width=\"" +
           num(right - left) + "\" height=\"" + num(std::max(1.0, band_bottom - band_top)) + "\"><title>" + cls +
           " anchor range " + format_number(*std::min_element(values.begin(), values.end())) + " to " +
           format_number(*std::max_element(values.begin(), values.end())) + "</title></rect>\n";
    std::optional<double> median = cls == "good" ? (model.preflight ? model.preflight->good_median : std::nullopt)
                                                 : (model.preflight ? model.preflight->bad_median : std::nullopt);
    if (median) {
      out += line(left, y(*median), right, y(*median), "median-" + cls);
      out += text(right - 4, y(*median) - 4, cls + " median " + format_number(*median), "end", "label " + cls + "-text");
    }
  }

  for (int i = 0; i < count; ++i) {
    const CandidateView& view = model.candidates[i];
    double cx = left + slot * (i + 0.5);
    std::string cls = verdict_class(model, view);
    const std::vector<std::string> ticks = tick_lines(model, view);
    out += "<g class=\"candidate\"><title>" + html_escape(view.label + ": " + cls) + "</title>\n";
    for (std::size_t line_index = 0; line_index < ticks.size(); ++line_index) {
      out += text(cx, height - bottom_pad + 16 + 12.0 * static_cast<double>(line_index), ticks[line_index], "middle");
    }
    int k = 0;
    for (int index : view.attempts) {
      const Attempt& attempt = model.attempts[index];
      // Spread the runs of a candidate a little sideways so equal values stay visible.
      double jitter = ((k % 5) - 2) * std::min(4.0, slot / 12);
      ++k;
      std::string tip = "run " + std::to_string(attempt.index) + ": " +
                        (attempt.metric ? format_number(*attempt.metric) : attempt_status(attempt));
      if (attempt.metric && attempt.status == "ok") {
        out += dot(cx + jitter, y(*attempt.metric), 3.2, cls, tip);
      } else if (attempt.metric) {
        out += cross(cx + jitter, y(*attempt.metric), cls, tip);
      } else {
        out += cross(cx + jitter, height - bottom_pad - 6, cls, tip);
      }
    }
    if (!view.decisions.empty() && model.decisions[view.decisions.back()].median) {
      double my = y(*model.decisions[view.decisions.back()].median);
      out += line(cx - slot * 0.3, my, cx + slot * 0.3, my, "median-tick " + cls);
    }
    out += "</g>\n";
  }
  out += line(left, height - bottom_pad, right, height - bottom_pad, "axis");
  out += text((left + right) / 2, height - 10, "candidate (anchors, then decision numbers)", "middle", "label axis-title");
  return out + "</svg>\n";
}

std::string svg_anchor_distributions(const ReportModel& model) {
  std::vector<double> good = metrics_of(model, anchor(model, "good-anchor"));
  std::vector<double> bad = metrics_of(model, anchor(model, "bad-anchor"));
  if (good.empty() && bad.empty()) {
    return "";
  }
  std::vector<double> all = good;
  all.insert(all.end(), bad.begin(), bad.end());
  const int width = 720;
  const int height = 190;
  const double left = 70;
  const double right = width - 20;
  auto [lo, hi] = metric_range(all);
  Scale x{lo, hi, left, right};
  const std::string metric = axis_label(model);
  std::string out = svg_open("plot-anchors", width, height, "anchor samples",
                             "Each run of the good and of the bad anchor on one axis of " + metric +
                                 "; the bar is the median the preflight recorded.");
  const double axis_y = height - 40;
  for (double tick : nice_ticks(lo, hi)) {
    out += line(x(tick), 20, x(tick), axis_y, "grid");
    out += text(x(tick), axis_y + 16, format_number(tick), "middle");
  }
  out += line(left, axis_y, right, axis_y, "axis");
  out += text((left + right) / 2, height - 6, metric, "middle", "label axis-title");
  struct Row {
    const char* cls;
    const std::vector<double>* values;
    double y;
    std::optional<double> median;
  };
  std::optional<double> good_median = model.preflight ? model.preflight->good_median : std::nullopt;
  std::optional<double> bad_median = model.preflight ? model.preflight->bad_median : std::nullopt;
  for (const Row& row : {Row{"good", &good, 50, good_median}, Row{"bad", &bad, 105, bad_median}}) {
    out += text(left - 8, row.y + 4, row.cls, "end", std::string("label ") + row.cls + "-text");
    out += line(left, row.y, right, row.y, "grid");
    for (std::size_t i = 0; i < row.values->size(); ++i) {
      double offset = ((static_cast<int>(i) % 5) - 2) * 4.0;
      out += dot(x((*row.values)[i]), row.y + offset, 4, row.cls, std::string(row.cls) + " run: " + format_number((*row.values)[i]));
    }
    if (row.median) {
      out += line(x(*row.median), row.y - 16, x(*row.median), row.y + 16, std::string("median-bar ") + row.cls);
      out += text(x(*row.median), row.y - 20, "median " + format_number(*row.median), "middle");
    }
  }
  return out + "</svg>\n";
}

std::string svg_search_progress(const ReportModel& model) {
  if (model.attempts.empty()) {
    return "";
  }
  // Elapsed time from the first journaled time; when the journal has no times, the run number.
  double t0 = model.t_first;
  bool timed = t0 > 0;
  auto x_of_attempt = [&](std::size_t i) { return timed ? model.attempts[i].t - t0 : static_cast<double>(i + 1); };
  double x_max = 1;
  for (std::size_t i = 0; i < model.attempts.size(); ++i) {
    x_max = std::max(x_max, x_of_attempt(i));
  }
  const int width = 720;
  const int height = 260;
  const double left = 60;
  const double right = width - 20;
  const double top = 28;
  const double bottom = height - 44;
  Scale x{0, x_max * 1.03, left, right};
  Scale y{0, static_cast<double>(model.attempts.size()) * 1.08, bottom, top};
  std::string out = svg_open("plot-progress", width, height, "search progress",
                             "Benchmark runs over elapsed time; each dot is a decision, in its verdict's colour.");
  out += y_axis(y, left, right, "benchmark runs", 16);
  for (double tick : nice_ticks(0, x_max * 1.03)) {
    out += text(x(tick), bottom + 16, format_number(tick), "middle");
  }
  out += line(left, bottom, right, bottom, "axis");
  out += text((left + right) / 2, height - 8, timed ? "seconds since the first journaled event" : "run number", "middle",
              "label axis-title");
  std::string path = "M" + num(x(0)) + " " + num(y(0));
  for (std::size_t i = 0; i < model.attempts.size(); ++i) {
    double px = x(x_of_attempt(i));
    path += "L" + num(px) + " " + num(y(static_cast<double>(i))) + "L" + num(px) + " " + num(y(static_cast<double>(i + 1)));
  }
  out += "<path class=\"progress\" d=\"" + path + "\"/>\n";
  for (const Decision& decision : model.decisions) {
    double dx = timed && decision.t > 0 ? decision.t - t0 : static_cast<double>(decision.runs_before);
    std::string cls = decision.verdict == "good" || decision.verdict == "bad" || decision.verdict == "skip"
                          ? decision.verdict
                          : "unknown";
    out += dot(x(dx), y(decision.runs_before), 5, cls,
               "#" + std::to_string(decision.n) + " " + decision.label + ": " + decision.verdict);
  }
  return out + "</svg>\n";
}

std::string svg_probe_grid(const ReportModel& model) {
  if (model.probes.empty()) {
    return "";
  }
  std::vector<std::string> rows;
  std::vector<long long> columns;
  std::map<std::pair<std::string, long long>, const Probe*> cells;
  for (const Probe& probe : model.probes) {
    std::string row = probe.knob + (probe.cache.empty() ? "" : " · " + probe.cache);
    if (std::find(rows.begin(), rows.end(), row) == rows.end()) {
      rows.push_back(row);
    }
    if (std::find(columns.begin(), columns.end(), probe.value) == columns.end()) {
      columns.push_back(probe.value);
    }
    cells[{row, probe.value}] = &probe;
  }
  std::sort(columns.begin(), columns.end());
  const double left = 260;
  const double top = 40;
  const double cell_w = 78;
  const double cell_h = 40;
  const int width = static_cast<int>(left + cell_w * static_cast<double>(columns.size()) + 20);
  const int height = static_cast<int>(top + cell_h * static_cast<double>(rows.size()) + 20);
  std::string out = svg_open("plot-probes", width, height, "probe grid",
                             "Verdict of the cause at each probed value (columns) per knob and cache state (rows); "
                             "the number is the median, " + axis_label(model) + ".");
  for (std::size_t c = 0; c < columns.size(); ++c) {
    out += text(left + cell_w * (static_cast<double>(c) + 0.5), top - 10, std::to_string(columns[c]), "middle");
  }
  for (std::size_t r = 0; r < rows.size(); ++r) {
    double ry = top + cell_h * static_cast<double>(r);
    out += text(left - 10, ry + cell_h / 2 + 4, rows[r], "end");
    for (std::size_t c = 0; c < columns.size(); ++c) {
      auto it = cells.find({rows[r], columns[c]});
      double rx = left + cell_w * static_cast<double>(c);
      if (it == cells.end()) {
        out += "<rect class=\"cell-empty\" x=\"" + num(rx + 1) + "\" y=\"" + num(ry + 1) + "\" width=\"" +
               num(cell_w - 2) + "\" height=\"" + num(cell_h - 2) + "\"/>\n";
        continue;
      }
      const Probe& probe = *it->second;
      std::string cls = probe.verdict == "good" || probe.verdict == "bad" || probe.verdict == "skip" ? probe.verdict
                                                                                                    : "unknown";
      out += "<g><title>" + html_escape(probe.knob + " = " + std::to_string(probe.value) + ": " + probe.verdict) +
             "</title><rect class=\"cell-" + cls + "\" x=\"" + num(rx + 1) + "\" y=\"" + num(ry + 1) + "\" width=\"" +
             num(cell_w - 2) + "\" height=\"" + num(cell_h - 2) + "\"/>\n";
      out += text(rx + cell_w / 2, ry + 17, probe.verdict, "middle", "cell-text");
      out += text(rx + cell_w / 2, ry + 32, probe.median ? format_number(*probe.median) : "-", "middle", "cell-text");
      out += "</g>\n";
    }
  }
  return out + "</svg>\n";
}

}  // namespace envbisect::report
