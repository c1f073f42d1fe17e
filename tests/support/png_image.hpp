// Reading rendered PNGs back in tests: an RGB image (stb_image) and colour helpers for pixel checks.
#pragma once

#include <stb_image.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>

namespace gelu::test {

struct Rgb {
  int r, g, b;
  int lum() const { return (r * 299 + g * 587 + b * 114) / 1000; }
};

/// "#rrggbb" -> Rgb.
inline Rgb hex(const std::string& h) {
  return Rgb{std::stoi(h.substr(1, 2), nullptr, 16), std::stoi(h.substr(3, 2), nullptr, 16),
             std::stoi(h.substr(5, 2), nullptr, 16)};
}

/// Euclidean distance in RGB.
inline double dist(Rgb a, Rgb b) {
  return std::sqrt(double((a.r - b.r) * (a.r - b.r) + (a.g - b.g) * (a.g - b.g) + (a.b - b.b) * (a.b - b.b)));
}

class Image {
 public:
  explicit Image(const std::string& path) { data_ = stbi_load(path.c_str(), &w_, &h_, &n_, 3); }
  ~Image() { stbi_image_free(data_); }
  Image(const Image&) = delete;
  Image& operator=(const Image&) = delete;
  bool ok() const { return data_ != nullptr; }
  int w() const { return w_; }
  int h() const { return h_; }
  Rgb at(int x, int y) const {
    const unsigned char* p = data_ + (static_cast<std::size_t>(y) * w_ + x) * 3;
    return Rgb{p[0], p[1], p[2]};
  }
  /// Smallest colour distance to `c` within a (2r+1)² square around (x, y).
  double nearest(double x, double y, Rgb c, int r = 2) const {
    double best = 1e9;
    const int cx = static_cast<int>(std::lround(x)), cy = static_cast<int>(std::lround(y));
    for (int yy = cy - r; yy <= cy + r; ++yy)
      for (int xx = cx - r; xx <= cx + r; ++xx) {
        if (xx < 0 || yy < 0 || xx >= w_ || yy >= h_) continue;
        best = std::min(best, dist(at(xx, yy), c));
      }
    return best;
  }

 private:
  int w_ = 0, h_ = 0, n_ = 0;
  unsigned char* data_ = nullptr;
};

}  // namespace gelu::test
