// The Design Space tab (issue 25 item 7): the co-design of the project's
// workload (libra codesign) run in the background with progress and cancel;
// every design solved is a point of network cost against time to train, the
// Pareto front highlighted, coloured by dimension count or building blocks and
// filtered by text; a clicked design opens as a scenario with its execution
// and bandwidths (docs/gui.md, "Design space").
#pragma once

#include <QFutureWatcher>
#include <QWidget>
#include <atomic>
#include <memory>
#include <optional>

#include "libra/codesign.hpp"

QT_BEGIN_NAMESPACE
class QChart;
class QCheckBox;
class QChartView;
class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTimer;
QT_END_NAMESPACE

namespace libra::studio {

class Document;

class DesignSpaceView : public QWidget {
  Q_OBJECT

 public:
  explicit DesignSpaceView(Document* document, QWidget* parent = nullptr);
  ~DesignSpaceView() override;  // stops a running search and waits for it

  // Runs the co-design with the form's settings; false (and `error`) when the
  // project cannot be searched or a search is running.
  bool start(QString* error = nullptr);
  void cancel();
  bool running() const;

  // The last finished search (nullptr before the first).
  const CodesignResult* result() const { return result_.get(); }
  // The points drawn (after the filter), as indices into result()->points.
  const std::vector<std::size_t>& shownPoints() const { return shown_; }
  std::size_t frontPointCount() const { return frontCount_; }
  // Emits openDesign for result()->points[k] (what a click on it does).
  bool openPoint(std::size_t k, QString* error = nullptr);
  // Writes the last search by the path's suffix: .csv every design solved
  // (libra::designSpaceCsv), .png/.svg/.pdf the chart as shown. False, with
  // `error`, when there is nothing to write or the file cannot be written.
  bool exportTo(const QString& path, QString* error = nullptr) const;

 Q_SIGNALS:
  void finished();
  // A design to add as a scenario (its project's active scenario) named `name`.
  void openDesign(const QString& name, const libra::Scenario& scenario);

 private:
  void buildForm();
  // buildForm's parts: the search's inputs, buttons and display choices; the
  // chart and the layout; the progress poll and the connections.
  void createInputs();
  void layOut();
  void connectInputs();
  void loadFromProject();
  void showResult();
  void addPointSeries(QChart* chart, bool days, QRectF& range);
  void addFrontSeries(QChart* chart, bool days);
  void addAxes(QChart* chart, bool days, const QRectF& range);
  QString statusText() const;
  void pointClicked(const QPointF& at);
  void chooseExport();
  QString groupOf(const CodesignPoint& p) const;

  Document* document_;
  QLineEdit* npus_;
  QSpinBox* minDims_;
  QSpinBox* maxDims_;
  QComboBox* objective_;
  QLineEdit* constraint_;
  QCheckBox* allPlacements_;
  QCheckBox* exhaustive_;
  QPushButton* run_;
  QPushButton* stop_;
  QPushButton* export_;
  QProgressBar* progress_;
  QLabel* status_;
  QComboBox* colourBy_;
  QLineEdit* filter_;
  QChartView* view_;
  QTimer* poll_;

  std::atomic<bool> cancel_{false};
  std::atomic<long long> done_{0};
  std::atomic<long long> total_{0};
  QFutureWatcher<std::shared_ptr<CodesignResult>> watcher_;
  std::optional<CodesignOptions> options_;  // of the running or last search
  QString error_;                           // of the last search, when it failed
  std::shared_ptr<CodesignResult> result_;
  std::vector<std::size_t> shown_;
  std::size_t frontCount_ = 0;
};

}  // namespace libra::studio
