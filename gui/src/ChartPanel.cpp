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
      points.append(QPointF(line.t[s], line.y[s]));
      y_min = std::min(y_min, line.y[s]);
      y_max = std::max(y_max, line.y[s]);
    }
    if (n > 0) t_max = std::max(t_max, line.t.back());
    lines_[i]->setName(line.name);
    lines_[i]->replace(points);
  }
  if (!std::isfinite(y_min)) {
    y_min = 0.0;
    y_max = 1.0;
  }
  const double pad = std::max(0.05 * (y_max - y_min), 1e-6 * std::max(1.0, std::abs(y_max)));
  y_min_ = y_min - pad;
  y_max_ = y_max + pad;
  axis_t_->setRange(0.0, t_max);
  axis_y_->setRange(y_min_, y_max_);
  axis_y_->applyNiceNumbers();  // round ticks (45.0, not 45.2086)
  y_min_ = axis_y_->min();
  y_max_ = axis_y_->max();
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
  cursor_->replace(QList<QPointF>{QPointF(cursor_t_, y_min_), QPointF(cursor_t_, y_max_)});
}

}  // namespace racktwin::gui
