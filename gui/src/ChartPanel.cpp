#include "ChartPanel.hpp"

#include <QChart>
#include <QChartView>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPen>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace racktwin::gui {

namespace {

/// Round ticks over [min, max]: a step of 1, 2, 2.5 or 5 times a power of ten giving about
/// `wanted` ticks, the range widened to whole steps, and labels with just the decimals the step
/// needs, so no two labels read alike and none needs an exponent.
void setNiceAxis(QValueAxis* axis, double min, double max, int wanted) {
  if (!(max > min)) {
    const double pad = std::max(1e-9, std::abs(min) * 0.05 + 0.5);
    min -= pad;
    max += pad;
  }
  const double raw = (max - min) / std::max(1, wanted - 1);
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  double step = 10.0 * power;
  for (const double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    if (m * power >= raw * (1.0 - 1e-9)) {
      step = m * power;
      break;
    }
  }
  const double lo = std::floor(min / step + 1e-9) * step;
  const double hi = std::ceil(max / step - 1e-9) * step;
  const int ticks = static_cast<int>(std::lround((hi - lo) / step)) + 1;
  int decimals = 0;
  while (decimals < 6
         && std::abs(step * std::pow(10.0, decimals) - std::round(step * std::pow(10.0, decimals)))
                > 1e-6 * step * std::pow(10.0, decimals))
    ++decimals;
  axis->setRange(lo, hi);
  axis->setTickType(QValueAxis::TicksFixed);
  axis->setTickCount(std::max(2, ticks));
  axis->setMinorTickCount(0);
  axis->setLabelFormat(QString("%.%1f").arg(decimals));
}

QStringList tickLabels(const QValueAxis* axis) {
  QStringList labels;
  const int n = axis->tickCount();
  // The formats setNiceAxis gives are "%.<decimals>f".
  const QString format = axis->labelFormat();
  const int decimals = format.mid(2, format.size() - 3).toInt();
  for (int k = 0; k < n; ++k) {
    const double v = axis->min() + (axis->max() - axis->min()) * k / std::max(1, n - 1);
    labels << QString::number(v, 'f', decimals);
  }
  return labels;
}

}  // namespace

ChartPanel::ChartPanel(QWidget* parent) : QWidget(parent) {
  chart_ = new QChart();
  chart_->legend()->setAlignment(Qt::AlignRight);
  chart_->setMargins(QMargins(4, 4, 4, 4));
  axis_t_ = new QValueAxis();
  axis_t_->setTitleText("time (s)");
  axis_t_->setLabelFormat("%g");
  axis_y_ = new QValueAxis();
  axis_y_->setLabelFormat("%g");
  chart_->addAxis(axis_t_, Qt::AlignBottom);
  chart_->addAxis(axis_y_, Qt::AlignLeft);
  cursor_ = new QLineSeries();
  cursor_->setName("now");
  QPen pen(QColor(60, 60, 60));
  pen.setStyle(Qt::DashLine);
  pen.setWidthF(1.0);
  cursor_->setPen(pen);
  chart_->addSeries(cursor_);
  cursor_->attachAxis(axis_t_);
  cursor_->attachAxis(axis_y_);
  chart_->legend()->markers(cursor_).front()->setVisible(false);

  view_ = new QChartView(chart_, this);
  view_->setRenderHint(QPainter::Antialiasing);
  view_->setMinimumHeight(160);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(view_);
  chart_->setTitle("Select racks, CDUs or chips in the tree to chart them");
}

void ChartPanel::setLines(const std::vector<ChartLine>& lines, const QString& title,
                          const QString& unit) {
  // Reuse the series objects when their count stays (the usual live update).
  while (lines_.size() > lines.size()) {
    chart_->removeSeries(lines_.back());
    delete lines_.back();
    lines_.pop_back();
  }
  while (lines_.size() < lines.size()) {
    auto* series = new QLineSeries();
    chart_->addSeries(series);
    series->attachAxis(axis_t_);
    series->attachAxis(axis_y_);
    lines_.push_back(series);
  }
  // Time in s, min or h by the run's length: ticks stay round and few.
  double t_end = 1.0;
  for (const ChartLine& line : lines)
    if (!line.t.empty()) t_end = std::max(t_end, line.t.back());
  t_scale_ = t_end > 4.0 * 3600.0 ? 1.0 / 3600.0 : t_end > 1200.0 ? 1.0 / 60.0 : 1.0;
  double t_max = 1.0, y_min = INFINITY, y_max = -INFINITY;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const ChartLine& line = lines[i];
    const std::size_t n = line.t.size();
    const std::size_t every = std::max<std::size_t>(1, n / 2000);
    QList<QPointF> points;
    points.reserve(static_cast<qsizetype>(n / every + 2));
    for (std::size_t s = 0; s < n; ++s) {
      if (s % every != 0 && s + 1 != n) continue;
      if (!std::isfinite(line.y[s])) continue;
      points.append(QPointF(line.t[s] * t_scale_, line.y[s]));
      y_min = std::min(y_min, line.y[s]);
      y_max = std::max(y_max, line.y[s]);
    }
    if (n > 0) t_max = std::max(t_max, line.t.back() * t_scale_);
    lines_[i]->setName(line.name);
    lines_[i]->replace(points);
  }
  if (!std::isfinite(y_min)) {
    y_min = 0.0;
    y_max = 1.0;
  }
  const double pad = std::max(0.05 * (y_max - y_min), 1e-6 * std::max(1.0, std::abs(y_max)));
  // As many ticks as fit without eliding their labels: about one per 90 px of width, 40 px of
  // height.
  const int width = std::max(view_->width(), 320), height = std::max(view_->height(), 160);
  setNiceAxis(axis_t_, 0.0, t_max, std::clamp(width / 90, 3, 11));
  setNiceAxis(axis_y_, y_min - pad, y_max + pad, std::clamp(height / 40, 3, 8));
  y_min_ = axis_y_->min();
  y_max_ = axis_y_->max();
  axis_t_->setTitleText(t_scale_ == 1.0         ? "time (s)"
                        : t_scale_ < 1.0 / 60.0 ? "time (h)"
                                                : "time (min)");
  axis_y_->setTitleText(unit);
  chart_->setTitle(lines.empty() ? QString("Select racks, CDUs or chips in the tree to chart them")
                                 : title);
  updateCursor();
}

void ChartPanel::setCursor(double t) {
  cursor_t_ = t;
  updateCursor();
}

void ChartPanel::updateCursor() {
  const double t = cursor_t_ * t_scale_;
  cursor_->replace(QList<QPointF>{QPointF(t, y_min_), QPointF(t, y_max_)});
}

QString ChartPanel::valueAxisTitle() const {
  return axis_y_->titleText();
}
QString ChartPanel::timeAxisTitle() const {
  return axis_t_->titleText();
}
QStringList ChartPanel::valueTickLabels() const {
  return tickLabels(axis_y_);
}
QStringList ChartPanel::timeTickLabels() const {
  return tickLabels(axis_t_);
}

}  // namespace racktwin::gui
