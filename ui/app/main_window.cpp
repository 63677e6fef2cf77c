#include "main_window.hpp"

#include <QAbstractSpinBox>
#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QKeyEvent>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <QUndoView>

#include "autosave.hpp"
#include "budget_panel.hpp"
#include "chart_controller.hpp"
#include "comparison_view.hpp"
#include "cost_level_model.hpp"
#include "design_space_view.hpp"
#include "document.hpp"
#include "explorer_controller.hpp"
#include "export_controller.hpp"
#include "file_controller.hpp"
#include "help.hpp"
#include "network_panel.hpp"
#include "results_view.hpp"
#include "scenario_panel.hpp"
#include "scenario_results.hpp"
#include "workload_panel.hpp"

namespace libra::studio {

namespace {

// Room left above the window for its title bar on a screen it is sized to.
constexpr int kTitleBarAllowance = 40;

// A panel taller than a laptop's column scrolls inside its dock instead of
// raising the window's minimum height.
QWidget* scrolling(QWidget* panel) {
  auto* scroll = new QScrollArea;
  scroll->setObjectName(panel->objectName() + QStringLiteral("Scroll"));
  scroll->setWidget(panel);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  return scroll;
}

QDockWidget* dock(QMainWindow* window, const QString& title, const QString& name, QWidget* content,
                  Qt::DockWidgetArea area) {
  auto* d = new QDockWidget(title, window);
  d->setObjectName(name);
  d->setWidget(content);
  window->addDockWidget(area, d);
  return d;
}

}  // namespace

MainWindow::MainWindow(QWidget* parent, bool restoreWindowState) : QMainWindow(parent) {
  setObjectName(QStringLiteral("mainWindow"));
  setAcceptDrops(true);
  QApplication::instance()->installEventFilter(this);  // see eventFilter: Undo in spin boxes
  document_ = new Document({}, this);
  results_ = new ResultsView;
  network_ = new NetworkPanel(document_);
  workload_ = new WorkloadPanel(document_);
  budget_ = new BudgetPanel(document_);
  explorer_ = new ExplorerController(document_, results_, this);
  files_ = new FileController(document_, this);
  charts_ = new ChartController(document_, results_, this);
  scenarioResults_ = new ScenarioResults(document_, explorer_->solver(), this);
  exports_ = new ExportController(document_, results_, scenarioResults_, this);
  scenarios_ = new ScenarioController(document_, scenarioResults_, results_->paretoChart(), this);
  scenarioPanel_ = new ScenarioPanel(document_, scenarioResults_, scenarios_);
  comparison_ = new ComparisonView(document_, scenarioResults_);
  createTabs();
  const QList<QDockWidget*> docks = createDocks();
  createStatusBar();
  createMenus();
  QMenu* view = menuBar()->addMenu(tr("&View"));
  for (QDockWidget* d : docks) view->addAction(d->toggleViewAction());
  createHelpMenu();

  // 1500x940 where the screen has room, else the screen's free area less a
  // title bar (a 1366x768 laptop).
  QSize size(1500, 940);
  if (const QScreen* s = screen())
    size = size.boundedTo(s->availableGeometry().size() - QSize(0, kTitleBarAllowance));
  resize(size.expandedTo(minimumSizeHint()));
  if (restoreWindowState) {
    QSettings settings;
    // The first start shows the tour once (Help > Tour of the Window again).
    if (!settings.value(QStringLiteral("help/tourShown")).toBool()) {
      settings.setValue(QStringLiteral("help/tourShown"), true);
      QTimer::singleShot(0, tour_, &Tour::start);
    }
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
  }
}

// The middle: results, comparison and design space.
void MainWindow::createTabs() {
  tabs_ = new QTabWidget;
  tabs_->setObjectName(QStringLiteral("resultTabs"));
  tabs_->setDocumentMode(true);
  tabs_->addTab(results_, tr("Results"));
  tabs_->addTab(comparison_, tr("Comparison"));
  designSpace_ = new DesignSpaceView(document_);
  tabs_->addTab(designSpace_, tr("Design Space"));
  setCentralWidget(tabs_);
  // A clicked design becomes a scenario, and the Results tab shows it.
  connect(designSpace_, &DesignSpaceView::openDesign, this,
          [this](const QString& name, const Scenario& scenario) {
            QString why;
            if (scenarios_->addScenarioFrom(scenarios_->unusedName(name), scenario, &why)) {
              tabs_->setCurrentWidget(results_);
            } else {
              statusBar()->showMessage(tr("The design was not opened: %1").arg(why));
            }
          });
}

QList<QDockWidget*> MainWindow::createDocks() {
  setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks);
  QDockWidget* scenarioDock = dock(this, tr("Scenarios"), QStringLiteral("scenarioDock"),
                                   scenarioPanel_, Qt::LeftDockWidgetArea);
  // Shown while the project has several scenarios (and from View): a project
  // of one keeps the window, and its minimum height, as they were.
  scenarioDock->hide();
  connect(scenarios_, &ScenarioController::severalChanged, this,
          [this, scenarioDock](bool several) {
            scenarioDock->setVisible(several);
            // Room for its list, taken from the docks below, once it is laid out.
            if (several) {
              QTimer::singleShot(0, this, [this, scenarioDock] {
                resizeDocks({scenarioDock}, {scenarioDock->sizeHint().height() + 4}, Qt::Vertical);
              });
            }
          });
  QDockWidget* networkDock =
      dock(this, tr("Network"), QStringLiteral("networkDock"), network_, Qt::LeftDockWidgetArea);
  QDockWidget* budgetDock = dock(this, tr("Budget and Objective"), QStringLiteral("budgetDock"),
                                 scrolling(budget_), Qt::LeftDockWidgetArea);
  // The charts get the whole height; the workload shares the column with the budget.
  QDockWidget* workloadDock = dock(this, tr("Workload"), QStringLiteral("workloadDock"),
                                   scrolling(workload_), Qt::LeftDockWidgetArea);
  tabifyDockWidget(budgetDock, workloadDock);
  QDockWidget* costDock = dock(this, tr("Cost Levels"), QStringLiteral("costLevelDock"),
                               scrolling(new CostLevelPanel(document_)), Qt::LeftDockWidgetArea);
  tabifyDockWidget(workloadDock, costDock);
  budgetDock->raise();
  auto* undoView = new QUndoView(document_->undoStack());
  undoView->setEmptyLabel(tr("<opened>"));
  QDockWidget* historyDock =
      dock(this, tr("History"), QStringLiteral("historyDock"), undoView, Qt::RightDockWidgetArea);
  historyDock->hide();
  resizeDocks({networkDock}, {450}, Qt::Horizontal);
  resizeDocks({networkDock, budgetDock}, {260, 640}, Qt::Vertical);
  return {scenarioDock, networkDock, workloadDock, budgetDock, costDock, historyDock};
}

void MainWindow::createStatusBar() {
  status_ = new QLabel;
  status_->setObjectName(QStringLiteral("solveStatus"));
  statusBar()->addWidget(status_, 1);
  connect(explorer_, &ExplorerController::statusChanged, status_, &QLabel::setText);
  // What an edit did beyond the request (e.g. constraints removed with a dimension)
  // shows over the solve status for a while.
  connect(document_, &Document::editReported, this,
          [this](const QString& notes) { statusBar()->showMessage(notes, 15000); });
  connect(document_, &Document::inputRefused, this,
          [this](const QString& why) { statusBar()->showMessage(why, 15000); });
  connect(exports_, &ExportController::exported, this,
          [this](const QString& message) { statusBar()->showMessage(message, 15000); });
  connect(explorer_->solver(), &SolverController::resultReady, this,
          [this](const SolveResultPtr& r) {
            // Only this project's optimum seeds a cost budget: a solve still running
            // when another project was opened is not.
            if (r->ok() && r->project && r->project->network == document_->project().network)
              budget_->setCurrentOptimumCost(r->a().design.eval.costUsd);
          });
}

void MainWindow::createHelpMenu() {
  QMenu* help = menuBar()->addMenu(tr("&Help"));
  QAction* guide =
      help->addAction(tr("&User Guide"), this, [this] { showHelp(QStringLiteral("gui")); });
  guide->setObjectName(QStringLiteral("userGuideAction"));
  guide->setShortcut(QKeySequence::HelpContents);
  help->addAction(tr("&Glossary"), this, [this] { showHelp(QStringLiteral("glossary")); })
      ->setObjectName(QStringLiteral("glossaryAction"));
  tour_ = new Tour(this);
  help->addAction(tr("&Tour of the Window"), tour_, &Tour::start)
      ->setObjectName(QStringLiteral("tourAction"));
  help->addSeparator();
  help->addAction(tr("&About Libra Studio"), this, [this] {
    QMessageBox::about(
        this, tr("About Libra Studio"),
        tr("<b>Libra Studio %1</b><p>Design-space explorer for the multi-dimensional "
           "networks that train large AI models: it splits the bandwidth of each NPU "
           "over the network's dimensions to fit the workload (the LIBRA model, "
           "ISPASS 2024).</p>")
            .arg(QApplication::applicationVersion()));
  });
}

MainWindow::~MainWindow() = default;

HelpDialog* MainWindow::showHelp(const QString& page) {
  if (!help_) help_ = new HelpDialog(this);
  help_->showPage(page);
  return help_;
}

AutosaveController* MainWindow::enableAutosave(const QString& directory) {
  delete autosave_;
  autosave_ = new AutosaveController(document_, directory, this);
  connect(autosave_, &AutosaveController::failed, this, [this](const QString& message) {
    statusBar()->showMessage(tr("Autosave failed: %1").arg(message), 30000);
  });
  return autosave_;
}

void MainWindow::createMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(files_->newAction());
  file->addAction(files_->openAction());
  file->addMenu(files_->recentMenu());
  file->addMenu(files_->examplesMenu());
  file->addSeparator();
  file->addAction(files_->saveAction());
  file->addAction(files_->saveAsAction());
  file->addAction(files_->renameAction());
  file->addSeparator();
  file->addAction(files_->importAction());
  file->addMenu(exports_->menu());
  file->addAction(exports_->reportAction());
  file->addSeparator();
  QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
  quit->setShortcut(QKeySequence::Quit);
  // None in the generic Unix platform theme (as for Save As): Ctrl+Q, as elsewhere.
  if (quit->shortcut().isEmpty()) quit->setShortcut(QKeySequence(tr("Ctrl+Q")));

  QMenu* edit = menuBar()->addMenu(tr("&Edit"));
  QAction* undo = document_->undoStack()->createUndoAction(this, tr("&Undo"));
  undo->setShortcut(QKeySequence::Undo);
  undo->setObjectName(QStringLiteral("undoAction"));
  QAction* redo = document_->undoStack()->createRedoAction(this, tr("&Redo"));
  redo->setShortcut(QKeySequence::Redo);
  redo->setObjectName(QStringLiteral("redoAction"));
  edit->addAction(undo);
  edit->addAction(redo);
  menuBar()->addMenu(scenarios_->menu());
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() == QEvent::ShortcutOverride) {
    const auto* key = static_cast<QKeyEvent*>(event);
    auto* widget = qobject_cast<QWidget*>(watched);
    // The spin box, or the line edit inside it (a table's delegate editor too).
    const bool inSpinBox = widget && (qobject_cast<QAbstractSpinBox*>(widget) ||
                                      qobject_cast<QAbstractSpinBox*>(widget->parentWidget()));
    if (inSpinBox && widget->window() == this &&
        (key->matches(QKeySequence::Undo) || key->matches(QKeySequence::Redo))) {
      event->ignore();  // not the spin box's: the window's Undo / Redo shortcut fires
      return true;
    }
  }
  return QMainWindow::eventFilter(watched, event);
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (!files_->maybeSave()) {
    event->ignore();
    return;
  }
  QSettings settings;
  settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
  settings.setValue(QStringLiteral("window/state"), saveState());
  // Saved or discarded: nothing left to recover.
  if (autosave_) autosave_->removeRecovery();
  event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  const QList<QUrl> urls = event->mimeData()->urls();
  if (urls.size() == 1 && urls.front().isLocalFile()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  const QList<QUrl> urls = event->mimeData()->urls();
  if (urls.size() != 1 || !urls.front().isLocalFile()) return;
  event->acceptProposedAction();
  if (files_->maybeSave()) files_->open(urls.front().toLocalFile());
}

}  // namespace libra::studio
