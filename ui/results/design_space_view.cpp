#include "design_space_view.hpp"

#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegendMarker>
#include <QLineEdit>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QMessageBox>
#include <QPainter>
#include <QProgressBar>
#include <QPushButton>
#include <QScatterSeries>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <thread>

#include "charts.hpp"
#include "document.hpp"
#include "figure.hpp"
#include "format.hpp"
#include "libra/error.hpp"

namespace libra::studio {

namespace {

constexpr std::size_t kMaxPoints = 50000;  // solved designs kept for the plot
constexpr double kSecondsPerDay = 86400.0;

// A point's place on the chart: network cost ($M) and time to train (days), or
// the iteration time (s) when the workload has no token budget.
QPointF placeOf(const CodesignPoint& p, bool days) {
  const double y = days ? p.timeToTrainS / kSecondsPerDay : p.iterationNs * 1e-9;
  return {p.costUsd * 1e-6, y};
}

// Whether the points can be placed by time to train (else by iteration time).
bool byTimeToTrain(const CodesignResult& r) {
  return std::any_of(r.points.begin(), r.points.end(), [](const CodesignPoint& p) {
    return std::isfinite(p.timeToTrainS) && p.timeToTrainS > 0;
  });
}

// Whether a point can be drawn on the log-log axes (no NaN, nothing at or below 0).
bool drawable(const QPointF& at) {
  return at.x() > 0 && at.y() > 0 && std::isfinite(at.x()) && std::isfinite(at.y());
}

}  // namespace

DesignSpaceView::DesignSpaceView(Document* document, QWidget* parent)
    : QWidget(parent), document_(document) {
  setObjectName(QStringLiteral("designSpaceView"));
  buildForm();
  loadFromProject();
  connect(&watcher_, &QFutureWatcher<std::shared_ptr<CodesignResult>>::finished, this, [this] {
    poll_->stop();
    result_ = watcher_.result();
    run_->setEnabled(true);
    stop_->setEnabled(false);
    export_->setEnabled(result_ != nullptr);
    progress_->setValue(progress_->maximum());
    showResult();
    Q_EMIT finished();
  });
  connect(document_, &Document::projectChanged, this, [this] {
    if (!running()) loadFromProject();
  });
}

DesignSpaceView::~DesignSpaceView() {
  cancel_ = true;
  watcher_.waitForFinished();
}

void DesignSpaceView::buildForm() {
  createInputs();
  layOut();
  connectInputs();
}

void DesignSpaceView::createInputs() {
  npus_ = new QLineEdit;
  npus_->setObjectName(QStringLiteral("designNpus"));
  npus_->setToolTip(
      tr("NPU counts to size the system for, separated by commas (4096 or "
         "1024, 2048, 4096)"));
  minDims_ = new QSpinBox;
  minDims_->setObjectName(QStringLiteral("designMinDims"));
  maxDims_ = new QSpinBox;
  maxDims_->setObjectName(QStringLiteral("designMaxDims"));
  for (QSpinBox* s : {minDims_, maxDims_}) {
    s->setRange(1, 4);
    s->setKeyboardTracking(false);
  }
  minDims_->setValue(2);
  maxDims_->setValue(3);
  objective_ = new QComboBox;
  objective_->setObjectName(QStringLiteral("designObjective"));
  objective_->addItem(tr("Least time to train"), static_cast<int>(Objective::Performance));
  objective_->addItem(tr("Best perf per cost"), static_cast<int>(Objective::PerfPerCost));
  constraint_ = new QLineEdit;
  constraint_->setObjectName(QStringLiteral("designConstraint"));
  constraint_->setToolTip(
      tr("The bandwidth budget of every shape, as a constraint on the total GB/s per NPU "
         "(the other constraints of the project name its own dimensions)"));
  allPlacements_ = new QCheckBox(tr("Every placement"));
  allPlacements_->setObjectName(QStringLiteral("designAllPlacements"));
  allPlacements_->setToolTip(
      tr("Try every way of laying the parallel groups onto the dimensions, not only the "
         "automatic mapping (slower)"));
  exhaustive_ = new QCheckBox(tr("No pruning"));
  exhaustive_->setToolTip(
      tr("Solve every design instead of skipping those that provably cannot be among the best: "
         "the whole cloud and front (much slower)"));
  run_ = new QPushButton(tr("Run"));
  run_->setObjectName(QStringLiteral("designRun"));
  stop_ = new QPushButton(tr("Cancel"));
  stop_->setObjectName(QStringLiteral("designCancel"));
  stop_->setEnabled(false);
  export_ = new QPushButton(tr("Export…"));
  export_->setObjectName(QStringLiteral("designExport"));
  export_->setToolTip(tr("Write every design solved as CSV, or the chart as PNG, SVG or PDF"));
  export_->setEnabled(false);
  progress_ = new QProgressBar;
  progress_->setObjectName(QStringLiteral("designProgress"));
  progress_->setFormat(tr("%v of %m shapes"));
  progress_->setValue(0);
  status_ = new QLabel;
  status_->setObjectName(QStringLiteral("designStatus"));
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  colourBy_ = new QComboBox;
  colourBy_->setObjectName(QStringLiteral("designColourBy"));
  colourBy_->addItem(tr("Dimension count"));
  colourBy_->addItem(tr("Building blocks"));
  filter_ = new QLineEdit;
  filter_->setObjectName(QStringLiteral("designFilter"));
  filter_->setPlaceholderText(tr("Filter: Switch, TP 8, ZeRO-1 …"));
  filter_->setClearButtonEnabled(true);
  filter_->setToolTip(tr("Show only the designs whose shape or execution contains this text"));
}

void DesignSpaceView::layOut() {
  auto* chart = new QChart;
  chart->setTitle(tr("Design space"));
  view_ = new QChartView(chart);
  view_->setObjectName(QStringLiteral("designChart"));
  view_->setRenderHint(QPainter::Antialiasing);
  view_->setMinimumHeight(240);

  auto* form = new QFormLayout;
  auto* dims = new QHBoxLayout;
  dims->addWidget(minDims_);
  dims->addWidget(new QLabel(tr("to")));
  dims->addWidget(maxDims_);
  dims->addStretch();
  form->addRow(tr("NPUs"), npus_);
  form->addRow(tr("Dimensions"), dims);
  form->addRow(tr("Objective"), objective_);
  form->addRow(tr("Bandwidth budget"), constraint_);
  auto* checks = new QHBoxLayout;
  checks->addWidget(allPlacements_);
  checks->addWidget(exhaustive_);
  checks->addStretch();
  form->addRow(QString(), checks);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(run_);
  buttons->addWidget(stop_);
  buttons->addWidget(progress_, 1);
  buttons->addWidget(export_);
  auto* show = new QHBoxLayout;
  show->addWidget(new QLabel(tr("Colour by")));
  show->addWidget(colourBy_);
  show->addWidget(filter_, 1);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addLayout(buttons);
  layout->addWidget(status_);
  layout->addLayout(show);
  layout->addWidget(view_, 1);
}

void DesignSpaceView::connectInputs() {
  poll_ = new QTimer(this);
  poll_->setInterval(100);
  connect(poll_, &QTimer::timeout, this, [this] {
    progress_->setMaximum(static_cast<int>(std::max<long long>(total_.load(), 1)));
    progress_->setValue(static_cast<int>(done_.load()));
  });
  connect(run_, &QPushButton::clicked, this, [this] {
    QString why;
    if (!start(&why)) status_->setText(why);
  });
  connect(stop_, &QPushButton::clicked, this, &DesignSpaceView::cancel);
  connect(export_, &QPushButton::clicked, this, &DesignSpaceView::chooseExport);
  connect(colourBy_, &QComboBox::currentIndexChanged, this, &DesignSpaceView::showResult);
  connect(filter_, &QLineEdit::textChanged, this, &DesignSpaceView::showResult);
}

void DesignSpaceView::loadFromProject() {
  const Project& project = document_->project();
  npus_->setText(QString::number(project.network.npuCount()));
  maxDims_->setValue(std::clamp(project.network.size(), 2, 3));
  objective_->setCurrentIndex(project.objective == Objective::PerfPerCost ? 1 : 0);
  QString budget = QStringLiteral("total == 500");
  for (const std::string& c : project.constraints) {
    if (c.rfind("total", 0) == 0) budget = toQString(c);
  }
  constraint_->setText(budget);
}

bool DesignSpaceView::running() const {
  return watcher_.isRunning();
}

void DesignSpaceView::cancel() {
  cancel_ = true;
  if (running()) status_->setText(tr("Stopping: the designs found so far will be shown…"));
}

bool DesignSpaceView::start(QString* error) {
  auto fail = [&](const QString& why) {
    if (error) *error = why;
    return false;
  };
  if (running()) return fail(tr("A search is running; cancel it first."));
  CodesignOptions o;
  try {
    o = codesignOptionsOf(document_->project());
  } catch (const std::exception& e) {
    return fail(sentence(e.what()));
  }
  o.npus.clear();
  for (const QString& part : npus_->text().split(QLatin1Char(','), Qt::SkipEmptyParts)) {
    bool ok = false;
    const long long n = part.trimmed().toLongLong(&ok);
    if (!ok || n < 1 || n > (1LL << 40)) {
      return fail(
          tr("NPUs: '%1' is not a whole number of NPUs of at least 1.").arg(part.trimmed()));
    }
    o.npus.push_back(n);
  }
  if (o.npus.empty()) return fail(tr("NPUs: give at least one NPU count."));
  if (minDims_->value() > maxDims_->value()) {
    return fail(tr("Dimensions: %1 to %2 is an empty range.")
                    .arg(minDims_->value())
                    .arg(maxDims_->value()));
  }
  o.shapes.minDims = minDims_->value();
  o.shapes.maxDims = maxDims_->value();
  o.objective = static_cast<Objective>(objective_->currentData().toInt());
  o.shapes.constraints = {toStd(constraint_->text().trimmed())};
  o.choices.searchPlacements = allPlacements_->isChecked();
  o.prune = !exhaustive_->isChecked();
  o.keepPoints = kMaxPoints;
  // One core stays with the window.
  o.shapes.jobs = static_cast<int>(std::max(2u, std::thread::hardware_concurrency()) - 1);
  o.top = 10;
  options_ = o;
  cancel_ = false;
  done_ = 0;
  total_ = 0;
  run_->setEnabled(false);
  stop_->setEnabled(true);
  export_->setEnabled(false);
  progress_->setValue(0);
  status_->setText(tr("Searching…"));
  poll_->start();
  watcher_.setFuture(QtConcurrent::run([this, o] {
    auto out = std::make_shared<CodesignResult>();
    try {
      *out = runCodesign(
          o,
          [this](std::int64_t done, std::int64_t total) {
            done_ = done;
            total_ = total;
          },
          &cancel_);
    } catch (const std::exception& e) {
      out->firstFailure = e.what();
      out->cancelled = true;
      out->shapes = -1;  // failed before searching
    }
    return out;
  }));
  return true;
}

QString DesignSpaceView::groupOf(const CodesignPoint& p) const {
  if (colourBy_->currentIndex() == 0) {
    const auto dims = static_cast<int>(p.network.dims.size());
    return dims == 1 ? tr("1 dimension") : tr("%1 dimensions").arg(dims);
  }
  QStringList blocks;
  for (const Dimension& d : p.network.dims) blocks << toQString(std::string(toString(d.block)));
  return blocks.join(QStringLiteral(" x "));
}

void DesignSpaceView::showResult() {
  QChart* chart = view_->chart();
  chart->removeAllSeries();
  for (QAbstractAxis* axis : chart->axes()) {
    chart->removeAxis(axis);
    delete axis;
  }
  shown_.clear();
  frontCount_ = 0;
  if (!result_) return;
  const CodesignResult& r = *result_;
  if (r.shapes < 0) {
    status_->setText(tr("The search could not start: %1").arg(sentence(r.firstFailure)));
    return;
  }
  const bool days = byTimeToTrain(r);
  QRectF range;
  addPointSeries(chart, days, range);
  addFrontSeries(chart, days);
  addAxes(chart, days, range);
  status_->setText(statusText());
}

// The points the filter keeps, one series per group; `range` their extent.
void DesignSpaceView::addPointSeries(QChart* chart, bool days, QRectF& range) {
  const CodesignResult& r = *result_;
  const QString needle = filter_->text().trimmed();
  std::map<QString, QScatterSeries*> groups;
  double xmin = std::numeric_limits<double>::infinity(), xmax = 0, ymin = xmin, ymax = 0;
  for (std::size_t k = 0; k < r.points.size(); ++k) {
    const CodesignPoint& p = r.points[k];
    const QString text = toQString(p.label + ", " + p.execution.label());
    if (!needle.isEmpty() && !text.contains(needle, Qt::CaseInsensitive)) continue;
    const QPointF at = placeOf(p, days);
    if (!drawable(at)) continue;
    const QString group = groupOf(p);
    QScatterSeries*& series = groups[group];
    if (!series) {
      series = new QScatterSeries;
      series->setName(group);
      series->setMarkerSize(6);
      series->setColor(scenarioColor(static_cast<int>(groups.size()) - 1));
      series->setBorderColor(Qt::transparent);
    }
    series->append(at);
    shown_.push_back(k);
    xmin = std::min(xmin, at.x());
    xmax = std::max(xmax, at.x());
    ymin = std::min(ymin, at.y());
    ymax = std::max(ymax, at.y());
  }
  for (auto& [name, series] : groups) {
    chart->addSeries(series);
    connect(series, &QScatterSeries::clicked, this, &DesignSpaceView::pointClicked);
  }
  if (!shown_.empty()) range = QRectF(QPointF(xmin, ymin), QPointF(xmax, ymax));
}

// The front's designs (result().pareto), a line and larger marks on top.
void DesignSpaceView::addFrontSeries(QChart* chart, bool days) {
  const CodesignResult& r = *result_;
  auto* front = new QLineSeries;
  front->setName(tr("Pareto front"));
  QPen pen(activeFrontColor());
  pen.setWidthF(2);
  front->setPen(pen);
  auto* marks = new QScatterSeries;
  marks->setName(tr("Pareto designs"));
  marks->setMarkerSize(11);
  marks->setColor(activeFrontColor());
  for (int k : r.pareto) {
    const CodesignDesign& d = r.designs[static_cast<std::size_t>(k)];
    const auto it = std::find_if(r.points.begin(), r.points.end(),
                                 [&](const CodesignPoint& p) { return sameTimeAndCost(p, d); });
    if (it == r.points.end()) continue;
    const QPointF at = placeOf(*it, days);
    if (!drawable(at)) continue;
    front->append(at);
    marks->append(at);
    ++frontCount_;
  }
  chart->addSeries(front);
  chart->addSeries(marks);
  for (QLegendMarker* m : chart->legend()->markers(marks)) m->setVisible(false);
  connect(marks, &QScatterSeries::clicked, this, &DesignSpaceView::pointClicked);
}

void DesignSpaceView::addAxes(QChart* chart, bool days, const QRectF& range) {
  auto* x = new QLogValueAxis;
  x->setTitleText(options_ && options_->shapes.costScope == CostScope::System
                      ? tr("system cost ($ M)")
                      : tr("network cost ($ M)"));
  auto* y = new QLogValueAxis;
  y->setTitleText(days ? tr("time to train (days)") : tr("iteration time (s)"));
  // Base 2: a label at every doubling (a cloud rarely spans a decade).
  for (QLogValueAxis* axis : {x, y}) {
    axis->setBase(2);
    axis->setLabelFormat(QStringLiteral("%.3g"));
    axis->setMinorTickCount(1);
  }
  if (!range.isNull()) {
    x->setRange(range.left() / 1.1, range.right() * 1.1);
    y->setRange(range.top() / 1.1, range.bottom() * 1.1);
  }
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  for (QAbstractSeries* s : chart->series()) {
    s->attachAxis(x);
    s->attachAxis(y);
  }
}

QString DesignSpaceView::statusText() const {
  const CodesignResult& r = *result_;
  QString text =
      tr("%1 designs solved, %2 pruned by their bounds, %3 of %4 shapes searched in %5 s; "
         "%6 shown, %7 on the Pareto front. Click a design to open it as a scenario.")
          .arg(formatCount(static_cast<double>(r.evaluated)))
          .arg(formatCount(static_cast<double>(r.pruned)))
          .arg(formatCount(static_cast<double>(r.shapesSearched)))
          .arg(formatCount(static_cast<double>(r.shapes)))
          .arg(r.wallSeconds, 0, 'f', 1)
          .arg(formatCount(static_cast<double>(shown_.size())))
          .arg(frontCount_);
  if (r.cancelled) text.prepend(tr("Cancelled: the designs found so far are not proven best. "));
  if (r.pointsLeftOut > 0) {
    text += tr(" The first %1 designs solved are drawn; %2 more are left out.")
                .arg(formatCount(static_cast<double>(r.points.size())))
                .arg(formatCount(static_cast<double>(r.pointsLeftOut)));
  }
  if (r.designs.empty()) {
    text += QLatin1Char(' ') +
            (r.leastMemory ? tr("No execution fits the device's memory: the least needs %1.")
                                 .arg(toQString(r.leastMemory->describe()))
                           : tr("No design could be solved: %1")
                                 .arg(sentence(r.firstFailure.empty() ? std::string("no shape fits")
                                                                      : r.firstFailure)));
  }
  return text;
}

void DesignSpaceView::pointClicked(const QPointF& at) {
  if (!result_) return;
  const bool days = byTimeToTrain(*result_);
  // The nearest shown design, in the chart's log-log space.
  std::size_t best = result_->points.size();
  double nearest = std::numeric_limits<double>::infinity();
  for (std::size_t k : shown_) {
    const QPointF p = placeOf(result_->points[k], days);
    const double dx = std::log(p.x() / at.x()), dy = std::log(p.y() / at.y());
    if (dx * dx + dy * dy < nearest) {
      nearest = dx * dx + dy * dy;
      best = k;
    }
  }
  QString why;
  if (best < result_->points.size() && !openPoint(best, &why)) status_->setText(why);
}

bool DesignSpaceView::openPoint(std::size_t k, QString* error) {
  if (!result_ || !options_ || k >= result_->points.size()) {
    if (error) *error = tr("There is no such design.");
    return false;
  }
  const CodesignPoint& p = result_->points[k];
  Project project;
  try {
    project = designProject(*options_, p.network, p.execution);
  } catch (const std::exception& e) {
    if (error) *error = sentence(e.what());
    return false;
  }
  Q_EMIT openDesign(toQString(p.label + ", " + p.execution.label()),
                    static_cast<const Scenario&>(project));
  return true;
}

bool DesignSpaceView::exportTo(const QString& path, QString* error) const {
  if (!result_ || running()) {
    if (error) *error = tr("Run a search first: there is no design space to write.");
    return false;
  }
  if (QFileInfo(path).suffix().toLower() == QStringLiteral("csv")) {
    return writeFileAtomic(path, QByteArray::fromStdString(designSpaceCsv(*result_)), error);
  }
  const auto format = figureFormatFor(path);
  if (!format) {
    if (error) *error = tr("%1: use .csv, .png, .svg or .pdf").arg(path);
    return false;
  }
  const FigurePage page{view_->size(), tr("Design space"), QString(), logicalDpiY()};
  // The widget as shown (QGraphicsView::render would draw the scene into the
  // painter's device rectangle, which a high-DPI image scales twice).
  return writeFigure(
      path, *format, page, [&](QPainter& painter) { view_->QWidget::render(&painter); }, error);
}

void DesignSpaceView::chooseExport() {
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Export Design Space"), QStringLiteral("design-space.csv"),
      tr("Designs (*.csv);;PNG image (*.png);;SVG image (*.svg);;PDF document (*.pdf)"));
  if (path.isEmpty()) return;
  QString error;
  if (!exportTo(path, &error)) QMessageBox::warning(this, tr("Export Failed"), error);
}

}  // namespace libra::studio
