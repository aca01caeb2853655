#include "ColdPlateMesh.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "FoamCommon.hpp"

namespace racktwin::cfd::detail {

namespace {

struct Segment {
  double from, to;
  int cells;
  bool channel;  // y: a channel (else a fin); z: the channel layer (else the base)
  bool heated;   // x: under the heater
};

int scaled(int cells, double scale) {
  return std::max(1, static_cast<int>(std::lround(cells * scale)));
}

}  // namespace

PlateMesh plateMesh(const ColdPlateSpec& s, double scale) {
  // Along the flow: the heater centred, unheated base before and after it.
  std::vector<Segment> xs;
  const double x0 = 0.5 * (s.length - s.heater_length);
  const double x1 = x0 + s.heater_length;
  const int n_along = scaled(s.cells_along, scale);
  auto along = [&](double a, double b, bool heated) {
    if (b - a <= 1e-9 * s.length) return;
    xs.push_back({a, b, std::max(1, static_cast<int>(std::lround(n_along * (b - a) / s.length))),
                  false, heated});
  };
  along(0.0, x0, false);
  along(x0, x1, true);
  along(x1, s.length, false);

  // Across: half fin, channel, fin, ..., channel, half fin.
  std::vector<Segment> ys;
  const int n_fin = scaled(s.cells_across_fin, scale);
  const int n_half_fin = std::max(1, (n_fin + 1) / 2);
  const int n_channel = scaled(s.cells_across_channel, scale);
  double y = 0.0;
  for (int c = 0; c < s.slice_channels; ++c) {
    const double fin = c == 0 ? 0.5 * s.fin_thickness : s.fin_thickness;
    ys.push_back({y, y + fin, c == 0 ? n_half_fin : n_fin, false, false});
    y += fin;
    ys.push_back({y, y + s.channel_width, n_channel, true, false});
    y += s.channel_width;
  }
  ys.push_back({y, y + 0.5 * s.fin_thickness, n_half_fin, false, false});
  y += 0.5 * s.fin_thickness;

  const std::vector<Segment> zs{{0.0, s.base_thickness, scaled(s.cells_base, scale), false, false},
                                {s.base_thickness, s.base_thickness + s.channel_height,
                                 scaled(s.cells_height, scale), true, false}};

  const int NX = static_cast<int>(xs.size());
  const int NY = static_cast<int>(ys.size());
  const int NZ = static_cast<int>(zs.size());
  auto coordinate = [](const std::vector<Segment>& segments, int i) {
    return i < static_cast<int>(segments.size()) ? segments[i].from : segments.back().to;
  };
  auto v = [&](int i, int j, int k) { return i + (NX + 1) * (j + (NY + 1) * k); };

  std::vector<std::string> vertices;
  for (int k = 0; k <= NZ; ++k)
    for (int j = 0; j <= NY; ++j)
      for (int i = 0; i <= NX; ++i)
        vertices.push_back(foamVector(coordinate(xs, i), coordinate(ys, j), coordinate(zs, k)));

  auto face = [](int a, int b, int c, int d) {
    return "(" + std::to_string(a) + " " + std::to_string(b) + " " + std::to_string(c) + " "
           + std::to_string(d) + ")";
  };
  PlateMesh mesh;
  std::string blocks = "\n(\n";
  std::vector<std::string> heater, solid_walls, sides, inlet, outlet, fluid_walls;
  for (int k = 0; k < NZ; ++k) {
    for (int j = 0; j < NY; ++j) {
      for (int i = 0; i < NX; ++i) {
        const bool fluid = zs[k].channel && ys[j].channel;
        blocks += "    hex (" + std::to_string(v(i, j, k)) + " " + std::to_string(v(i + 1, j, k))
                  + " " + std::to_string(v(i + 1, j + 1, k)) + " " + std::to_string(v(i, j + 1, k))
                  + " " + std::to_string(v(i, j, k + 1)) + " " + std::to_string(v(i + 1, j, k + 1))
                  + " " + std::to_string(v(i + 1, j + 1, k + 1)) + " "
                  + std::to_string(v(i, j + 1, k + 1)) + ") " + (fluid ? "fluid" : "solid") + " ("
                  + std::to_string(xs[i].cells) + " " + std::to_string(ys[j].cells) + " "
                  + std::to_string(zs[k].cells) + ") simpleGrading (1 1 1)\n";
        mesh.cells += static_cast<long>(xs[i].cells) * ys[j].cells * zs[k].cells;
        const std::string x_min =
            face(v(i, j, k), v(i, j, k + 1), v(i, j + 1, k + 1), v(i, j + 1, k));
        const std::string x_max =
            face(v(i + 1, j, k), v(i + 1, j + 1, k), v(i + 1, j + 1, k + 1), v(i + 1, j, k + 1));
        if (i == 0) (fluid ? inlet : solid_walls).push_back(x_min);
        if (i == NX - 1) (fluid ? outlet : solid_walls).push_back(x_max);
        if (j == 0)
          sides.push_back(face(v(i, j, k), v(i + 1, j, k), v(i + 1, j, k + 1), v(i, j, k + 1)));
        if (j == NY - 1) {
          sides.push_back(
              face(v(i, j + 1, k), v(i, j + 1, k + 1), v(i + 1, j + 1, k + 1), v(i + 1, j + 1, k)));
        }
        if (k == 0) {
          const std::string bottom =
              face(v(i, j, k), v(i, j + 1, k), v(i + 1, j + 1, k), v(i + 1, j, k));
          (xs[i].heated ? heater : solid_walls).push_back(bottom);
          if (xs[i].heated) mesh.heater_area += (xs[i].to - xs[i].from) * (ys[j].to - ys[j].from);
        }
        if (k == NZ - 1) {
          (fluid ? fluid_walls : solid_walls)
              .push_back(face(v(i, j, k + 1), v(i + 1, j, k + 1), v(i + 1, j + 1, k + 1),
                              v(i, j + 1, k + 1)));
        }
        if (fluid && i == 0) mesh.inlet_area += (ys[j].to - ys[j].from) * (zs[k].to - zs[k].from);
      }
    }
  }
  blocks += ")";
  mesh.slice_width = y;

  auto patch = [](const char* type, const std::vector<std::string>& faces) {
    FoamDictionary p;
    std::string list = "\n        (\n";
    for (const std::string& f : faces)
      list += "            " + f + "\n";
    p.set("type", type).set("faces", list + "        )");
    return p;
  };
  FoamDictionary& d = mesh.block_mesh_dict;
  d.set("convertToMeters", 1);
  std::string vertex_list = "\n(\n";
  for (const std::string& p : vertices)
    vertex_list += "    " + p + "\n";
  d.set("vertices", vertex_list + ")");
  d.set("blocks", blocks);
  d.set("edges", "()");
  d.set("boundary", namedDictionaryList({{"heater", patch("wall", heater)},
                                         {"solid_walls", patch("wall", solid_walls)},
                                         {"sides", patch("symmetry", sides)},
                                         {"inlet", patch("patch", inlet)},
                                         {"outlet", patch("patch", outlet)},
                                         {"fluid_walls", patch("wall", fluid_walls)}},
                                        0));
  d.set("mergePatchPairs", "()");
  return mesh;
}

}  // namespace racktwin::cfd::detail
