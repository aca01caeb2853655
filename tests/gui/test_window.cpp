// The window on the shipped scenarios: the 3D view after a live run, picking, the tree search and
// the scripted command line.
#include <QImage>
#include <QLineEdit>
#include <QProcess>
#include <QTest>
#include <QTreeView>

#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>

#include <vtkCamera.h>
#include <vtkRenderer.h>

#include "GuiTestApp.hpp"
#include "MainWindow.hpp"
#include "SiteTree.hpp"
#include "VtkView.hpp"
#include "racktwin/viz/SiteGeometry.hpp"

using namespace racktwin::gui;
using racktwin::gui::test::ImageStats;

namespace {

QRgb backgroundOf(const MainWindow& window) {
  double rgb[3];
  window.renderer()->GetBackground(rgb);
  return qRgb(static_cast<int>(std::lround(rgb[0] * 255.0)),
              static_cast<int>(std::lround(rgb[1] * 255.0)),
              static_cast<int>(std::lround(rgb[2] * 255.0)));
}

// Opens a scenario in a window of fixed size, shown and laid out.
void openShown(MainWindow& window, const char* scenario) {
  window.resize(1200, 760);
  QString error;
  REQUIRE(window.openScenario(test::sourcePath(scenario), &error));
  INFO(error.toStdString());
  window.show();
  REQUIRE(QTest::qWaitForWindowExposed(&window));
  test::settle(200);
}

}  // namespace

TEST_CASE("The default scenario runs 60 s live and the 3D view shows the rack", "[gui]") {
  test::ensureApplication();
  MainWindow window;
  openShown(window, "scenarios/nvl72-rack.yaml");
  REQUIRE(window.runTo(60.0));
  CHECK(window.store().lastTime() == Approx(60.0));
  CHECK(window.viewTime() == Approx(60.0));
  test::settle(200);

  const QImage image = window.grabView();
  REQUIRE(image.width() == window.view()->width());
  const QRgb background = backgroundOf(window);
  const ImageStats stats = test::imageStats(image, background);
  // Not a black or empty view: the floor, the rack, the CDU and the pipes cover a good part.
  CHECK(stats.foreground > 0.2);
  // The rack stands where the geometry says: its centre's pixel is not background.
  const QPoint centre = window.rackDisplayPosition("row1/rack01");
  REQUIRE(centre.x() >= 0);
  const QRgb rack_pixel = image.pixel(centre.x(), image.height() - 1 - centre.y());
  CHECK(std::abs(qRed(rack_pixel) - qRed(background))
            + std::abs(qGreen(rack_pixel) - qGreen(background))
            + std::abs(qBlue(rack_pixel) - qBlue(background))
        > 40);

  // Against the baseline image (written when missing, f3d style): the same picture within
  // tolerances that allow for small model changes in the rack's colour.
  const QString baseline_path = QString(RACKTWIN_GUI_BASELINE_DIR) + "/nvl72-rack-60s.png";
  image.save(test::outputPath("nvl72-rack-60s.png"));
  if (!std::filesystem::exists(baseline_path.toStdString())) {
    image.save(baseline_path);
    WARN("baseline missing: wrote " << baseline_path.toStdString() << "; check it and keep it");
    return;
  }
  const QImage baseline(baseline_path);
  REQUIRE(!baseline.isNull());
  const ImageStats expected = test::imageStats(baseline, background);
  for (int c = 0; c < 3; ++c) {
    INFO("channel " << c);
    CHECK(stats.mean[c] == Approx(expected.mean[c]).margin(8.0));
  }
  CHECK(stats.foreground == Approx(expected.foreground).margin(0.04));
  if (baseline.size() == image.size()) {
    // Pixels that differ markedly (a channel off by more than 60): few.
    long long differing = 0;
    const QImage a = image.convertToFormat(QImage::Format_RGB32);
    const QImage b = baseline.convertToFormat(QImage::Format_RGB32);
    for (int y = 0; y < a.height(); ++y) {
      for (int x = 0; x < a.width(); ++x) {
        const QRgb p = a.pixel(x, y), q = b.pixel(x, y);
        if (std::abs(qRed(p) - qRed(q)) > 60 || std::abs(qGreen(p) - qGreen(q)) > 60
            || std::abs(qBlue(p) - qBlue(q)) > 60)
          ++differing;
      }
    }
    CHECK(static_cast<double>(differing) / (a.width() * a.height()) < 0.05);
  }
}

TEST_CASE("Clicking a rack in the 3D view selects it in the tree and outlines it", "[gui]") {
  test::ensureApplication();
  MainWindow window;
  openShown(window, "scenarios/ring-16-racks.yaml");
  REQUIRE(window.runTo(10.0));
  test::settle(100);
  const racktwin::viz::SiteGeometry& geometry = *window.geometry();
  REQUIRE(geometry.rackCount() >= 4);
  int clicked = 0;
  for (std::size_t r = 0; r < geometry.rackCount(); ++r) {
    if (geometry.racks()[r].row != 0) continue;  // the front row: nothing stands before it
    const QString id = QString::fromStdString(geometry.racks()[r].id);
    const QPoint vtk = window.rackDisplayPosition(id);
    const double dpr = window.view()->devicePixelRatioF();
    const QPoint qt(static_cast<int>(vtk.x() / dpr),
                    window.view()->height() - 1 - static_cast<int>(vtk.y() / dpr));
    REQUIRE(window.view()->rect().contains(qt));
    QTest::mouseClick(window.view(), Qt::LeftButton, Qt::NoModifier, qt);
    test::settle(50);
    INFO("rack " << id.toStdString());
    REQUIRE(window.selectedEntities().size() == 1);
    CHECK(window.selectedEntities().front() == id);
    CHECK(window.highlightedRack() == static_cast<int>(r));
    ++clicked;
  }
  CHECK(clicked >= 2);
  // A click on empty space (the top-left corner, above the site) selects nothing new.
  const QStringList before = window.selectedEntities();
  CHECK(window.pickAt(2, window.view()->height() - 3).isEmpty());
  CHECK(window.selectedEntities() == before);

  // A drag rotates the camera (trackball) and is not a click: the selection stays.
  double from[3], to[3];
  window.renderer()->GetActiveCamera()->GetPosition(from);
  const QPoint start = window.view()->rect().center();
  QTest::mousePress(window.view(), Qt::LeftButton, Qt::NoModifier, start);
  for (int i = 1; i <= 10; ++i)
    QTest::mouseMove(window.view(), start + QPoint(12 * i, 3 * i));
  QTest::mouseRelease(window.view(), Qt::LeftButton, Qt::NoModifier, start + QPoint(120, 30));
  test::settle(50);
  window.renderer()->GetActiveCamera()->GetPosition(to);
  const double moved = std::hypot(to[0] - from[0], to[1] - from[1], to[2] - from[2]);
  CHECK(moved > 0.1);  // metres: the site is tens of metres across
  CHECK(window.selectedEntities() == before);
}

TEST_CASE("The search field filters the site tree and keeps the parents of matches", "[gui]") {
  test::ensureApplication();
  MainWindow window;
  openShown(window, "scenarios/ring-16-racks.yaml");
  auto* filter = static_cast<QSortFilterProxyModel*>(window.tree()->model());
  auto* model = static_cast<SiteTreeModel*>(filter->sourceModel());
  const racktwin::viz::SiteGeometry& geometry = *window.geometry();
  const QString rack0 = QString::fromStdString(geometry.racks()[0].id);
  const QString rack1 = QString::fromStdString(geometry.racks()[1].id);
  REQUIRE(filter->mapFromSource(model->indexOf(rack0)).isValid());

  window.searchField()->setText(rack1.section('/', -1));  // the rack's own name
  test::settle(50);
  CHECK(filter->mapFromSource(model->indexOf(rack1)).isValid());
  CHECK_FALSE(filter->mapFromSource(model->indexOf(rack0)).isValid());
  // Its row stays visible as the path to it.
  const QModelIndex shown = filter->mapFromSource(model->indexOf(rack1));
  CHECK(shown.parent().isValid());

  window.searchField()->clear();
  test::settle(50);
  CHECK(filter->mapFromSource(model->indexOf(rack0)).isValid());
}

TEST_CASE("racktwin-gui --run --screenshot writes the window and exits 0", "[gui]") {
  // The 3D view's background colour, as the scene sets it.
  test::ensureApplication();
  QRgb view_background = 0;
  {
    MainWindow window;
    REQUIRE(window.openScenario(test::sourcePath("scenarios/nvl72-rack.yaml")));
    view_background = backgroundOf(window);
  }
  const QString png = test::outputPath("scripted.png");
  std::filesystem::remove(png.toStdString());
  QProcess program;
  program.start(RACKTWIN_GUI_PROGRAM, {test::sourcePath("scenarios/nvl72-rack.yaml"), "--run", "20",
                                       "--screenshot", png, "--size", "1000x700"});
  REQUIRE(program.waitForFinished(120000));
  INFO(program.readAllStandardError().toStdString());
  CHECK(program.exitCode() == 0);
  const QImage image(png);
  REQUIRE(!image.isNull());
  CHECK(image.width() == 1000);
  CHECK(image.height() == 700);
  // The 3D view's own pixels made it into the grab: a good share of the window shows the view's
  // background colour (a GL child grabbed black or transparent would show none).
  const ImageStats stats = test::imageStats(image, view_background, 3);
  CHECK(1.0 - stats.foreground > 0.03);

  // Bad input: exit 2 and a message, no window left open.
  QProcess bad;
  bad.start(RACKTWIN_GUI_PROGRAM, {test::sourcePath("scenarios/nvl72-rack.yaml"), "--run", "-5"});
  REQUIRE(bad.waitForFinished(60000));
  CHECK(bad.exitCode() == 2);
  CHECK(bad.readAllStandardError().contains("--run"));
}
