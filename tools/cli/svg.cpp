// The SVG primitives of npusim report (svg.h).
#include "tools/cli/svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace npusim::cli {

std::string xml_escape(const std::string& s) {
  std::string r;
  for (const char c : s) {
    switch (c) {
      case '&': r += "&amp;"; break;
      case '<': r += "&lt;"; break;
      case '>': r += "&gt;"; break;
      case '"': r += "&quot;"; break;
      default: r += c;
    }
  }
  return r;
}

std::string fmt_num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.4g", v);
  return b;
}

std::string fmt_compact(double v) {
  const double a = std::fabs(v);
  const char* suffix = a >= 1e9 ? "G" : a >= 1e6 ? "M" : a >= 1e3 ? "k" : "";
  const double d = a >= 1e9 ? 1e9 : a >= 1e6 ? 1e6 : a >= 1e3 ? 1e3 : 1;
  char b[32];
  std::snprintf(b, sizeof b, "%.4g%s", v / d, suffix);
  return b;
}

Svg::Svg(int width, int height, const std::string& id) : w_(width), h_(height), id_(id) {}

void Svg::rect(double x, double y, double w, double h, const std::string& fill, const std::string& title,
               double opacity) {
  o_ << "<rect x=\"" << fmt_num(x) << "\" y=\"" << fmt_num(y) << "\" width=\"" << fmt_num(std::max(w, 0.0))
     << "\" height=\"" << fmt_num(std::max(h, 0.0)) << "\" fill=\"" << fill << "\"";
  if (opacity < 1) o_ << " fill-opacity=\"" << fmt_num(opacity) << "\"";
  if (title.empty()) o_ << "/>\n";
  else o_ << "><title>" << xml_escape(title) << "</title></rect>\n";
}

void Svg::line(double x1, double y1, double x2, double y2, const std::string& stroke, double width,
               const std::string& cls) {
  o_ << "<line x1=\"" << fmt_num(x1) << "\" y1=\"" << fmt_num(y1) << "\" x2=\"" << fmt_num(x2) << "\" y2=\""
     << fmt_num(y2) << "\" stroke=\"" << stroke << "\" stroke-width=\"" << fmt_num(width) << "\"";
  if (!cls.empty()) o_ << " class=\"" << cls << "\"";
  o_ << "/>\n";
}

void Svg::text(double x, double y, const std::string& s, const std::string& anchor, int size) {
  o_ << "<text x=\"" << fmt_num(x) << "\" y=\"" << fmt_num(y) << "\" text-anchor=\"" << anchor << "\" font-size=\""
     << size << "\">" << xml_escape(s) << "</text>\n";
}

void Svg::circle(double x, double y, double r, const std::string& fill, const std::string& title) {
  o_ << "<circle cx=\"" << fmt_num(x) << "\" cy=\"" << fmt_num(y) << "\" r=\"" << fmt_num(r) << "\" fill=\"" << fill
     << "\">";
  if (!title.empty()) o_ << "<title>" << xml_escape(title) << "</title>";
  o_ << "</circle>\n";
}

void Svg::polyline(const std::string& points, const std::string& stroke, double width) {
  o_ << "<polyline points=\"" << points << "\" fill=\"none\" stroke=\"" << stroke << "\" stroke-width=\""
     << fmt_num(width) << "\"/>\n";
}

std::string Svg::str() const {
  return "<svg id=\"" + id_ + "\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(w_) + "\" height=\"" +
         std::to_string(h_) + "\" viewBox=\"0 0 " + std::to_string(w_) + " " + std::to_string(h_) +
         "\" font-family=\"sans-serif\">\n" + o_.str() + "</svg>\n";
}

std::string heat_colour(double t) {
  t = std::clamp(t, 0.0, 1.0);
  const int r = int(t < 0.5 ? 80 + 2 * t * 175 : 255), g = int(t < 0.5 ? 190 : 190 - (t - 0.5) * 2 * 150), b = 80;
  char c[8];
  std::snprintf(c, sizeof c, "#%02x%02x%02x", r, g, b);
  return c;
}

}  // namespace npusim::cli
