#pragma once
// A plain SVG line chart on logarithmic axes, written by hand: one polyline per series,
// markers at the points, highlighted points ringed, a legend. Any browser opens it.
#include <string>
#include <vector>

namespace gradcodec::cli {

struct PlotPoint {
    double x = 0, y = 0;  // both > 0 (log axes); others are left out
    bool ringed = false;
};

struct PlotSeries {
    std::string name;
    std::vector<PlotPoint> points;  // drawn joined in order of x
};

struct PlotText {
    std::string title, x_label, y_label, note;  // note: a line under the legend
};

std::string render_svg(const PlotText& text, const std::vector<PlotSeries>& series);

}  // namespace gradcodec::cli
