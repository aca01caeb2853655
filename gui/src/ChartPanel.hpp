#pragma once
// Time series of the selected entities (Qt Charts), with a vertical cursor at the timeline's time.
#include <QString>
#include <QStringList>
#include <QWidget>

#include <vector>

class QChart;
class QChartView;
class QLineSeries;
class QValueAxis;

namespace racktwin::gui {

struct ChartLine {
  QString name;
  std::vector<double> t;  // s
  std::vector<double> y;  // display unit; NaN samples are left out
};

class ChartPanel : public QWidget {
  Q_OBJECT
 public:
  explicit ChartPanel(QWidget* parent = nullptr);

  /// Replaces the lines (at most a few thousand points each are drawn; longer series are thinned
  /// to every k-th sample, keeping the last).
  void setLines(const std::vector<ChartLine>& lines, const QString& title, const QString& unit);
  /// Moves the cursor to time t (s).
  void setCursor(double t);
  int lineCount() const noexcept { return static_cast<int>(lines_.size()); }
  double cursor() const noexcept { return cursor_t_; }
  /// The axes as drawn, for tests: titles and the text of every tick label.
  QString valueAxisTitle() const;
  QString timeAxisTitle() const;
  QStringList valueTickLabels() const;
  QStringList timeTickLabels() const;

 private:
  void updateCursor();

  QChart* chart_;
  QChartView* view_;
  QValueAxis* axis_t_;
  QValueAxis* axis_y_;
  QLineSeries* cursor_;
  std::vector<QLineSeries*> lines_;
  double cursor_t_ = 0.0;  // s
  double t_scale_ = 1.0;   // shown time = s * t_scale_ (s, min or h by the run's length)
  double y_min_ = 0.0, y_max_ = 1.0;
};

}  // namespace racktwin::gui
