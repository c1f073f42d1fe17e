#include "gui/kit/damage.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>

namespace gelu::app::ui {
namespace {

std::atomic<std::uint64_t> g_texture_uploads{0};

std::uint64_t mix(std::uint64_t h) {  // a 64-bit finalizer (splitmix64's)
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebULL;
  return h ^ (h >> 31);
}
std::uint64_t bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
std::uint64_t vertex_hash(const ImDrawVert& v) {
  return mix((bits(v.pos.x) << 32 | bits(v.pos.y)) ^ mix(bits(v.uv.x) << 32 | bits(v.uv.y)) ^
             (static_cast<std::uint64_t>(v.col) << 17));
}

struct TileRect {
  int c0, r0, c1, r1;  // tiles [c0, c1) × [r0, r1)
  long area() const { return static_cast<long>(c1 - c0) * (r1 - r0); }
};
TileRect unite(const TileRect& a, const TileRect& b) {
  return {std::min(a.c0, b.c0), std::min(a.r0, b.r0), std::max(a.c1, b.c1), std::max(a.r1, b.r1)};
}
bool overlap(const TileRect& a, const TileRect& b) {
  return a.c0 < b.c1 && b.c0 < a.c1 && a.r0 < b.r1 && b.r0 < a.r1;
}

}  // namespace

void note_texture_upload() {
  g_texture_uploads.fetch_add(1, std::memory_order_relaxed);
}

std::vector<PixelRect> merge_tiles(const std::vector<unsigned char>& damaged, int cols, int rows, int tile,
                                   int width, int height, int max_rects) {
  std::vector<TileRect> rects;
  std::vector<std::size_t> open;  // rects that end at the row before this one
  for (int r = 0; r < rows; ++r) {
    std::vector<std::size_t> now;
    for (int c = 0; c < cols;) {
      if (!damaged[static_cast<std::size_t>(r) * cols + c]) {
        ++c;
        continue;
      }
      int e = c;
      while (e < cols && damaged[static_cast<std::size_t>(r) * cols + e]) ++e;
      // A run under one of the last row's with the same columns extends it downwards.
      auto it = std::find_if(open.begin(), open.end(),
                             [&](std::size_t k) { return rects[k].c0 == c && rects[k].c1 == e; });
      if (it != open.end()) {
        rects[*it].r1 = r + 1;
        now.push_back(*it);
      } else {
        rects.push_back({c, r, e, r + 1});
        now.push_back(rects.size() - 1);
      }
      c = e;
    }
    open = std::move(now);
  }
  // Scattered damage (a run of tiles per changed label across a table, say): the pairwise merging below costs
  // the cube of the count, so past kPairwise runs their bounding box is the one rectangle.
  constexpr std::size_t kPairwise = 64;
  if (rects.size() > kPairwise) {
    TileRect all = rects[0];
    for (const TileRect& t : rects) all = unite(all, t);
    rects.assign(1, all);
  }
  // Too many: unite the pair that adds the fewest tiles, then swallow whatever the union overlaps, so the
  // rectangles stay disjoint (a pixel drawn twice would be blended twice).
  while (static_cast<int>(rects.size()) > std::max(1, max_rects)) {
    std::size_t bi = 0, bj = 1;
    long best = -1;
    for (std::size_t i = 0; i < rects.size(); ++i)
      for (std::size_t j = i + 1; j < rects.size(); ++j) {
        const long extra = unite(rects[i], rects[j]).area() - rects[i].area() - rects[j].area();
        if (best < 0 || extra < best) best = extra, bi = i, bj = j;
      }
    TileRect u = unite(rects[bi], rects[bj]);
    rects.erase(rects.begin() + static_cast<long>(bj));
    rects.erase(rects.begin() + static_cast<long>(bi));
    for (bool grew = true; grew;) {
      grew = false;
      for (std::size_t k = 0; k < rects.size(); ++k)
        if (overlap(u, rects[k])) {
          u = unite(u, rects[k]);
          rects.erase(rects.begin() + static_cast<long>(k));
          grew = true;
          break;
        }
    }
    rects.push_back(u);
  }
  std::vector<PixelRect> out;
  for (const TileRect& t : rects)
    out.push_back({t.c0 * tile, t.r0 * tile, std::min(t.c1 * tile, width), std::min(t.r1 * tile, height)});
  return out;
}

PixelRect backend_scissor(const ImVec4& clip, int h) {
  if (!(clip.z > clip.x && clip.w > clip.y)) return {};
  // glScissor((int)x0, (int)(h - y1), (int)(x1 - x0), (int)(y1 - y0)) in imgui_impl_opengl3.cpp (1.86).
  const int x0 = static_cast<int>(clip.x), w = static_cast<int>(clip.z - clip.x);
  const int bottom = static_cast<int>(static_cast<float>(h) - clip.w), sh = static_cast<int>(clip.w - clip.y);
  return {x0, h - bottom - sh, x0 + w, h - bottom};
}

std::vector<PixelRect> DamageTracker::update(const ImDrawData* data, ImU32 clear_colour) {
  if (!data || !data->Valid) return {};
  const ImVec2 scale = data->FramebufferScale;
  const int w = static_cast<int>(data->DisplaySize.x * scale.x),
            h = static_cast<int>(data->DisplaySize.y * scale.y);
  if (w <= 0 || h <= 0) return {};
  const bool exact = scale.x == 1 && scale.y == 1 && data->DisplayPos.x == 0 && data->DisplayPos.y == 0;
  const std::uint64_t key = mix(mix(static_cast<std::uint64_t>(w) << 32 | static_cast<std::uint32_t>(h)) ^
                                (bits(scale.x) << 32 | bits(scale.y)) ^ mix(clear_colour));
  const std::uint64_t textures = g_texture_uploads.load(std::memory_order_relaxed);
  const int cols = exact ? (w + kTile - 1) / kTile : 0, rows = exact ? (h + kTile - 1) / kTile : 0;
  const bool unseen = !exact || !hash_tiles(data, w, h, cols, rows);
  const bool full = unseen || key != key_ || textures != textures_ || hashes_.size() != next_.size();
  std::vector<PixelRect> out;
  if (full) {
    out.push_back({0, 0, w, h});
  } else {
    std::vector<unsigned char> damaged(next_.size());
    long n_damaged = 0;
    for (std::size_t i = 0; i < next_.size(); ++i) n_damaged += damaged[i] = next_[i] != hashes_[i];
    if (n_damaged * 2 > static_cast<long>(next_.size()))
      out.push_back({0, 0, w, h});
    else if (n_damaged)
      out = merge_tiles(damaged, cols, rows, kTile, w, h, kMaxRects);
  }
  key_ = key;
  textures_ = textures;
  hashes_.swap(next_);
  if (unseen) hashes_.clear();  // what a callback drew is not in the hashes: the next frame is whole too
  return out;
}

bool DamageTracker::hash_tiles(const ImDrawData* data, int w, int h, int cols, int rows) {
  next_.assign(static_cast<std::size_t>(cols) * rows, 0);
  for (int n = 0; n < data->CmdListsCount; ++n) {
    const ImDrawList* list = data->CmdLists[n];
    for (const ImDrawCmd& cmd : list->CmdBuffer) {
      if (cmd.UserCallback) return false;  // drawing we cannot see into
      // The command's pixels: its scissor as the OpenGL3 backend sets it (ImGui's pixels are the
      // framebuffer's).
      const PixelRect sc = backend_scissor(cmd.ClipRect, h);
      if (sc.x1 <= sc.x0 || sc.y1 <= sc.y0) continue;  // the backend draws nothing
      const float bx0 = static_cast<float>(std::max(0, sc.x0)), by0 = static_cast<float>(std::max(0, sc.y0));
      const float bx1 = static_cast<float>(std::min(w, sc.x1)), by1 = static_cast<float>(std::min(h, sc.y1));
      const std::uint64_t cmd_hash =
          mix(static_cast<std::uint64_t>(static_cast<std::uint32_t>(sc.x0)) << 32 |
              static_cast<std::uint32_t>(sc.y0)) ^
          mix((static_cast<std::uint64_t>(static_cast<std::uint32_t>(sc.x1)) << 32 |
               static_cast<std::uint32_t>(sc.y1)) ^
              0x5bd1e995) ^
          mix(static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(cmd.TextureId)) + 0x9e3779b9);
      const ImDrawIdx* idx = list->IdxBuffer.Data + cmd.IdxOffset;
      const ImDrawVert* vtx = list->VtxBuffer.Data + cmd.VtxOffset;
      for (unsigned k = 0; k + 2 < cmd.ElemCount; k += 3) {
        const ImDrawVert &a = vtx[idx[k]], &b = vtx[idx[k + 1]], &c = vtx[idx[k + 2]];
        // The triangle's pixels: its bounding box in the framebuffer, a pixel wider, inside the scissor.
        const float x0 = std::max(bx0, std::min({a.pos.x, b.pos.x, c.pos.x}) - 1);
        const float x1 = std::min(bx1, std::max({a.pos.x, b.pos.x, c.pos.x}) + 1);
        const float y0 = std::max(by0, std::min({a.pos.y, b.pos.y, c.pos.y}) - 1);
        const float y1 = std::min(by1, std::max({a.pos.y, b.pos.y, c.pos.y}) + 1);
        if (!(x1 > x0 && y1 > y0)) continue;  // outside its scissor (or NaN): draws nothing
        const std::uint64_t t =
            mix(cmd_hash ^ vertex_hash(a) ^ mix(vertex_hash(b) + 1) ^ mix(vertex_hash(c) + 2));
        // Tiles [x0, x1) covers: x1 is past the last pixel it can touch.
        const int tc0 = static_cast<int>(x0) / kTile, tc1 = std::min(cols - 1, static_cast<int>(x1) / kTile);
        const int tr0 = static_cast<int>(y0) / kTile, tr1 = std::min(rows - 1, static_cast<int>(y1) / kTile);
        for (int r = tr0; r <= tr1; ++r)
          for (int q = tc0; q <= tc1; ++q) {
            std::uint64_t& cell = next_[static_cast<std::size_t>(r) * cols + q];
            cell = mix(cell * 0x100000001b3ULL + t);  // in drawing order
          }
      }
    }
  }
  return true;
}

}  // namespace gelu::app::ui
