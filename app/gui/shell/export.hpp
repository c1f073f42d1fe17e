// Export: CSV of a plot's visible series, PNG of one plot's rectangle (the window PNG is gl_capture's).
#pragma once

#include <imgui.h>

#include <string>
#include <vector>

#include "plot/plot.hpp"

namespace gelu::app {

/// The visible series of a plot as CSV in long form, one row per point: `series,x,y`, with the plot id and
/// visible ranges in '#' comment lines at the top. Numbers in shortest round-trip form (%.17g).
/// A heat map's cells (series with values) add a fourth column: `series,x,y,value`, empty for the plot's
/// other series (its data points).
std::string series_csv(const std::string& plot_id, const plot::PlotState& state);

/// The data rows series_csv would write: 0 for a plot with no data yet (the CSV is then not written).
std::size_t captured_rows(const plot::PlotState& state);

/// The screen rectangle of a plot including its title and axis labels (its frame as last drawn; before it was
/// drawn, the data area grown by the tick-label margins), clamped to the display.
void plot_frame_rect(const plot::PlotState& state, float em, ImVec2 display, ImVec2* min, ImVec2* max);

/// Reads the rectangle [min, max) (ImGui screen coordinates, top-left origin) of the current GL read
/// framebuffer of height fb_h and writes it as an opaque PNG. Returns false and sets *error on failure.
bool write_framebuffer_region_png(const std::string& path, int fb_h, ImVec2 min, ImVec2 max,
                                  std::string* error);

}  // namespace gelu::app
