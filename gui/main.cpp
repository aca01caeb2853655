// racktwin-gui: the desktop program. `racktwin-gui [SCENARIO.yaml | RESULT.h5]` opens a window;
// `--run SECONDS --screenshot FILE.png` runs (or, for a result, moves to) that simulated time,
// writes the whole window as a PNG and exits, for demos and tests.
#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QTimer>

#include <cstdio>

#include "MainWindow.hpp"
#include "racktwin/core/Version.hpp"
#include "racktwin/viz/Quantity.hpp"

namespace {

// Lets the window show and paint before a scripted step runs.
void settle(int ms) {
  QElapsedTimer clock;
  clock.start();
  while (clock.elapsed() < ms)
    QApplication::processEvents(QEventLoop::AllEvents, 20);
}

}  // namespace

int main(int argc, char** argv) {
  racktwin::gui::setDefaultSurfaceFormat();  // before QApplication: VTK needs GL 3.2 core
  QApplication app(argc, argv);
  QApplication::setApplicationName("racktwin-gui");
  QApplication::setApplicationVersion(
      QString::fromStdString(std::string(racktwin::core::programVersion())));

  QCommandLineParser parser;
  parser.setApplicationDescription(
      "RackTwin desktop: the site in 3D, live what-if runs and result replay.");
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument("file", "A scenario (.yaml) to run live, or a result (.h5).",
                               "[SCENARIO.yaml | RESULT.h5]");
  const QCommandLineOption run_option(
      "run", "Run the scenario to SECONDS of simulated time (a result: show that time).",
      "SECONDS");
  const QCommandLineOption screenshot_option(
      "screenshot", "After --run, write the whole window to FILE.png and exit.", "FILE.png");
  const QCommandLineOption quantity_option(
      "quantity",
      QString::fromStdString("Colour the 3D view by: " + racktwin::viz::quantityKeys() + "."),
      "KEY", "gpu-temperature");
  const QCommandLineOption size_option("size", "Window size WIDTHxHEIGHT.", "WxH", "1280x800");
  parser.addOptions({run_option, screenshot_option, quantity_option, size_option});
  parser.process(app);

  const QStringList files = parser.positionalArguments();
  const bool scripted = parser.isSet(run_option);
  if (files.size() > 1) {
    std::fprintf(stderr, "racktwin-gui: give one scenario or result file, not %lld\n",
                 static_cast<long long>(files.size()));
    return 2;
  }
  if (parser.isSet(screenshot_option) && !scripted) {
    std::fprintf(stderr, "racktwin-gui: --screenshot needs --run SECONDS\n");
    return 2;
  }
  double run_seconds = 0.0;
  if (scripted) {
    bool ok = false;
    run_seconds = parser.value(run_option).toDouble(&ok);
    if (!ok || !(run_seconds >= 0.0)) {
      std::fprintf(stderr, "racktwin-gui: --run expects a number of seconds >= 0, got '%s'\n",
                   qPrintable(parser.value(run_option)));
      return 2;
    }
    if (files.isEmpty()) {
      std::fprintf(stderr, "racktwin-gui: --run needs a scenario or result file\n");
      return 2;
    }
  }
  racktwin::viz::Quantity quantity{};
  try {
    quantity = racktwin::viz::parseQuantity(parser.value(quantity_option).toStdString());
  } catch (const std::exception& error) {
    std::fprintf(stderr, "racktwin-gui: --quantity: %s\n", error.what());
    return 2;
  }
  const QStringList size = parser.value(size_option).split('x');
  const int width = size.size() == 2 ? size[0].toInt() : 0;
  const int height = size.size() == 2 ? size[1].toInt() : 0;
  if (width < 320 || height < 240) {
    std::fprintf(stderr, "racktwin-gui: --size expects WIDTHxHEIGHT of at least 320x240\n");
    return 2;
  }

  racktwin::gui::MainWindow window;
  window.resize(width, height);
  window.setQuantity(quantity);
  if (!files.isEmpty()) {
    QString error;
    if (!window.openFile(files.front(), &error)) {
      std::fprintf(stderr, "racktwin-gui: %s\n", qPrintable(error));
      if (scripted) return 2;
    }
  }
  window.show();
  if (!scripted) return QApplication::exec();

  settle(300);
  if (!window.runTo(run_seconds)) {
    std::fprintf(stderr, "racktwin-gui: the run did not reach t = %g s\n", run_seconds);
    return 1;
  }
  settle(200);
  if (parser.isSet(screenshot_option)) {
    const QString path = parser.value(screenshot_option);
    if (!window.grabWindow().save(path, "PNG")) {
      std::fprintf(stderr, "racktwin-gui: cannot write %s\n", qPrintable(path));
      return 1;
    }
    std::printf("racktwin-gui: t = %g s, screenshot %s\n", window.viewTime(), qPrintable(path));
  }
  return 0;
}
