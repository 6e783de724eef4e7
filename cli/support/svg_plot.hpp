#pragma once
// A plain SVG line chart on logarithmic axes, written by hand: one polyline per series,
// markers at the points with their labels, highlighted points ringed, a legend. Any browser
// opens it.
#include <string>
#include <vector>

namespace gradcodec::cli {

struct PlotPoint {
    double x = 0, y = 0;  // both > 0 (log axes); others are left out
    bool ringed = false;
    std::string label;  // written beside the point (a setting: "0.01", "8"); may be empty
};

struct PlotSeries {
    std::string name;
    std::vector<PlotPoint> points;  // drawn joined in order of x
    // Line dash and marker shape: series that may lie on one another (one family's codecs)
    // take different styles, so neither hides the other.
    int style = 0;
};

struct PlotText {
    std::string title, x_label, y_label, note;  // note: a line under the legend
};

std::string render_svg(const PlotText& text, const std::vector<PlotSeries>& series);

}  // namespace gradcodec::cli
