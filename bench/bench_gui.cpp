// The desktop program on a large site (bench/gen_site.py 4167 --halls 4 --layout, about 300,000
// GPUs): time from opening a scenario (or a result) to the window shown with its first frame
// drawn, for a scenario to the twin assembled in the worker (its first record); the site tree's
// build alone, a search for one chip over every rack, and opening a rack. Run under xvfb-run
// (the 3D view needs GLX):
//   xvfb-run -a build/release/bench/bench_gui SCENARIO.yaml|RESULT.h5 [SCENARIO.yaml]
#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QSortFilterProxyModel>
#include <QTimer>
#include <QTreeView>

#include <cstdio>

#include "MainWindow.hpp"
#include "SiteTree.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"

namespace {

/// Rows the filter shows, counted through the whole tree (as a view asks for them).
int shown(const QAbstractItemModel& model, const QModelIndex& parent = QModelIndex()) {
  int n = model.rowCount(parent);
  for (int r = 0; r < model.rowCount(parent); ++r)
    n += shown(model, model.index(r, 0, parent));
  return n;
}

void settle(int ms) {
  QElapsedTimer clock;
  clock.start();
  while (clock.elapsed() < ms)
    QApplication::processEvents(QEventLoop::AllEvents, 10);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace racktwin;
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_gui SCENARIO.yaml|RESULT.h5 [SCENARIO.yaml]\n");
    return 2;
  }
  gui::setDefaultSurfaceFormat();
  QApplication app(argc, argv);
  const QString path = QString::fromLocal8Bit(argv[1]);

  gui::MainWindow window;
  window.resize(1280, 860);
  window.show();
  settle(200);
  QElapsedTimer clock;
  clock.start();
  QString error;
  const bool result = path.endsWith(".h5");
  if (!window.openFile(path, &error)) {
    std::fprintf(stderr, "bench_gui: %s\n", error.toStdString().c_str());
    return 1;
  }
  const double opened = clock.nsecsElapsed() * 1e-9;
  QApplication::processEvents();
  window.grabView();  // the first frame, drawn
  const double drawn = clock.nsecsElapsed() * 1e-9;
  if (result) {
    std::printf("%s: openResult %.2f s (%zu samples), first frame drawn %.2f s\n", argv[1], opened,
                window.store().samples(), drawn);
    if (argc < 3) return 0;
  } else {
    // The worker assembles the twin and records t = 0.
    while (window.store().samples() == 0 && clock.elapsed() < 600000)
      QApplication::processEvents(QEventLoop::AllEvents, 20);
    const double live = clock.nsecsElapsed() * 1e-9;
    std::printf(
        "%s: openScenario %.2f s, first frame drawn %.2f s, twin live (first record) "
        "%.2f s\n",
        argv[1], opened, drawn, live);
  }

  const core::SiteSpec site = scenarios::loadScenario(result ? argv[2] : argv[1]);
  gui::SiteTreeModel model;
  clock.restart();
  model.build(site);
  std::printf("site tree: build %.3f s\n", clock.nsecsElapsed() * 1e-9);
  gui::SiteTreeFilter filter;
  filter.setSourceModel(&model);
  (void)shown(filter);
  const std::string rack = site.racks.back().id.str();
  clock.restart();
  filter.setFilterFixedString(QString::fromStdString(rack + "/tray07/gpu2"));
  const int hits = shown(filter);
  const double first_search = clock.nsecsElapsed() * 1e-9;
  clock.restart();
  filter.setFilterFixedString(QString::fromStdString(rack + "/tray07/gpu1"));
  (void)shown(filter);
  const double second_search = clock.nsecsElapsed() * 1e-9;
  clock.restart();
  filter.setFilterFixedString(QString());
  const int all = shown(filter);
  const double cleared = clock.nsecsElapsed() * 1e-9;
  std::printf("tree rows shown: %d; with the search: %d\n", all, hits);
  clock.restart();
  const QModelIndex index = model.indexOf(QString::fromStdString(site.racks.front().id.str()));
  model.fetchMore(index);
  std::printf("search for one GPU: first %.3f s, next %.3f s, cleared %.3f s; open a rack %.4f s\n",
              first_search, second_search, cleared, clock.nsecsElapsed() * 1e-9);
  return 0;
}
