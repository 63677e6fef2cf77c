// Scenarios in the window (issue 10, item 2): a project holds several named
// scenarios, one of them active (the panels edit it, the charts show it).
//  - ScenarioController: the Scenarios menu (Add, Duplicate, Rename, Remove,
//    switch), each an undoable edit of the document through the engine's
//    scenario functions (libra/project.hpp), refused with the engine's reason;
//    and which scenarios' fronts the Pareto chart overlays (a choice of the
//    session, by name; all of them at first).
//  - ScenarioPanel: the selector: the active scenario in a combo box, every
//    scenario in a list with a check box (overlay its front), its colour and
//    the state of its analysis, and buttons for the actions.
#pragma once

#include <QSet>
#include <QString>
#include <QWidget>
#include <cstddef>
#include <functional>
#include <libra/project.hpp>

QT_BEGIN_NAMESPACE
class QAction;
class QComboBox;
class QListWidget;
class QListWidgetItem;
class QMenu;
QT_END_NAMESPACE

namespace libra::studio {

class Document;
class ParetoChartView;
class ScenarioResults;

class ScenarioController : public QObject {
  Q_OBJECT

 public:
  ScenarioController(Document* document, ScenarioResults* results, ParetoChartView* pareto,
                     QWidget* window);

  QMenu* menu() const { return menu_; }
  QAction* addAction() const { return add_; }
  QAction* duplicateAction() const { return duplicate_; }
  QAction* renameAction() const { return rename_; }
  QAction* removeAction() const { return remove_; }

  // Without dialogs (tests, drag and drop): each one undo step named after
  // what it did; false, with the reason in `error`, when the engine refuses it
  // (an empty or repeated name, the last scenario). Names are trimmed.
  // Adds a scenario that starts as File > New does, after the active one, and
  // makes it active.
  bool addScenario(const QString& name, QString* error = nullptr);
  // Adds `content` as a new active scenario named `name` (one undo step).
  bool addScenarioFrom(const QString& name, const Scenario& content, QString* error = nullptr);
  // `base`, or "base (2)", "base (3)" … whichever no scenario has.
  QString unusedName(const QString& base) const;
  // Adds a copy of the active scenario after it and makes it active.
  bool duplicateScenario(const QString& name, QString* error = nullptr);
  bool renameScenario(std::size_t index, const QString& name, QString* error = nullptr);
  bool removeScenario(std::size_t index, QString* error = nullptr);
  // Makes scenario `index` the active one (an undo step too: the file saves it).
  bool activateScenario(std::size_t index);

  // How scenario `index` is listed: its name (as shownName shows it), or
  // "Unnamed scenario".
  QString displayName(std::size_t index) const;
  // The name the project's hidden-front list keys scenario `index` by: its name
  // itself, or "Unnamed scenario".
  QString frontKey(std::size_t index) const;

  // Whether the front of the scenario named `name` is drawn on the Pareto chart
  // when it is not the active one (whose front is always drawn). The choice is
  // the project's (saved with it; an undo step).
  bool isOverlaid(const QString& name) const;
  void setOverlaid(const QString& name, bool overlaid);

 Q_SIGNALS:
  void overlayChanged();
  // The project went from one scenario to several, or back (the window shows
  // the selector while there are several).
  void severalChanged(bool several);

 private:
  bool apply(const QString& text, const std::function<void(Project&)>& change, QString* error);
  // Asks for a name; false when the user cancels.
  bool askName(const QString& title, const QString& label, QString& name);
  void refused(const QString& title, const QString& what, const QString& why);
  // Scenario `index`'s name as the project holds it (empty: unnamed or none).
  QString nameAt(std::size_t index) const;
  void updateActions();
  void updateOverlays();
  void rebuildMenu();

  Document* document_;
  ScenarioResults* results_;
  ParetoChartView* pareto_;
  QWidget* window_;
  QMenu* menu_;
  QAction* add_;
  QAction* duplicate_;
  QAction* rename_;
  QAction* remove_;
  bool several_ = false;
};

class ScenarioPanel : public QWidget {
  Q_OBJECT

 public:
  ScenarioPanel(Document* document, ScenarioResults* results, ScenarioController* controller,
                QWidget* parent = nullptr);

  QComboBox* activeCombo() const { return combo_; }
  QListWidget* list() const { return list_; }

 private:
  void sync();

  Document* document_;
  ScenarioResults* results_;
  ScenarioController* controller_;
  QComboBox* combo_;
  QListWidget* list_;
};

}  // namespace libra::studio
