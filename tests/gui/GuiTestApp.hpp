#pragma once
// Shared by the GUI tests: one QApplication per test process (created on first use, after the
// OpenGL format VTK needs), image statistics, and paths.
#include <QImage>
#include <QString>

namespace racktwin::gui::test {

/// The application; call before creating any widget.
void ensureApplication();
/// Processes events for `ms` milliseconds (layouts, paints).
void settle(int ms);

QString sourcePath(const char* relative);  // under the source tree
QString outputPath(const char* name);      // under the test build directory

struct ImageStats {
  double mean[3] = {0.0, 0.0, 0.0};  // mean R, G, B over the image, 0..255
  double foreground = 0.0;           // fraction of pixels that differ from the background
};
/// `background`: the renderer's clear colour; a pixel differs when a channel is off by more
/// than `threshold`.
ImageStats imageStats(const QImage& image, QRgb background, int threshold = 12);

}  // namespace racktwin::gui::test
