// The site tree at scale: a rack's trays and chips are made when it is opened, looked up or
// searched into; the tree built for them on demand is the one a full build would give.
#include <QRegularExpression>
#include <QSortFilterProxyModel>
#include <catch2/catch.hpp>

#include "GuiTestApp.hpp"
#include "SiteTree.hpp"
#include "racktwin/core/SiteState.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"

using namespace racktwin;
using racktwin::gui::SiteTreeFilter;
using racktwin::gui::SiteTreeModel;

namespace {

int countRows(const QAbstractItemModel& model, const QModelIndex& parent) {
  int n = model.rowCount(parent);
  for (int r = 0; r < model.rowCount(parent); ++r)
    n += countRows(model, model.index(r, 0, parent));
  return n;
}

}  // namespace

TEST_CASE("Racks make their trays and chips when opened, looked up or searched", "[gui]") {
  gui::test::ensureApplication();
  const core::SiteSpec site = scenarios::loadScenario(
      gui::test::sourcePath("scenarios/cluster-64-racks.yaml").toStdString());
  const core::SiteLayout layout = core::SiteLayout::build(site);
  SiteTreeModel model;
  model.build(site);
  // Built: site, groups, 8 rows of 8 racks, CDUs, loops, feeds; no tray or chip yet.
  const int before = countRows(model, QModelIndex());
  CHECK(before < 500);
  const QModelIndex rack = model.indexOf("row2/rack03");
  REQUIRE(rack.isValid());
  CHECK(model.hasChildren(rack));
  CHECK(model.canFetchMore(rack));
  CHECK(model.rowCount(rack) == 0);
  model.fetchMore(rack);
  CHECK_FALSE(model.canFetchMore(rack));
  CHECK(model.rowCount(rack) == 18 + 9);  // compute and switch trays
  // Looking up a chip of an unopened rack opens it: every chip of the rack, under its tray.
  const QModelIndex gpu = model.indexOf("row7/rack08/tray18/gpu3");
  REQUIRE(gpu.isValid());
  CHECK(gpu.parent().data(SiteTreeModel::IdRole).toString() == "row7/rack08/tray18");
  CHECK(gpu.parent().parent().data(SiteTreeModel::IdRole).toString() == "row7/rack08");
  const int per_rack = 18 + 9 + 18 * (4 + 2) + 9 * 2;
  CHECK(countRows(model, QModelIndex()) == before + 2 * per_rack);
  CHECK(per_rack * 64
        == 27 * 64 + static_cast<int>(layout.gpu_count + layout.cpu_count + layout.switch_count));

  // A search for a chip keeps the racks that hold it, opened or not, and only those.
  SiteTreeFilter filter;
  filter.setSourceModel(&model);
  filter.setFilterFixedString("rack05/tray02/gpu1");
  int racks_kept = 0;
  for (int r = 0; r < 64; ++r) {
    const std::string id = site.racks[static_cast<std::size_t>(r)].id.str();
    const QModelIndex shown = filter.mapFromSource(model.indexOf(QString::fromStdString(id)));
    racks_kept += shown.isValid() ? 1 : 0;
    CHECK(shown.isValid() == (id.find("rack05") != std::string::npos));
  }
  CHECK(racks_kept == 8);
}
