#include "GuiTestApp.hpp"

#include <QApplication>
#include <QElapsedTimer>

#include <cstdlib>

#include "MainWindow.hpp"

namespace racktwin::gui::test {

void ensureApplication() {
  static int argc = 1;
  static char name[] = "test_gui";
  static char* argv[] = {name, nullptr};
  static QApplication* application = [] {
    setDefaultSurfaceFormat();
    return new QApplication(argc, argv);
  }();
  (void)application;
}

void settle(int ms) {
  QElapsedTimer clock;
  clock.start();
  while (clock.elapsed() < ms)
    QApplication::processEvents(QEventLoop::AllEvents, 10);
}

QString sourcePath(const char* relative) {
  return QString(RACKTWIN_SOURCE_DIR) + "/" + relative;
}

QString outputPath(const char* name) {
  return QString(RACKTWIN_GUI_OUTPUT_DIR) + "/" + name;
}

ImageStats imageStats(const QImage& input, QRgb background, int threshold) {
  const QImage image = input.convertToFormat(QImage::Format_RGB32);
  ImageStats stats;
  double sum[3] = {0.0, 0.0, 0.0};
  long long differing = 0;
  const long long pixels = static_cast<long long>(image.width()) * image.height();
  for (int y = 0; y < image.height(); ++y) {
    const auto* line = reinterpret_cast<const QRgb*>(image.constScanLine(y));
    for (int x = 0; x < image.width(); ++x) {
      const QRgb p = line[x];
      sum[0] += qRed(p);
      sum[1] += qGreen(p);
      sum[2] += qBlue(p);
      if (std::abs(qRed(p) - qRed(background)) > threshold
          || std::abs(qGreen(p) - qGreen(background)) > threshold
          || std::abs(qBlue(p) - qBlue(background)) > threshold)
        ++differing;
    }
  }
  for (int c = 0; c < 3; ++c)
    stats.mean[c] = pixels > 0 ? sum[c] / static_cast<double>(pixels) : 0.0;
  stats.foreground =
      pixels > 0 ? static_cast<double>(differing) / static_cast<double>(pixels) : 0.0;
  return stats;
}

}  // namespace racktwin::gui::test
