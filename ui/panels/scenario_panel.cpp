#include "scenario_panel.hpp"

#include <QAction>
#include <QActionGroup>
#include <QComboBox>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QMessageBox>
#include <QPainter>
#include <QPixmap>
#include <QSignalBlocker>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <libra/error.hpp>

#include "charts.hpp"
#include "document.hpp"
#include "examples.hpp"
#include "format.hpp"
#include "project_edits.hpp"
#include "scenario_results.hpp"

namespace libra::studio {

namespace {

QString quoted(const QString& name) {
  return QStringLiteral("“") + name + QStringLiteral("”");
}

}  // namespace

// --- ScenarioController ----------------------------------------------------------

ScenarioController::ScenarioController(Document* document, ScenarioResults* results,
                                       ParetoChartView* pareto, QWidget* window)
    : QObject(window), document_(document), results_(results), pareto_(pareto), window_(window) {
  add_ = new QAction(tr("&Add Scenario…"), this);
  add_->setObjectName(QStringLiteral("addScenarioAction"));
  add_->setToolTip(
      tr("Add a scenario that starts from the default example, as File > New does, and "
         "make it the active one"));
  duplicate_ = new QAction(tr("&Duplicate Scenario…"), this);
  duplicate_->setObjectName(QStringLiteral("duplicateScenarioAction"));
  duplicate_->setToolTip(tr("Add a copy of the active scenario and make it the active one"));
  rename_ = new QAction(tr("Re&name Scenario…"), this);
  rename_->setObjectName(QStringLiteral("renameScenarioAction"));
  remove_ = new QAction(tr("&Remove Scenario"), this);
  remove_->setObjectName(QStringLiteral("removeScenarioAction"));
  menu_ = new QMenu(tr("&Scenarios"), window_);
  menu_->setObjectName(QStringLiteral("scenarioMenu"));
  connect(menu_, &QMenu::aboutToShow, this, &ScenarioController::rebuildMenu);
  rebuildMenu();

  connect(add_, &QAction::triggered, this, [this] {
    QString name = toQString(freshScenarioName(document_->project()));
    if (!askName(tr("Add Scenario"),
                 tr("Name of the new scenario (it starts from the default example):"), name))
      return;
    QString why;
    if (!addScenario(name, &why)) refused(tr("Add Scenario"), tr("No scenario was added."), why);
  });
  connect(duplicate_, &QAction::triggered, this, [this] {
    const Project& p = document_->project();
    QString name = toQString(freshScenarioName(p));
    if (!askName(tr("Duplicate Scenario"),
                 tr("Name of the copy of %1:").arg(quoted(displayName(p.activeScenario))), name))
      return;
    QString why;
    if (!duplicateScenario(name, &why))
      refused(tr("Duplicate Scenario"), tr("The scenario was not duplicated."), why);
  });
  connect(rename_, &QAction::triggered, this, [this] {
    const std::size_t index = document_->project().activeScenario;
    QString name = toQString(document_->project().scenarioName);
    if (!askName(tr("Rename Scenario"), tr("New name of %1:").arg(quoted(displayName(index))),
                 name))
      return;
    QString why;
    if (!renameScenario(index, name, &why))
      refused(tr("Rename Scenario"), tr("The scenario was not renamed."), why);
  });
  connect(remove_, &QAction::triggered, this, [this] {
    QString why;
    if (!removeScenario(document_->project().activeScenario, &why))
      refused(tr("Remove Scenario"), tr("The scenario was not removed."), why);
  });

  connect(document_, &Document::projectChanged, this, [this](Document::Parts parts) {
    if (parts & Document::Scenarios) {
      updateActions();
      updateOverlays();
      const bool several = scenarioCount(document_->project()) > 1;
      if (several != several_) {
        several_ = several;
        Q_EMIT severalChanged(several);
      }
    }
    // The overlay choice is view state: an undo, or another project opened.
    if (parts & Document::ViewState) Q_EMIT overlayChanged();
  });
  connect(results_, &ScenarioResults::changed, this, &ScenarioController::updateOverlays);
  connect(this, &ScenarioController::overlayChanged, this, &ScenarioController::updateOverlays);
  updateActions();
  updateOverlays();
}

QString ScenarioController::displayName(std::size_t index) const {
  const std::vector<std::string> names = scenarioNames(document_->project());
  if (index >= names.size() || names[index].empty()) return tr("Unnamed scenario");
  return shownName(names[index]);
}

QString ScenarioController::nameAt(std::size_t index) const {
  const std::vector<std::string> names = scenarioNames(document_->project());
  return index < names.size() ? toQString(names[index]) : QString();
}

QString ScenarioController::frontKey(std::size_t index) const {
  const QString name = nameAt(index);
  return name.isEmpty() ? tr("Unnamed scenario") : name;
}

bool ScenarioController::isOverlaid(const QString& name) const {
  return !hiddenFrontsOf(document_->project()).contains(name);
}

void ScenarioController::setOverlaid(const QString& name, bool overlaid) {
  if (overlaid == isOverlaid(name)) return;
  QStringList hidden = hiddenFrontsOf(document_->project());
  if (overlaid) {
    hidden.removeAll(name);
  } else {
    hidden << name;
  }
  const QString shown = quoted(shownName(toStd(name)));
  document_->edit(
      overlaid ? tr("Show the front of %1").arg(shown) : tr("Hide the front of %1").arg(shown),
      [&](Project& p) { setHiddenFronts(p, hidden); });
}

bool ScenarioController::apply(const QString& text, const std::function<void(Project&)>& change,
                               QString* error) {
  try {
    document_->edit(text, change);
    return true;
  } catch (const InputError& e) {
    if (error) *error = sentence(e.what());
    return false;
  }
}

bool ScenarioController::addScenario(const QString& name, QString* error) {
  Project fresh;
  try {
    fresh = loadExample(defaultExampleId());
  } catch (const std::exception& e) {
    if (error) *error = sentence(e.what());
    return false;
  }
  return addScenarioFrom(name, fresh, error);
}

bool ScenarioController::addScenarioFrom(const QString& name, const Scenario& content,
                                         QString* error) {
  const std::string chosen = toStd(name.trimmed());
  return apply(
      tr("Add scenario %1").arg(quoted(toQString(chosen))),
      [&](Project& p) {
        // The engine's duplicate names an unnamed scenario and places the new
        // one; its content is then the given one.
        libra::duplicateScenario(p, chosen);
        static_cast<Scenario&>(p) = content;
      },
      error);
}

QString ScenarioController::unusedName(const QString& base) const {
  const std::vector<std::string> names = scenarioNames(document_->project());
  QString name = base;
  for (int k = 2; std::find(names.begin(), names.end(), toStd(name)) != names.end(); ++k) {
    name = QStringLiteral("%1 (%2)").arg(base).arg(k);
  }
  return name;
}

bool ScenarioController::duplicateScenario(const QString& name, QString* error) {
  const std::string chosen = toStd(name.trimmed());
  Project after = document_->project();
  try {
    libra::duplicateScenario(after, chosen);
  } catch (const InputError& e) {
    if (error) *error = sentence(e.what());
    return false;
  }
  // The original is right before the copy; an unnamed one now has the name
  // the engine gave it.
  const QString original = toQString(scenarioNames(after)[after.activeScenario - 1]);
  return apply(
      tr("Duplicate scenario %1 as %2").arg(quoted(original), quoted(toQString(chosen))),
      [&](Project& p) { p = after; }, error);
}

bool ScenarioController::renameScenario(std::size_t index, const QString& name, QString* error) {
  const std::string chosen = toStd(name.trimmed());
  const QString before = displayName(index);
  // The overlay and baseline choices go with the scenario, in the same step.
  const QString oldName = nameAt(index);
  return apply(
      tr("Rename scenario %1 to %2").arg(quoted(before), quoted(toQString(chosen))),
      [&](Project& p) {
        libra::renameScenario(p, index, chosen);
        if (!oldName.isEmpty()) renameInComparison(p, oldName, toQString(chosen));
      },
      error);
}

bool ScenarioController::removeScenario(std::size_t index, QString* error) {
  const QString name = displayName(index);
  const QString oldName = nameAt(index);
  return apply(
      tr("Remove scenario %1").arg(quoted(name)),
      [&](Project& p) {
        libra::removeScenario(p, index);
        if (!oldName.isEmpty()) renameInComparison(p, oldName, {});
      },
      error);
}

bool ScenarioController::activateScenario(std::size_t index) {
  if (index == document_->project().activeScenario) return false;
  QString error;
  return apply(
      tr("Switch to scenario %1").arg(quoted(displayName(index))),
      [&](Project& p) { libra::activateScenario(p, index); }, &error);
}

bool ScenarioController::askName(const QString& title, const QString& label, QString& name) {
  bool ok = false;
  const QString answer = QInputDialog::getText(window_, title, label, QLineEdit::Normal, name, &ok);
  if (ok) name = answer;
  return ok;
}

void ScenarioController::refused(const QString& title, const QString& what, const QString& why) {
  QMessageBox box(QMessageBox::Warning, title, what, QMessageBox::Ok, window_);
  box.setInformativeText(why);
  box.exec();
}

void ScenarioController::updateActions() {
  const Project& p = document_->project();
  const QString active = quoted(displayName(p.activeScenario));
  rename_->setText(tr("Re&name Scenario %1…").arg(active));
  remove_->setText(tr("&Remove Scenario %1").arg(active));
  const bool several = scenarioCount(p) > 1;
  remove_->setEnabled(several);
  remove_->setToolTip(several ? tr("Remove the active scenario; the next one becomes active")
                              : tr("The project's only scenario cannot be removed"));
}

void ScenarioController::rebuildMenu() {
  menu_->clear();
  menu_->addAction(add_);
  menu_->addAction(duplicate_);
  menu_->addAction(rename_);
  menu_->addAction(remove_);
  const Project& p = document_->project();
  const std::size_t count = scenarioCount(p);
  if (count < 2) return;
  menu_->addSection(tr("Active scenario"));
  auto* group = new QActionGroup(menu_);
  for (std::size_t i = 0; i < count; ++i) {
    QAction* a = menu_->addAction(displayName(i));
    a->setCheckable(true);
    a->setChecked(i == p.activeScenario);
    a->setActionGroup(group);
    connect(a, &QAction::triggered, this, [this, i] { activateScenario(i); });
  }
}

void ScenarioController::updateOverlays() {
  const Project& p = document_->project();
  const std::size_t count = scenarioCount(p);
  QList<FrontOverlay> overlays;
  for (std::size_t i = 0; i < count; ++i) {
    if (i == p.activeScenario) continue;
    const QString name = displayName(i);
    if (!isOverlaid(frontKey(i))) continue;
    const ScenarioResults::Entry e = results_->entry(i);
    // One cost axis: a front whose cost counts otherwise says so.
    QString label = name;
    if (e.result && e.result->a().ok() && e.result->a().costScope != p.costScope) {
      label = e.result->a().costScope == CostScope::System ? tr("%1 (system cost)").arg(name)
                                                           : tr("%1 (network cost)").arg(name);
    }
    overlays.append({label, scenarioColor(static_cast<int>(i)), e.result, !e.current});
  }
  pareto_->setOverlays(overlays);
  pareto_->setFrontName(count > 1 ? tr("%1 (active)").arg(displayName(p.activeScenario))
                                  : tr("Pareto front"));
}

// --- ScenarioPanel ---------------------------------------------------------------

namespace {

QIcon swatch(const QColor& color) {
  QPixmap pixmap(14, 14);
  pixmap.fill(Qt::transparent);
  QPainter painter(&pixmap);
  painter.setRenderHint(QPainter::Antialiasing);
  painter.setPen(QPen(color.darker(130), 1));
  painter.setBrush(color);
  painter.drawEllipse(QRectF(1.5, 1.5, 11, 11));
  return QIcon(pixmap);
}

// What is known of a scenario's optimum, for its line in the list.
QString stateText(const ScenarioResults::Entry& e) {
  if (!e.result) return QObject::tr("computing…");
  if (!e.current) return QObject::tr("updating…");
  const Analysis& a = e.result->a();
  if (e.result->invalidInput) return QObject::tr("invalid input");
  if (!a.ok()) return toQString(statusWord(a));
  return QObject::tr("%1 at %2")
      .arg(formatTimeNs(a.design.eval.iterationNs), formatCostUsd(a.design.eval.costUsd));
}

}  // namespace

ScenarioPanel::ScenarioPanel(Document* document, ScenarioResults* results,
                             ScenarioController* controller, QWidget* parent)
    : QWidget(parent), document_(document), results_(results), controller_(controller) {
  setObjectName(QStringLiteral("scenarioPanel"));
  combo_ = new QComboBox;
  combo_->setObjectName(QStringLiteral("scenarioCombo"));
  combo_->setToolTip(tr("The scenario the panels edit and the charts show"));
  combo_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  combo_->setMinimumContentsLength(12);
  list_ = new QListWidget;
  list_->setObjectName(QStringLiteral("scenarioList"));
  list_->setToolTip(
      tr("Checked scenarios have their Pareto front drawn over the active one's. "
         "Double-click a scenario to make it the active one."));
  list_->setUniformItemSizes(true);

  auto* row = new QHBoxLayout;
  row->setContentsMargins(0, 0, 0, 0);
  auto* activeLabel = new QLabel(tr("Active:"));
  activeLabel->setBuddy(combo_);
  row->addWidget(activeLabel);
  row->addWidget(combo_, 1);
  auto* buttons = new QHBoxLayout;
  buttons->setContentsMargins(0, 0, 0, 0);
  const QString labels[] = {tr("Add…"), tr("Duplicate…"), tr("Rename…"), tr("Remove")};
  QAction* actions[] = {controller_->addAction(), controller_->duplicateAction(),
                        controller_->renameAction(), controller_->removeAction()};
  for (int i = 0; i < 4; ++i) {
    auto* button = new QToolButton;
    button->setObjectName(actions[i]->objectName() + QStringLiteral("Button"));
    button->setDefaultAction(actions[i]);
    button->setToolButtonStyle(Qt::ToolButtonTextOnly);
    // The menu's texts name the active scenario; the buttons stay short.
    button->setText(labels[i]);
    connect(actions[i], &QAction::changed, button,
            [button, text = labels[i]] { button->setText(text); });
    buttons->addWidget(button);
  }
  buttons->addStretch(1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 4, 6, 4);
  layout->setSpacing(4);
  layout->addLayout(row);
  layout->addWidget(new QLabel(tr("Fronts on the Pareto chart:")));
  layout->addWidget(list_);
  layout->addLayout(buttons);

  connect(combo_, &QComboBox::activated, this, [this](int index) {
    if (index >= 0) controller_->activateScenario(static_cast<std::size_t>(index));
    sync();  // a refused switch puts the combo back
  });
  connect(list_, &QListWidget::itemChanged, this, [this](QListWidgetItem* item) {
    if (!(item->flags() & Qt::ItemIsUserCheckable)) return;
    controller_->setOverlaid(item->data(Qt::UserRole + 1).toString(),
                             item->checkState() == Qt::Checked);
  });
  connect(list_, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
    controller_->activateScenario(item->data(Qt::UserRole).toULongLong());
  });
  connect(document_, &Document::projectChanged, this, &ScenarioPanel::sync);
  connect(results_, &ScenarioResults::changed, this, &ScenarioPanel::sync);
  connect(controller_, &ScenarioController::overlayChanged, this, &ScenarioPanel::sync);
  sync();
}

void ScenarioPanel::sync() {
  const Project& p = document_->project();
  const int count = static_cast<int>(scenarioCount(p));
  const int active = static_cast<int>(p.activeScenario);
  {
    const QSignalBlocker block(combo_);
    if (combo_->count() != count) {
      combo_->clear();
      for (int i = 0; i < count; ++i) combo_->addItem(QString());
    }
    for (int i = 0; i < count; ++i) {
      const QString name = controller_->displayName(static_cast<std::size_t>(i));
      if (combo_->itemText(i) != name) combo_->setItemText(i, name);
    }
    combo_->setCurrentIndex(active);
  }
  const QSignalBlocker block(list_);
  while (list_->count() > count) delete list_->takeItem(list_->count() - 1);
  while (list_->count() < count) list_->addItem(new QListWidgetItem);
  for (int i = 0; i < count; ++i) {
    QListWidgetItem* item = list_->item(i);
    const QString name = controller_->displayName(static_cast<std::size_t>(i));
    const bool isActive = i == active;
    const ScenarioResults::Entry e = results_->entry(static_cast<std::size_t>(i));
    const QString text =
        (isActive ? tr("%1 (active)").arg(name) : name) + QStringLiteral(" · ") + stateText(e);
    if (item->text() != text) item->setText(text);
    item->setData(Qt::UserRole, i);
    item->setData(Qt::UserRole + 1, controller_->frontKey(static_cast<std::size_t>(i)));
    const QColor color = isActive ? activeFrontColor() : scenarioColor(i);
    if (item->data(Qt::UserRole + 2).value<QColor>() != color) {
      item->setData(Qt::UserRole + 2, color);
      item->setIcon(swatch(color));
    }
    // The active scenario's front is always drawn.
    Qt::ItemFlags flags = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
    if (!isActive) flags |= Qt::ItemIsUserCheckable;
    if (item->flags() != flags) item->setFlags(flags);
    const Qt::CheckState state =
        isActive || controller_->isOverlaid(controller_->frontKey(static_cast<std::size_t>(i)))
            ? Qt::Checked
            : Qt::Unchecked;
    if (item->data(Qt::CheckStateRole).isNull() || item->checkState() != state)
      item->setCheckState(state);
    QFont font = item->font();
    if (font.bold() != isActive) {
      font.setBold(isActive);
      item->setFont(font);
    }
    item->setToolTip(isActive ? tr("The active scenario: the panels edit it")
                              : tr("Double-click to make %1 the active scenario").arg(name));
  }
  const int rows = std::clamp(count, 1, 6);
  const int rowHeight =
      list_->sizeHintForRow(0) > 0 ? list_->sizeHintForRow(0) : list_->fontMetrics().height() + 4;
  // As tall as its rows (six at most), down to one row when the window is small.
  const int frame = 2 * list_->frameWidth() + 2;
  list_->setMinimumHeight(rowHeight + frame);
  list_->setMaximumHeight(rows * rowHeight + frame);
}

}  // namespace libra::studio
