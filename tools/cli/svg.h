#pragma once
// A minimal SVG writer for npusim report: the few primitives its charts draw, text escaped for XML. Coordinates
// are in pixels of the element's own viewBox.
#include <sstream>
#include <string>

namespace npusim::cli {

std::string xml_escape(const std::string& s);
std::string fmt_num(double v);      // %.4g
std::string fmt_compact(double v);  // 4 significant digits with a k / M / G suffix (cycle counts in a cell)

class Svg {
 public:
  Svg(int width, int height, const std::string& id);
  // `title` becomes a tooltip (<title>); empty: none.
  void rect(double x, double y, double w, double h, const std::string& fill, const std::string& title = "",
            double opacity = 1);
  void line(double x1, double y1, double x2, double y2, const std::string& stroke, double width = 1,
            const std::string& cls = "");
  void text(double x, double y, const std::string& s, const std::string& anchor = "start", int size = 11);
  void circle(double x, double y, double r, const std::string& fill, const std::string& title = "");
  void polyline(const std::string& points, const std::string& stroke, double width = 1.5);
  std::string str() const;

 private:
  int w_, h_;
  std::string id_;
  std::ostringstream o_;
};

// A colour from green (t = 0, best) through yellow to red (t = 1, worst).
std::string heat_colour(double t);

}  // namespace npusim::cli
