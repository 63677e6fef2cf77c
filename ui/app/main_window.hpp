// The main window only wires: the results in the middle, the network, workload and
// budget panels in docks, menus from the controllers, the status line. Features
// live in their own controller classes.
#pragma once

#include <QList>
#include <QMainWindow>

QT_BEGIN_NAMESPACE
class QDockWidget;
class QLabel;
class QTabWidget;
QT_END_NAMESPACE

namespace libra::studio {

class AutosaveController;
class BudgetPanel;
class Document;
class ExplorerController;
class ChartController;
class ComparisonView;
class DesignSpaceView;
class ExportController;
class FileController;
class HelpDialog;
class Tour;
class NetworkPanel;
class ResultsView;
class ScenarioController;
class ScenarioPanel;
class ScenarioResults;
class WorkloadPanel;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  // `restoreWindowState`: take the geometry and dock layout from the last session
  // (off for screenshots and tests, which want the default layout).
  explicit MainWindow(QWidget* parent = nullptr, bool restoreWindowState = true);
  ~MainWindow() override;

  Document* document() const { return document_; }
  FileController* files() const { return files_; }
  ExportController* exports() const { return exports_; }
  ChartController* charts() const { return charts_; }
  ExplorerController* explorer() const { return explorer_; }
  ResultsView* results() const { return results_; }
  // The project's scenarios: their menu and selector, their analyses and the
  // comparison tab beside the results.
  ScenarioController* scenarios() const { return scenarios_; }
  ScenarioPanel* scenarioPanel() const { return scenarioPanel_; }
  ScenarioResults* scenarioResults() const { return scenarioResults_; }
  ComparisonView* comparison() const { return comparison_; }
  DesignSpaceView* designSpace() const { return designSpace_; }
  QTabWidget* resultTabs() const { return tabs_; }
  NetworkPanel* networkPanel() const { return network_; }
  WorkloadPanel* workloadPanel() const { return workload_; }
  BudgetPanel* budgetPanel() const { return budget_; }
  QLabel* statusLabel() const { return status_; }
  // Null until enableAutosave(); the interactive program and the endurance run
  // enable it, screenshots and measurements do not.
  AutosaveController* autosave() const { return autosave_; }
  // Autosaves the document to a recovery file in `directory` (see autosave.hpp);
  // its failures show in the status bar.
  AutosaveController* enableAutosave(const QString& directory);
  // Help > User Guide / Glossary: the help window at `page` ("gui", "glossary").
  HelpDialog* showHelp(const QString& page);
  Tour* tour() const { return tour_; }

 protected:
  void closeEvent(QCloseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;
  // Ctrl+Z / Ctrl+Shift+Z in a spin box of this window undo the project, not the
  // spin box's text: its value is already an edit of the document.
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void createMenus();
  void createTabs();
  QList<QDockWidget*> createDocks();  // in the View menu's order
  void createStatusBar();
  void createHelpMenu();

  Document* document_;
  ResultsView* results_;
  NetworkPanel* network_;
  WorkloadPanel* workload_;
  BudgetPanel* budget_;
  ExplorerController* explorer_;
  FileController* files_;
  ExportController* exports_;
  ChartController* charts_;
  ScenarioResults* scenarioResults_;
  ScenarioController* scenarios_;
  ScenarioPanel* scenarioPanel_;
  ComparisonView* comparison_;
  DesignSpaceView* designSpace_;
  QTabWidget* tabs_;
  AutosaveController* autosave_ = nullptr;
  QLabel* status_;
  HelpDialog* help_ = nullptr;
  Tour* tour_ = nullptr;
};

}  // namespace libra::studio
