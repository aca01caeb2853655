#include "ScenePolyData.hpp"

#include <algorithm>
#include <vector>

#include <vtkCellArray.h>
#include <vtkCellData.h>
#include <vtkDoubleArray.h>
#include <vtkIntArray.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkStringArray.h>
#include <vtkTubeFilter.h>

namespace racktwin::viz {
namespace {

// Corner k of a box: bit 0 picks x, bit 1 y, bit 2 z.
Point3 corner(const Box& b, int k) {
  return {(k & 1) ? b.max[0] : b.min[0], (k & 2) ? b.max[1] : b.min[1],
          (k & 4) ? b.max[2] : b.min[2]};
}

// The six faces as corner indices, counter-clockwise seen from outside.
constexpr vtkIdType kFaces[6][4] = {
    {0, 2, 3, 1},  // z min
    {4, 5, 7, 6},  // z max
    {0, 1, 5, 4},  // y min
    {2, 6, 7, 3},  // y max
    {0, 4, 6, 2},  // x min
    {1, 3, 7, 5},  // x max
};

vtkSmartPointer<vtkIntArray> entityArray() {
  auto entity = vtkSmartPointer<vtkIntArray>::New();
  entity->SetName(kEntityIndexArray);
  return entity;
}

}  // namespace

vtkSmartPointer<vtkPolyData> makeBoxes(const SiteGeometry& geometry, bool cdus) {
  const std::size_t n = cdus ? geometry.cduCount() : geometry.rackCount();
  vtkNew<vtkPoints> points;
  points->SetDataTypeToDouble();
  points->Allocate(static_cast<vtkIdType>(8 * n));
  vtkNew<vtkCellArray> polys;
  auto entity = entityArray();
  entity->Allocate(static_cast<vtkIdType>(6 * n));
  for (std::size_t i = 0; i < n; ++i) {
    const Box& box = cdus ? geometry.cdus()[i].box : geometry.racks()[i].box;
    const vtkIdType base = points->GetNumberOfPoints();
    for (int k = 0; k < 8; ++k) {
      const Point3 p = corner(box, k);
      points->InsertNextPoint(p.data());
    }
    const auto e = static_cast<int>(cdus ? geometry.cduEntity(i) : geometry.rackEntity(i));
    for (const auto& face : kFaces) {
      const vtkIdType ids[4] = {base + face[0], base + face[1], base + face[2], base + face[3]};
      polys->InsertNextCell(4, ids);
      entity->InsertNextValue(e);
    }
  }
  auto data = vtkSmartPointer<vtkPolyData>::New();
  data->SetPoints(points);
  data->SetPolys(polys);
  data->GetCellData()->AddArray(entity);
  return data;
}

vtkSmartPointer<vtkPolyData> makePipeLines(const SiteGeometry& geometry,
                                           const std::vector<std::size_t>& pipes) {
  vtkNew<vtkPoints> points;
  points->SetDataTypeToDouble();
  vtkNew<vtkCellArray> lines;
  vtkNew<vtkDoubleArray> radius;
  radius->SetName("radius");
  auto entity = entityArray();
  const std::size_t count = pipes.empty() ? geometry.pipeCount() : pipes.size();
  for (std::size_t k = 0; k < count; ++k) {
    const std::size_t p = pipes.empty() ? k : pipes[k];
    const PipePlacement& pipe = geometry.pipes()[p];
    lines->InsertNextCell(static_cast<vtkIdType>(pipe.points.size()));
    for (const Point3& q : pipe.points) {
      lines->InsertCellPoint(points->InsertNextPoint(q.data()));
      radius->InsertNextValue(pipe.radius);
    }
    entity->InsertNextValue(static_cast<int>(geometry.pipeEntity(p)));
  }
  auto data = vtkSmartPointer<vtkPolyData>::New();
  data->SetPoints(points);
  data->SetLines(lines);
  data->GetPointData()->AddArray(radius);
  data->GetCellData()->AddArray(entity);
  return data;
}

vtkSmartPointer<vtkPolyData> makePipeTubes(const SiteGeometry& geometry,
                                           const std::vector<std::size_t>& pipes, int sides) {
  auto tubes = vtkSmartPointer<vtkPolyData>::New();
  if (geometry.pipeCount() == 0) {
    tubes->SetPoints(vtkNew<vtkPoints>{});
    tubes->GetCellData()->AddArray(entityArray());
    return tubes;
  }
  vtkSmartPointer<vtkPolyData> lines = makePipeLines(geometry, pipes);
  lines->GetPointData()->SetActiveScalars("radius");
  vtkNew<vtkTubeFilter> filter;
  filter->SetInputData(lines);
  filter->SetVaryRadiusToVaryRadiusByAbsoluteScalar();
  filter->SetNumberOfSides(sides);
  filter->CappingOn();
  filter->Update();
  tubes->DeepCopy(filter->GetOutput());
  tubes->GetPointData()->SetActiveScalars(nullptr);
  return tubes;
}

namespace {
constexpr double kFloorZ = -0.01;         // m: just below the racks
constexpr double kSiteFloorMargin = 2.0;  // m beyond the site's footprint
constexpr double kHallFloorMargin = 1.5;  // m around a hall's rows (the CDUs at their ends)

struct Rect {
  double x0, y0, x1, y1;
};

std::vector<Rect> hallFloorRects(const SiteGeometry& geometry) {
  std::vector<Rect> rects;
  for (const HallPlacement& hall : geometry.halls()) {
    const Box& b = hall.box;
    if (b.max[0] <= b.min[0]) continue;
    rects.push_back({b.min[0] - kHallFloorMargin, b.min[1] - kHallFloorMargin,
                     b.max[0] + kHallFloorMargin, b.max[1] + kHallFloorMargin});
  }
  return rects;
}

vtkSmartPointer<vtkPolyData> makeQuads(const std::vector<Rect>& rects) {
  vtkNew<vtkPoints> points;
  vtkNew<vtkCellArray> polys;
  for (const Rect& r : rects) {
    const vtkIdType base = points->GetNumberOfPoints();
    points->InsertNextPoint(r.x0, r.y0, kFloorZ);
    points->InsertNextPoint(r.x1, r.y0, kFloorZ);
    points->InsertNextPoint(r.x1, r.y1, kFloorZ);
    points->InsertNextPoint(r.x0, r.y1, kFloorZ);
    const vtkIdType quad[4] = {base, base + 1, base + 2, base + 3};
    polys->InsertNextCell(4, quad);
  }
  auto data = vtkSmartPointer<vtkPolyData>::New();
  data->SetPoints(points);
  data->SetPolys(polys);
  return data;
}
}  // namespace

vtkSmartPointer<vtkPolyData> makeHallFloors(const SiteGeometry& geometry) {
  return makeQuads(hallFloorRects(geometry));
}

vtkSmartPointer<vtkPolyData> makeSiteFloor(const SiteGeometry& geometry) {
  const Box b = geometry.bounds();
  const Rect site{b.min[0] - kSiteFloorMargin, b.min[1] - kSiteFloorMargin,
                  b.max[0] + kSiteFloorMargin, b.max[1] + kSiteFloorMargin};
  // The halls' floors are drawn only where there are several (Scene).
  const std::vector<Rect> holes =
      geometry.halls().size() > 1 ? hallFloorRects(geometry) : std::vector<Rect>{};
  // The grid of every edge; its cells that no hall covers (a few halls: a few dozen cells).
  std::vector<double> xs{site.x0, site.x1}, ys{site.y0, site.y1};
  for (const Rect& h : holes) {
    xs.push_back(std::clamp(h.x0, site.x0, site.x1));
    xs.push_back(std::clamp(h.x1, site.x0, site.x1));
    ys.push_back(std::clamp(h.y0, site.y0, site.y1));
    ys.push_back(std::clamp(h.y1, site.y0, site.y1));
  }
  for (auto* v : {&xs, &ys}) {
    std::sort(v->begin(), v->end());
    v->erase(std::unique(v->begin(), v->end()), v->end());
  }
  std::vector<Rect> cells;
  for (std::size_t i = 0; i + 1 < xs.size(); ++i) {
    for (std::size_t j = 0; j + 1 < ys.size(); ++j) {
      const double cx = 0.5 * (xs[i] + xs[i + 1]), cy = 0.5 * (ys[j] + ys[j + 1]);
      const bool covered = std::any_of(holes.begin(), holes.end(), [&](const Rect& h) {
        return cx > h.x0 && cx < h.x1 && cy > h.y0 && cy < h.y1;
      });
      if (!covered) cells.push_back({xs[i], ys[j], xs[i + 1], ys[j + 1]});
    }
  }
  return makeQuads(cells);
}

void addQuantityArrays(vtkPolyData& data, const SiteGeometry& geometry, const Frame& frame) {
  auto* entity = vtkIntArray::SafeDownCast(data.GetCellData()->GetArray(kEntityIndexArray));
  const vtkIdType cells = data.GetNumberOfCells();
  for (const Quantity q : kAllQuantities) {
    vtkNew<vtkDoubleArray> values;
    values->SetName(std::string(quantityInfo(q).array_name).c_str());
    values->SetNumberOfTuples(cells);
    for (vtkIdType c = 0; c < cells; ++c) {
      values->SetValue(c, frame.value(q, static_cast<std::size_t>(entity->GetValue(c))));
    }
    data.GetCellData()->AddArray(values);
  }
  vtkNew<vtkStringArray> ids;
  ids->SetName(kEntityIdArray);
  ids->SetNumberOfValues(cells);
  for (vtkIdType c = 0; c < cells; ++c) {
    ids->SetValue(c, geometry.entityId(static_cast<std::size_t>(entity->GetValue(c))));
  }
  data.GetCellData()->AddArray(ids);
}

}  // namespace racktwin::viz
