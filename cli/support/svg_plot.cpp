#include "support/svg_plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace gradcodec::cli {
namespace {

constexpr double kWidth = 860, kHeight = 560;
constexpr double kLeft = 80, kRight = 640, kTop = 50, kBottom = 490;  // the plot area
constexpr const char* kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                    "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};

std::string escape(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '&')
            out += "&amp;";
        else if (c == '<')
            out += "&lt;";
        else if (c == '>')
            out += "&gt;";
        else if (c == '"')
            out += "&quot;";
        else
            out += c;
    }
    return out;
}

std::string num(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f", v);
    return b;
}

std::string tick_label(int exponent) {
    if (exponent >= -2 && exponent <= 3) {
        char b[32];
        std::snprintf(b, sizeof b, "%g", std::pow(10.0, exponent));
        return b;
    }
    return "1e" + std::to_string(exponent);
}

struct LogAxis {
    int low = 0, high = 1;  // decades
    double from, to;        // pixels
    double at(double v) const {
        return from + (std::log10(v) - low) / double(high - low) * (to - from);
    }
};

LogAxis axis_over(double lo, double hi, double from, double to) {
    LogAxis a{static_cast<int>(std::floor(std::log10(lo))),
              static_cast<int>(std::ceil(std::log10(hi))), from, to};
    if (a.high <= a.low) a.high = a.low + 1;
    return a;
}

// Dash patterns and marker shapes, by style.
constexpr const char* kDashes[] = {"", "7 4", "2 3", "9 3 2 3"};

std::string marker(int style, double cx, double cy, const std::string& colour) {
    constexpr double r = 3.5;
    const std::string fill = "\" fill=\"" + colour + "\"/>\n";
    switch (style % 4) {
        case 1:
            return "<rect x=\"" + num(cx - r) + "\" y=\"" + num(cy - r) + "\" width=\"" +
                   num(2 * r) + "\" height=\"" + num(2 * r) + fill;
        case 2:
            return "<polygon points=\"" + num(cx) + "," + num(cy - r - 1) + " " + num(cx - r - 1) +
                   "," + num(cy + r) + " " + num(cx + r + 1) + "," + num(cy + r) + fill;
        case 3:
            return "<polygon points=\"" + num(cx) + "," + num(cy - r - 1) + " " + num(cx + r + 1) +
                   "," + num(cy) + " " + num(cx) + "," + num(cy + r + 1) + " " + num(cx - r - 1) +
                   "," + num(cy) + fill;
        default:
            return "<circle cx=\"" + num(cx) + "\" cy=\"" + num(cy) + "\" r=\"" + num(r) + fill;
    }
}

std::string dash(int style) {
    const char* pattern = kDashes[style % 4];
    return *pattern ? std::string(" stroke-dasharray=\"") + pattern + "\"" : std::string();
}

bool drawable(const PlotPoint& p) {
    return p.x > 0 && p.y > 0 && std::isfinite(p.x) && std::isfinite(p.y);
}

}  // namespace

std::string render_svg(const PlotText& text, const std::vector<PlotSeries>& series) {
    double xlo = std::numeric_limits<double>::infinity(), xhi = 0, ylo = xlo, yhi = 0;
    for (const auto& s : series) {
        for (const auto& p : s.points) {
            if (!drawable(p)) continue;
            xlo = std::min(xlo, p.x);
            xhi = std::max(xhi, p.x);
            ylo = std::min(ylo, p.y);
            yhi = std::max(yhi, p.y);
        }
    }
    if (!(xhi > 0)) xlo = 0.1, xhi = 10, ylo = 0.01, yhi = 1;
    const LogAxis x = axis_over(xlo, xhi, kLeft, kRight);
    const LogAxis y = axis_over(ylo, yhi, kBottom, kTop);
    std::string svg =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
        "width=\"" +
        num(kWidth) + "\" height=\"" + num(kHeight) + "\" viewBox=\"0 0 " + num(kWidth) + " " +
        num(kHeight) + "\" font-family=\"sans-serif\" font-size=\"12\">\n";
    svg += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    svg += "<text x=\"" + num((kLeft + kRight) / 2) +
           "\" y=\"28\" text-anchor=\"middle\" font-size=\"15\">" + escape(text.title) +
           "</text>\n";
    // Grid and ticks: a line per decade.
    for (int e = x.low; e <= x.high; ++e) {
        const std::string px = num(x.at(std::pow(10.0, e)));
        svg += "<line x1=\"" + px + "\" y1=\"" + num(kTop) + "\" x2=\"" + px + "\" y2=\"" +
               num(kBottom) + "\" stroke=\"#ddd\"/>\n<text x=\"" + px + "\" y=\"" +
               num(kBottom + 18) + "\" text-anchor=\"middle\">" + tick_label(e) + "</text>\n";
    }
    for (int e = y.low; e <= y.high; ++e) {
        const std::string py = num(y.at(std::pow(10.0, e)));
        svg += "<line x1=\"" + num(kLeft) + "\" y1=\"" + py + "\" x2=\"" + num(kRight) +
               "\" y2=\"" + py + "\" stroke=\"#ddd\"/>\n<text x=\"" + num(kLeft - 6) + "\" y=\"" +
               py + "\" text-anchor=\"end\" dominant-baseline=\"middle\">" + tick_label(e) +
               "</text>\n";
    }
    svg += "<rect x=\"" + num(kLeft) + "\" y=\"" + num(kTop) + "\" width=\"" + num(kRight - kLeft) +
           "\" height=\"" + num(kBottom - kTop) + "\" fill=\"none\" stroke=\"#333\"/>\n";
    svg += "<text x=\"" + num((kLeft + kRight) / 2) + "\" y=\"" + num(kBottom + 40) +
           "\" text-anchor=\"middle\">" + escape(text.x_label) + "</text>\n";
    svg += "<text transform=\"translate(22 " + num((kTop + kBottom) / 2) +
           ") rotate(-90)\" text-anchor=\"middle\">" + escape(text.y_label) + "</text>\n";
    for (std::size_t i = 0; i < series.size(); ++i) {
        const std::string colour = kColours[i % std::size(kColours)];
        std::vector<PlotPoint> points;
        for (const auto& p : series[i].points)
            if (drawable(p)) points.push_back(p);
        std::sort(points.begin(), points.end(),
                  [](const PlotPoint& a, const PlotPoint& b) { return a.x < b.x; });
        std::string line;
        for (const auto& p : points) line += num(x.at(p.x)) + "," + num(y.at(p.y)) + " ";
        const int style = series[i].style;
        if (points.size() > 1) {
            svg += "<polyline fill=\"none\" stroke=\"" + colour + "\" stroke-width=\"1.8\"" +
                   dash(style) + " points=\"" + line + "\"/>\n";
        }
        for (const auto& p : points) {
            const double cx = x.at(p.x), cy = y.at(p.y);
            svg += marker(style, cx, cy, colour);
            if (p.ringed) {
                svg += "<circle cx=\"" + num(cx) + "\" cy=\"" + num(cy) +
                       "\" r=\"7.5\" fill=\"none\" stroke=\"black\" stroke-width=\"1.5\"/>\n";
            }
            if (!p.label.empty()) {
                svg += "<text x=\"" + num(cx + 6) + "\" y=\"" + num(cy - 6) +
                       "\" font-size=\"9\" fill=\"" + colour + "\">" + escape(p.label) +
                       "</text>\n";
            }
        }
        const double ly = kTop + 10 + 20 * double(i);
        svg += "<line x1=\"" + num(kRight + 20) + "\" y1=\"" + num(ly) + "\" x2=\"" +
               num(kRight + 44) + "\" y2=\"" + num(ly) + "\" stroke=\"" + colour +
               "\" stroke-width=\"2\"" + dash(style) + "/>\n" +
               marker(style, kRight + 32, ly, colour) + "<text x=\"" + num(kRight + 52) +
               "\" y=\"" + num(ly) + "\" dominant-baseline=\"middle\">" + escape(series[i].name) +
               "</text>\n";
    }
    const double ny = kTop + 10 + 20 * double(series.size()) + 10;
    svg += "<circle cx=\"" + num(kRight + 32) + "\" cy=\"" + num(ny) +
           "\" r=\"7.5\" fill=\"none\" stroke=\"black\" stroke-width=\"1.5\"/>\n<text x=\"" +
           num(kRight + 52) + "\" y=\"" + num(ny) +
           "\" dominant-baseline=\"middle\">Pareto front</text>\n";
    if (!text.note.empty()) {
        svg += "<text x=\"" + num(kRight + 20) + "\" y=\"" + num(ny + 24) + "\" font-size=\"11\">" +
               escape(text.note) + "</text>\n";
    }
    svg += "</svg>\n";
    return svg;
}

}  // namespace gradcodec::cli
