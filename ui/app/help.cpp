#include "help.hpp"

#include <QDialogButtonBox>
#include <QDockWidget>
#include <QEvent>
#include <QFile>
#include <QHBoxLayout>
#include <QLabel>
#include <QMainWindow>
#include <QPushButton>
#include <QTabWidget>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <algorithm>

namespace libra::studio {

QString helpText(const QString& page) {
  QFile file(QStringLiteral(":/help/%1.md").arg(page));
  if (!file.open(QIODevice::ReadOnly)) return {};
  return QString::fromUtf8(file.readAll());
}

HelpDialog::HelpDialog(QWidget* parent) : QDialog(parent) {
  setObjectName(QStringLiteral("helpDialog"));
  setWindowTitle(tr("Libra Studio Help"));
  tabs_ = new QTabWidget;
  const std::pair<QString, QString> pages[] = {{QStringLiteral("gui"), tr("User Guide")},
                                               {QStringLiteral("glossary"), tr("Glossary")}};
  for (const auto& [name, title] : pages) {
    auto* browser = new QTextBrowser;
    browser->setObjectName(name + QStringLiteral("Page"));
    browser->setOpenExternalLinks(true);
    const QString text = helpText(name);
    if (text.isEmpty()) {
      browser->setPlainText(tr("This help page was not built in."));
    } else {
      browser->setMarkdown(text);
    }
    tabs_->addTab(browser, title);
  }
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(tabs_);
  layout->addWidget(buttons);
  resize(760, 620);
}

QTextBrowser* HelpDialog::page(const QString& name) const {
  return findChild<QTextBrowser*>(name + QStringLiteral("Page"));
}

void HelpDialog::showPage(const QString& name) {
  if (QTextBrowser* p = page(name)) tabs_->setCurrentWidget(p);
  show();
  raise();
  activateWindow();
}

std::vector<Tour::Step> Tour::defaultSteps() {
  return {
      {QStringLiteral("networkDock"), tr("Network"),
       tr("The network's dimensions, innermost first: building block, NPUs, cost level and "
          "link latency. Edit a cell and everything re-solves.")},
      {QStringLiteral("budgetDock"), tr("Budget and objective"),
       tr("The total bandwidth per NPU, a cost budget, extra constraints and what to "
          "optimize. Drag a slider: the charts follow live. The Workload and Cost Levels tabs "
          "share this place.")},
      {QStringLiteral("paretoChart"), tr("Iteration time against cost"),
       tr("The Pareto front: the fastest design at each cost. The star is the optimum, the "
          "diamond the best perf per cost, the triangle the equal split. Click a point to see "
          "its design; scroll to zoom.")},
      {QStringLiteral("bandwidthChart"), tr("Bandwidth per dimension"),
       tr("How the optimizer splits the bandwidth, against the equal split.")},
      {QStringLiteral("breakdownChart"), tr("Iteration time breakdown"),
       tr("Compute and the communication each dimension leaves exposed.")},
      {QStringLiteral("sensitivityView"), tr("Sensitivity"),
       tr("What one more unit of each constraint, or one more GB/s on one dimension, is "
          "worth, and which dimensions are the bottleneck.")},
      {QStringLiteral("resultTabs"), tr("Results and Comparison"),
       tr("Comparison lists every scenario of the project side by side. Help > User Guide "
          "and Help > Glossary explain the rest; Help > Tour shows this again.")},
  };
}

Tour::Tour(QWidget* window) : QFrame(window), window_(window), steps_(defaultSteps()) {
  setObjectName(QStringLiteral("tourCard"));
  setFrameShape(QFrame::StyledPanel);
  setAutoFillBackground(true);
  setStyleSheet(QStringLiteral(
      "#tourCard { background: #fffbe6; border: 1px solid #c8a600; border-radius: 6px; }"));
  highlight_ = new QFrame(window);
  highlight_->setObjectName(QStringLiteral("tourHighlight"));
  highlight_->setAttribute(Qt::WA_TransparentForMouseEvents);
  highlight_->setStyleSheet(
      QStringLiteral("#tourHighlight { border: 3px solid #e0a800; border-radius: 4px; }"));
  highlight_->hide();
  title_ = new QLabel;
  title_->setObjectName(QStringLiteral("tourTitle"));
  text_ = new QLabel;
  text_->setObjectName(QStringLiteral("tourText"));
  text_->setWordWrap(true);
  counter_ = new QLabel;
  back_ = new QPushButton(tr("Back"));
  next_ = new QPushButton(tr("Next"));
  next_->setObjectName(QStringLiteral("tourNext"));
  auto* close = new QPushButton(tr("Close"));
  close->setObjectName(QStringLiteral("tourClose"));
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(counter_, 1);
  buttons->addWidget(back_);
  buttons->addWidget(next_);
  buttons->addWidget(close);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(title_);
  layout->addWidget(text_);
  layout->addLayout(buttons);
  setFixedWidth(340);
  connect(back_, &QPushButton::clicked, this, &Tour::back);
  connect(next_, &QPushButton::clicked, this, &Tour::next);
  connect(close, &QPushButton::clicked, this, [this] { show(stepCount()); });
  window_->installEventFilter(this);
  hide();
}

void Tour::start() {
  show(0);
}

void Tour::next() {
  show(step_ + 1);
}

void Tour::back() {
  show(std::max(0, step_ - 1));
}

QWidget* Tour::target() const {
  if (step_ < 0 || step_ >= stepCount()) return nullptr;
  return window_->findChild<QWidget*>(steps_[static_cast<std::size_t>(step_)].objectName);
}

void Tour::show(int step) {
  // Steps whose part is hidden (a closed dock) are skipped.
  const int direction = step >= step_ ? 1 : -1;
  step_ = step;
  while (step_ >= 0 && step_ < stepCount() && (!target() || !target()->isVisible()))
    step_ += direction;
  if (step_ < 0 || step_ >= stepCount()) {
    step_ = -1;
    hide();
    highlight_->hide();
    Q_EMIT finished();
    return;
  }
  if (auto* dock = qobject_cast<QDockWidget*>(target())) dock->raise();
  const Step& s = steps_[static_cast<std::size_t>(step_)];
  title_->setText(QStringLiteral("<b>%1</b>").arg(s.title.toHtmlEscaped()));
  text_->setText(s.text);
  counter_->setText(tr("%1 of %2").arg(step_ + 1).arg(stepCount()));
  back_->setEnabled(step_ > 0);
  next_->setText(step_ + 1 == stepCount() ? tr("Done") : tr("Next"));
  QFrame::show();
  highlight_->show();
  place();
  raise();
  next_->setFocus();
}

void Tour::place() {
  QWidget* part = target();
  if (!part || step_ < 0) return;
  const QRect at(part->mapTo(window_, QPoint(0, 0)), part->size());
  highlight_->setGeometry(at.adjusted(-2, -2, 2, 2) & window_->rect());
  highlight_->raise();
  adjustSize();
  // Beside the part where there is room (right, then left), else over its
  // top-left corner; always inside the window.
  QPoint where(at.right() + 12, at.top());
  if (where.x() + width() > window_->width()) where.setX(at.left() - width() - 12);
  if (where.x() < 0) where = at.topLeft() + QPoint(24, 24);
  where.setX(std::clamp(where.x(), 0, std::max(0, window_->width() - width())));
  where.setY(std::clamp(where.y(), 0, std::max(0, window_->height() - height())));
  move(where);
}

bool Tour::eventFilter(QObject* watched, QEvent* event) {
  if (watched == window_ &&
      (event->type() == QEvent::Resize || event->type() == QEvent::LayoutRequest) && step_ >= 0)
    place();
  return QFrame::eventFilter(watched, event);
}

}  // namespace libra::studio
