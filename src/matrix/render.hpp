#pragma once

#include <string>
#include <vector>

#include "matrix/history.hpp"
#include "matrix/night.hpp"

namespace envbisect::matrix {

// Return the night as Markdown: a table of cells with status, median, change and cause.
std::string render_matrix_markdown(const MatrixNight& night);

// Return the night as one self-contained HTML page: the table coloured by status, an inline SVG
// trend line per cell, links to each auto-bisect report; no script, no external URL.
std::string render_matrix_html(const MatrixNight& night);

// Return a small inline SVG sparkline of the cell's medians over its nights, red nights marked.
std::string svg_trend(const std::vector<CellNight>& trend);

}  // namespace envbisect::matrix
