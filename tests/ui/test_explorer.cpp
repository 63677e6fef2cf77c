// The main window driven through its real widgets: edits re-solve in the
// background and the charts follow; undo, documents and exports.
#include <QAbstractItemModelTester>
#include <QAbstractItemView>
#include <QAction>
#include <QApplication>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QFile>
#include <QFileDialog>
#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QImage>
#include <QInputDialog>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineEdit>
#include <QLineSeries>
#include <QMenu>
#include <QMenuBar>
#include <QMetaMethod>
#include <QMimeData>
#include <QMouseEvent>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QScatterSeries>
#include <QSettings>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QStyle>
#include <QStyleOptionSlider>
#include <QTabBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QUrl>
#include <QValueAxis>
#include <QXmlStreamReader>
#include <algorithm>
#include <array>
#include <functional>
#include <libra/astra_export.hpp>
#include <libra/edits.hpp>
#include <libra/file_names.hpp>
#include <libra/sensitivity.hpp>
#include <map>
#include <memory>

#include "budget_panel.hpp"
#include "charts.hpp"
#include "constraint_editor.hpp"
#include "design_space_view.hpp"
#include "dimension_model.hpp"
#include "document.hpp"
#include "explorer_controller.hpp"
#include "export_controller.hpp"
#include "file_controller.hpp"
#include "format.hpp"
#include "frame_wait.hpp"
#include "help.hpp"
#include "main_window.hpp"
#include "model_dialog.hpp"
#include "preset_editor.hpp"
#include "project_edits.hpp"
#include "results_view.hpp"
#include "sensitivity_view.hpp"
#include "ui_test_support.hpp"

using namespace libra;
using namespace libra::studio;

namespace {

QPointF toChart(const Solution& s, const ChartUnits& units) {
  return units.toChart(s.eval.costUsd, s.eval.iterationNs);
}

bool samePoint(const QPointF& a, const QPointF& b) {
  return test::close(a.x(), b.x(), 1e-6) && test::close(a.y(), b.y(), 1e-6);
}

QPoint sliderHandleCenter(QSlider* slider) {
  QStyleOptionSlider option;
  option.initFrom(slider);
  option.orientation = slider->orientation();
  option.minimum = slider->minimum();
  option.maximum = slider->maximum();
  option.sliderPosition = slider->sliderPosition();
  option.sliderValue = slider->value();
  option.upsideDown = slider->invertedAppearance();
  const QRect handle =
      slider->style()->subControlRect(QStyle::CC_Slider, &option, QStyle::SC_SliderHandle, slider);
  return handle.center();
}

// A real mouse drag: press on the handle, move in steps with the button held, release.
void dragSlider(QSlider* slider, int pixels, int steps) {
  const QPoint start = sliderHandleCenter(slider);
  QTest::mousePress(slider, Qt::LeftButton, Qt::NoModifier, start);
  for (int i = 1; i <= steps; ++i) {
    const QPoint p = start + QPoint(pixels * i / steps, 0);
    QMouseEvent move(QEvent::MouseMove, p, slider->mapToGlobal(p), Qt::NoButton, Qt::LeftButton,
                     Qt::NoModifier);
    QApplication::sendEvent(slider, &move);
    QTest::qWait(2);
  }
  QTest::mouseRelease(slider, Qt::LeftButton, Qt::NoModifier, start + QPoint(pixels, 0));
}

// The tick labels of `chart`'s axis of that orientation, as drawn in its scene
// (left of the plot for the vertical axis, below it for the horizontal one).
QStringList axisLabels(QChartView* chart, Qt::Orientation orientation) {
  const QRectF plot = chart->chart()->mapToScene(chart->chart()->plotArea()).boundingRect();
  QStringList labels;
  for (QGraphicsItem* item : chart->scene()->items(Qt::AscendingOrder)) {
    auto* text = dynamic_cast<QGraphicsTextItem*>(item);
    if (!text || !text->isVisible() || chart->chart()->legend()->isAncestorOf(item)) continue;
    const QRectF at = text->sceneBoundingRect();
    const bool beside = orientation == Qt::Vertical
                            ? at.right() <= plot.left() + 1 && at.center().y() >= plot.top() - 1 &&
                                  at.center().y() <= plot.bottom() + 1
                            : at.top() >= plot.bottom() - 1 && at.center().x() >= plot.left() - 1 &&
                                  at.center().x() <= plot.right() + 1;
    if (beside && text->rotation() == 0) labels << text->toPlainText();
  }
  return labels;
}

// Where `label`'s legend entry is drawn in `chart`'s viewport (the centre of its
// text); (-1, -1) when no visible legend label reads so.
QPoint legendEntryPosition(QChartView* chart, const QString& label) {
  QLegend* legend = chart->chart()->legend();
  for (QGraphicsItem* item : chart->scene()->items()) {
    auto* text = dynamic_cast<QGraphicsTextItem*>(item);
    if (text && text->isVisible() && legend->isAncestorOf(item) && text->toPlainText() == label)
      return chart->mapFromScene(text->sceneBoundingRect().center());
  }
  return {-1, -1};
}

}  // namespace

class ExplorerTest : public QObject {
  Q_OBJECT

 private:
  std::unique_ptr<MainWindow> window_;

  Document* doc() { return window_->document(); }
  ResultsView* results() { return window_->results(); }
  SolverController* solver() { return window_->explorer()->solver(); }

  // Waits until the newest request's result is in the charts and on the screen.
  // Until the screen shows the inputs with the project's own front (a slow
  // front comes coarse first, then the project's: ExplorerController).
  bool waitForCurrentFrame() { return test::waitForCurrentFrame(*window_, 15000, false); }

  // Renames the project as a user does: File > Rename Project… clicked in the
  // menu bar, `typed` typed over the name the dialog offers, OK clicked. Returns
  // the name the dialog offered.
  QString renameThroughTheMenu(const QString& typed) {
    auto* bar = window_->menuBar();
    QMenu* file = nullptr;
    for (QAction* a : bar->actions())
      if (a->menu() && a->text() == QStringLiteral("&File")) file = a->menu();
    if (!file) return QStringLiteral("<no File menu>");
    QAction* rename = window_->findChild<QAction*>(QStringLiteral("renameAction"));
    QString offered = QStringLiteral("<no dialog>");
    QTimer poll;
    poll.setInterval(10);
    connect(&poll, &QTimer::timeout, this, [&] {
      auto* dialog = qobject_cast<QInputDialog*>(QApplication::activeModalWidget());
      if (!dialog) return;
      poll.stop();
      auto* edit = dialog->findChild<QLineEdit*>();
      offered = edit->text();
      edit->selectAll();
      QTest::keyClicks(edit, typed);
      auto* buttons = dialog->findChild<QDialogButtonBox*>();
      QPushButton* ok = buttons->button(QDialogButtonBox::Ok);
      QTest::mouseClick(ok, Qt::LeftButton);
    });
    poll.start();
    QTest::mouseClick(bar, Qt::LeftButton, Qt::NoModifier,
                      bar->actionGeometry(file->menuAction()).center());
    if (!file->isVisible()) return QStringLiteral("<the File menu did not open>");
    QTest::mouseClick(file, Qt::LeftButton, Qt::NoModifier,
                      file->actionGeometry(rename).center());  // returns once the dialog closed
    return offered;
  }

  // The file name File > Save As… suggests (Ctrl+Shift+S), read off the dialog
  // and cancelled.
  QString saveAsSuggestion() {
    QString suggested = QStringLiteral("<no dialog>");
    QTimer poll;
    poll.setInterval(10);
    connect(&poll, &QTimer::timeout, this, [&] {
      auto* dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget());
      if (!dialog) return;
      poll.stop();
      const QStringList files = dialog->selectedFiles();
      suggested = files.isEmpty() ? QString() : QFileInfo(files.front()).fileName();
      dialog->reject();
    });
    poll.start();
    // The shortcut goes to the active window (the offscreen platform does not
    // give the activation back when a dialog closes, as a desktop does).
    window_->activateWindow();
    if (!QTest::qWaitForWindowActive(window_.get())) return QStringLiteral("<window not active>");
    QTest::keySequence(window_.get(), QKeySequence(QStringLiteral("Ctrl+Shift+S")));
    return suggested;
  }

  // Saves the project as a user does: Ctrl+Shift+S, `name` typed into the file
  // name field of the dialog (in the folder it shows), Return. Returns the file
  // the dialog suggested (its path).
  QString saveAsThroughTheDialog(const QString& name) {
    QString suggested = QStringLiteral("<no dialog>");
    QTimer poll;
    poll.setInterval(10);
    connect(&poll, &QTimer::timeout, this, [&] {
      auto* dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget());
      if (!dialog) return;
      poll.stop();
      suggested = dialog->selectedFiles().value(0);
      typeIntoFileDialog(dialog, name);
    });
    poll.start();
    if (!activateMainWindow()) return QStringLiteral("<window not active>");
    QTest::keySequence(window_.get(), QKeySequence(QStringLiteral("Ctrl+Shift+S")));
    return suggested;
  }

  // Shortcuts go to the active window, which the offscreen platform does not
  // give back when a menu or a dialog closes, as a desktop does; and a closed
  // menu still counts as the window's own (isActiveWindow() is true while the
  // activation is on its way): waits for the window itself.
  bool activateMainWindow() {
    window_->activateWindow();
    return QTest::qWaitFor([&] { return QApplication::activeWindow() == window_.get(); });
  }

  // Types `fileName` over the file name field of a (non-native) file dialog
  // and presses Return, which accepts it: the file of that name in the folder
  // the dialog shows. A plain name, not a path: the field's completer would
  // take the Return of a path that matches files.
  static void typeIntoFileDialog(QFileDialog* dialog, const QString& fileName) {
    auto* name = dialog->findChild<QLineEdit*>(QStringLiteral("fileNameEdit"));
    if (!name) return dialog->reject();
    name->setFocus();
    QTest::keyClick(name, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(name, fileName);
    QTest::keyClick(name, Qt::Key_Return);
    if (dialog->isVisible()) dialog->reject();  // the Return did not accept it
  }

  // What an export's file dialog showed: where it started and the file it suggested.
  struct ExportDialogSeen {
    bool opened = false;
    QString directory, suggested;
  };

  // Runs `open` (a menu click or a shortcut that opens an export's file
  // dialog), reads the dialog, then types `fileName` into it and presses
  // Return, or cancels it when `fileName` is empty.
  ExportDialogSeen exportThroughTheDialog(const std::function<bool()>& open,
                                          const QString& fileName) {
    ExportDialogSeen seen;
    QTimer poll;
    poll.setInterval(10);
    connect(&poll, &QTimer::timeout, this, [&] {
      auto* dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget());
      if (!dialog) return;
      poll.stop();
      seen.opened = true;
      seen.directory = dialog->directory().absolutePath();
      seen.suggested = dialog->selectedFiles().value(0);
      if (fileName.isEmpty())
        dialog->reject();
      else
        typeIntoFileDialog(dialog, fileName);
    });
    poll.start();
    if (!open()) seen.opened = false;
    return seen;
  }

  // Chooses `text` in `combo` as a user does with the mouse: a click on the
  // combo box opens its list, a click on the entry picks it. False when the
  // entry is missing or the list did not open and close.
  static bool chooseInCombo(QComboBox* combo, const QString& text) {
    const int row = combo->findText(text);
    // On screen, not in a dock behind another (moved out of the window, still "visible").
    if (row < 0 || combo->visibleRegion().isEmpty()) return false;
    QTest::mouseClick(combo, Qt::LeftButton);
    QAbstractItemView* list = combo->view();
    if (!QTest::qWaitFor([&] { return list->isVisible(); })) return false;
    const QModelIndex index = list->model()->index(row, combo->modelColumn());
    list->scrollTo(index);
    // The list ignores a release within a double-click interval of opening (the
    // release of the click that opened it).
    QTest::qWait(QApplication::doubleClickInterval() + 50);
    QTest::mouseClick(list->viewport(), Qt::LeftButton, Qt::NoModifier,
                      list->visualRect(index).center());
    return QTest::qWaitFor([&] { return !list->isVisible(); }) && combo->currentIndex() == row;
  }

  // Clicks the tab titled `title` of the docks tabbed together; true when its
  // dock is then the one shown.
  bool clickDockTab(const QString& title) {
    for (QTabBar* tabs : window_->findChildren<QTabBar*>()) {
      for (int i = 0; i < tabs->count(); ++i) {
        if (tabs->tabText(i) != title || tabs->visibleRegion().isEmpty()) continue;
        QTest::mouseClick(tabs, Qt::LeftButton, Qt::NoModifier, tabs->tabRect(i).center());
        return tabs->currentIndex() == i;
      }
    }
    return false;
  }

  // Clicks through the menus as a user does: `path` names the menu bar's entry,
  // then the entries down to an action (as their texts read, '&' included).
  // Returns once the action has run (and any dialog it opened has closed);
  // false when an entry is missing or a menu did not open.
  bool clickMenuPath(const QStringList& path) {
    QMenuBar* bar = window_->menuBar();
    QMenu* menu = nullptr;
    for (QAction* a : bar->actions())
      if (a->menu() && a->text() == path.front()) menu = a->menu();
    if (!menu) return false;
    const auto closeMenus = [] {
      while (QWidget* popup = QApplication::activePopupWidget()) popup->close();
      return false;
    };
    QTest::mouseClick(bar, Qt::LeftButton, Qt::NoModifier,
                      bar->actionGeometry(menu->menuAction()).center());
    if (!QTest::qWaitFor([&] { return menu->isVisible(); })) return closeMenus();
    for (int i = 1; i < path.size(); ++i) {
      QAction* item = nullptr;
      for (QAction* a : menu->actions())
        if (a->text() == path[i]) item = a;
      if (!item) return closeMenus();
      QTest::mouseClick(menu, Qt::LeftButton, Qt::NoModifier, menu->actionGeometry(item).center());
      if (i + 1 < path.size()) {
        if (!item->menu() || !QTest::qWaitFor([&] { return item->menu()->isVisible(); }))
          return closeMenus();
        menu = item->menu();
      }
    }
    return true;
  }

  // The heading of an exported SVG figure: its title, which must also be drawn
  // as one of the figure's texts (else what it says is returned instead).
  QString exportedHeading() {
    QTemporaryDir dir;
    const QString svg = dir.filePath(QStringLiteral("figure.svg"));
    QString error;
    if (!window_->exports()->exportTo(svg, &error)) return error;
    QFile file(svg);
    if (!file.open(QIODevice::ReadOnly)) return QStringLiteral("<unreadable>");
    QXmlStreamReader xml(&file);
    QString title = QStringLiteral("<no title>");
    QStringList drawn;
    while (!xml.atEnd()) {
      if (xml.readNext() != QXmlStreamReader::StartElement) continue;
      if (xml.name() == QStringLiteral("title"))
        title = xml.readElementText();
      else if (xml.name() == QStringLiteral("text"))
        drawn << xml.readElementText(QXmlStreamReader::IncludeChildElements).trimmed();
    }
    if (!drawn.contains(title))
      return QStringLiteral("<title '%1', drawn: %2>")
          .arg(title, drawn.join(QStringLiteral(" | ")));
    return title;
  }

  QPointF chartOptimum() const {
    QScatterSeries* s = window_->results()->paretoChart()->optimumSeries();
    return s->count() == 1 ? s->at(0) : QPointF(qQNaN(), qQNaN());
  }

  void verifyChartMatchesEngine() {
    const Project& project = doc()->project();
    const Solution expected = test::engineOptimum(project);
    QVERIFY(expected.ok());
    const ChartUnits& units = results()->paretoChart()->units();
    QVERIFY2(samePoint(chartOptimum(), toChart(expected, units)),
             qPrintable(QStringLiteral("chart (%1, %2) vs engine (%3, %4)")
                            .arg(chartOptimum().x())
                            .arg(chartOptimum().y())
                            .arg(toChart(expected, units).x())
                            .arg(toChart(expected, units).y())));
    // The whole front, point by point (it spans all costs: a cost budget is drawn on it).
    Project unbudgeted = project;
    unbudgeted.constraints = constraintsWithoutCostBudget(project.constraints);
    const ParetoFront front = paretoFront(buildProblem(unbudgeted), paretoPointsOf(project));
    QLineSeries* line = results()->paretoChart()->frontSeries();
    QCOMPARE(line->count(), int(front.points.size()));
    for (int i = 0; i < line->count(); ++i)
      QVERIFY(samePoint(line->at(i), toChart(front.points[i], units)));
    // The bandwidth bars are the optimum's split.
    QBarSet* bars = results()->bandwidthChart()->optimumSet();
    QCOMPARE(bars->count(), int(expected.bandwidth.size()));
    for (int d = 0; d < bars->count(); ++d)
      QVERIFY(test::close(bars->at(d), expected.bandwidth[d], 1e-5));
  }

  // Once a failed solve has settled: every chart carries a visible badge
  // reading `reason` and never "Updating…" (not even after the delay that
  // brings "Updating…" to a late solve), drawn whole inside the chart and below
  // its title; the header says `why` and that the charts show the last solved
  // design; the sensitivity panel is greyed out.
  void verifyEveryChartShowsNotCurrent(const QString& reason, const QString& why) {
    const auto charts = {static_cast<ResultChartView*>(results()->paretoChart()),
                         static_cast<ResultChartView*>(results()->bandwidthChart()),
                         static_cast<ResultChartView*>(results()->breakdownChart())};
    // Settled: the badges follow the status line within a frame or two.
    for (ResultChartView* c : charts) {
      auto* badge = c->findChild<QLabel*>(QStringLiteral("staleLabel"));
      QVERIFY(badge);
      QTRY_VERIFY_WITH_TIMEOUT(badge->isVisible() && badge->text() == reason, 5000);
    }
    QElapsedTimer settling;
    settling.start();
    while (settling.elapsed() < 500) {
      for (ResultChartView* c : charts) {
        auto* badge = c->findChild<QLabel*>(QStringLiteral("staleLabel"));
        QVERIFY(badge);
        QVERIFY2(badge->isVisible() && badge->text() == reason,
                 qPrintable(QStringLiteral("%1 says '%2' (%3) after %4 ms")
                                .arg(c->objectName(), badge->text(),
                                     badge->isVisible() ? QStringLiteral("shown")
                                                        : QStringLiteral("hidden"))
                                .arg(settling.elapsed())));
      }
      QTest::qWait(10);
    }
    for (ResultChartView* c : charts) {
      QVERIFY(!c->viewport()->visibleRegion().isEmpty());  // on screen
      QVERIFY(c->isStale());
      QCOMPARE(c->staleReason(), reason);
      auto* badge = c->findChild<QLabel*>(QStringLiteral("staleLabel"));
      const QRect at = badge->geometry();
      QVERIFY2(c->rect().contains(at),
               qPrintable(QStringLiteral("%1: badge at %2,%3 %4x%5 in a chart of %6x%7")
                              .arg(c->objectName())
                              .arg(at.x())
                              .arg(at.y())
                              .arg(at.width())
                              .arg(at.height())
                              .arg(c->width())
                              .arg(c->height())));
      const QRectF plot = c->chart()->mapToScene(c->chart()->plotArea()).boundingRect();
      QVERIFY2(at.top() >= c->mapFromScene(plot.topLeft()).y() - 1,
               qPrintable(QStringLiteral("%1 badge over the title").arg(c->objectName())));
      // Its text fits: on one line, or wrapped into a badge tall enough for it.
      QVERIFY2(badge->wordWrap() ? badge->height() >= badge->heightForWidth(badge->width())
                                 : badge->fontMetrics().horizontalAdvance(badge->text()) <=
                                       badge->contentsRect().width(),
               qPrintable(c->objectName()));
      // And it is painted there: the badge's fill at its left and right ends.
      const QImage image = c->grab().toImage();
      const QColor fill(255, 244, 214);
      for (const QPoint& p :
           {QPoint(at.left() + 3, at.center().y()), QPoint(at.right() - 3, at.center().y())}) {
        const QColor seen = image.pixelColor(p * image.devicePixelRatio());
        QVERIFY2(std::abs(seen.red() - fill.red()) <= 12 &&
                     std::abs(seen.green() - fill.green()) <= 12 &&
                     std::abs(seen.blue() - fill.blue()) <= 12,
                 qPrintable(QStringLiteral("%1: %2 at %3,%4")
                                .arg(c->objectName(), seen.name())
                                .arg(p.x())
                                .arg(p.y())));
      }
    }
    auto* summary = window_->findChild<QLabel*>(QStringLiteral("resultsSummary"));
    QVERIFY(summary && summary->isVisible());
    QVERIFY2(summary->text().contains(why), qPrintable(summary->text()));
    QVERIFY2(summary->text().contains(QStringLiteral("the charts show the last solved design")),
             qPrintable(summary->text()));
    QVERIFY(!results()->sensitivityView()->isCurrent());
  }

 private Q_SLOTS:
  void initTestCase() { test::isolateSettings(); }

  void init() {
    window_ = std::make_unique<MainWindow>(nullptr, false);
    window_->files()->setPromptsEnabled(false);
    QString error;
    QVERIFY2(window_->files()->openExample(QStringLiteral("gpt3-4d"), &error), qPrintable(error));
    window_->resize(1400, 900);
    window_->show();
    QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
    QVERIFY(waitForCurrentFrame());
  }

  void cleanup() {
    doc()->undoStack()->setClean();
    window_.reset();
  }

  void startsWithTheEnginesOptimum() {
    verifyChartMatchesEngine();
    // The iteration and its parts in one unit (it read "2.294 s = compute
    // 1.541 s + communication 753.70 ms").
    const QRegularExpression sum(
        QStringLiteral("iteration <b>[0-9.]+ (\\S+)</b> = compute [0-9.]+ (\\S+) \\+ "
                       "communication [0-9.]+ (\\S+)"));
    const QRegularExpressionMatch m = sum.match(results()->summaryText());
    QVERIFY2(m.hasMatch(), qPrintable(results()->summaryText()));
    QCOMPARE(m.captured(2), m.captured(1));
    QCOMPARE(m.captured(3), m.captured(1));
    QVERIFY(window_->statusLabel()->text().startsWith(QStringLiteral("Solved in")));
    QVERIFY(!results()->isMarkedStale());
    QCOMPARE(window_->findChild<QLabel*>(QStringLiteral("totalNpus"))->text(),
             QStringLiteral("<b>4,096</b> NPUs"));
  }

  // The sensitivity panel shows the analysis of the optimum on screen (one row
  // per constraint, the bottlenecks) and follows each solve.
  void sensitivityFollowsTheOptimum() {
    SensitivityView* view = results()->sensitivityView();
    QVERIFY(view && view->isVisible());
    auto shownRows = [&] {
      const Sensitivity& s = results()->shownResult()->a().sensitivity;
      QStringList rows;
      for (const ConstraintSensitivity& c : s.constraints)
        rows << toQString(c.constraint) + QStringLiteral(": ") + sensitivityValueText(c);
      return rows;
    };
    auto verifyAgainstEngine = [&] {
      // What the panel shows is the analysis of the shown result ...
      QCOMPARE(view->rowTexts(), shownRows());
      // ... whose numbers are the engine's at its optimum.
      const Project& project = doc()->project();
      const Problem problem = buildProblem(project);
      const Solution optimum = solve(problem, project.objective);
      QVERIFY(optimum.ok());
      const Sensitivity expected = sensitivityAt(problem, optimum);
      const Sensitivity& shown = results()->shownResult()->a().sensitivity;
      QVERIFY(shown.computed);
      QCOMPARE(shown.constraints.size(), expected.constraints.size());
      for (std::size_t i = 0; i < expected.constraints.size(); ++i) {
        QCOMPARE(shown.constraints[i].constraint, expected.constraints[i].constraint);
        QVERIFY(shown.constraints[i].nsPerUnit && expected.constraints[i].nsPerUnit);
        QVERIFY(
            test::close(*shown.constraints[i].nsPerUnit, *expected.constraints[i].nsPerUnit, 1e-4));
      }
      QVERIFY(view->bottleneckText().contains(QStringLiteral("+1 GB/s on one dimension alone")));
    };
    verifyAgainstEngine();
    const QStringList before = view->rowTexts();
    QVERIFY(before.first().startsWith(QStringLiteral("total == 1000: −")));
    QVERIFY(before.first().endsWith(QStringLiteral(" per GB/s")));

    // A budget step: a new optimum, new rates, shown without a stale mark.
    auto* slider = window_->findChild<QSlider*>(QStringLiteral("totalBandwidthSlider"));
    QVERIFY(slider);
    slider->setFocus();
    QTest::keyClick(slider, Qt::Key_PageUp);
    QVERIFY(waitForCurrentFrame());
    verifyAgainstEngine();
    QVERIFY(view->rowTexts() != before);
    QVERIFY(view->isCurrent());

    const QString shot = QDir::temp().filePath(QStringLiteral("libra-sensitivity.png"));
    QVERIFY(window_->grab().save(shot));
    QVERIFY(
        view->grab().save(QDir::temp().filePath(QStringLiteral("libra-sensitivity-panel.png"))));
  }

  // Units follow the magnitude (an iteration of seconds is plotted in s, not in
  // thousands of ms) and the axes never go below zero (at a total of 60 GB/s
  // the slow equal split once pushed the time axis to -100000 ms).
  void axesUseUnitsPerMagnitudeAndNeverGoNegative() {
    const ChartUnits small = ChartUnits::forExtent(5e5, 5e5);
    QCOMPARE(small.costUnit, QStringLiteral("thousand $"));
    QCOMPARE(small.timeUnit, QStringLiteral("µs"));
    const ChartUnits large = ChartUnits::forExtent(2e9, 2e9);
    QCOMPARE(large.costUnit, QStringLiteral("billion $"));
    QCOMPARE(large.timeUnit, QStringLiteral("s"));
    QVERIFY(large.toChart(3e9, 4e9) == QPointF(3, 4));

    ParetoChartView* chart = results()->paretoChart();
    auto* spin = window_->findChild<QDoubleSpinBox*>(QStringLiteral("totalBandwidthSpin"));
    QVERIFY(spin && spin->isVisible());
    QStringList units;
    for (double total : {60.0, 1000.0, 5000.0}) {
      // Typed into the total's spin box, as a user would.
      spin->setFocus();
      QTest::keyClick(spin, Qt::Key_A, Qt::ControlModifier);
      QTest::keyClicks(spin, QString::number(total));
      QTest::keyClick(spin, Qt::Key_Return);
      QVERIFY(splitConstraints(doc()->project().constraints).totalBandwidth ==
              std::optional<double>(total));
      QVERIFY(waitForCurrentFrame());
      verifyChartMatchesEngine();
      // The slowest design of each chart decides its unit.
      const Analysis& a = results()->shownResult()->a();
      const double slowestBar =
          std::max(a.design.eval.iterationNs, a.baseline->design.eval.iterationNs);
      double slowestPoint = slowestBar;
      for (const Solution& s : results()->shownFront()->a().front.points)
        slowestPoint = std::max(slowestPoint, s.eval.iterationNs);
      const QString unit = slowestPoint >= 1e9 ? QStringLiteral("s") : QStringLiteral("ms");
      units << chart->timeAxis()->titleText();
      QVERIFY2(chart->timeAxis()->titleText().endsWith(QStringLiteral("(") + unit + ')'),
               qPrintable(chart->timeAxis()->titleText()));
      QCOMPARE(results()->breakdownChart()->timeAxis()->titleText(),
               slowestBar >= 1e9 ? QStringLiteral("s") : QStringLiteral("ms"));
      QVERIFY2(chart->timeAxis()->min() >= 0,
               qPrintable(QString::number(chart->timeAxis()->min())));
      QVERIFY(chart->costAxis()->min() >= 0);
      QVERIFY(chart->timeAxis()->max() >= chartOptimum().y());
      // The tick labels as drawn: numbers, none below zero, the top one above the optimum.
      const QStringList ticks = axisLabels(chart, Qt::Vertical);
      QVERIFY2(ticks.size() >= 3, qPrintable(ticks.join(QLatin1Char(' '))));
      double highest = -1;
      for (const QString& tick : ticks) {
        bool number = false;
        const double value = tick.toDouble(&number);
        QVERIFY2(number && value >= 0 && !tick.startsWith(QLatin1Char('-')),
                 qPrintable(ticks.join(QLatin1Char(' '))));
        highest = std::max(highest, value);
      }
      QVERIFY2(highest >= chartOptimum().y(), qPrintable(ticks.join(QLatin1Char(' '))));
    }
    // The case of seconds was reached (this example's compute alone takes 1.5 s).
    QVERIFY2(units.front().endsWith(QStringLiteral("(s)")), qPrintable(units.join(", ")));
  }

  // The equal split can sit far from the front ($69 M against a front that
  // ends at $23 M here) and squash it: a click on its legend entry hides it and
  // the axes fit the front; it stays hidden across solves; a click brings it back.
  void theEqualSplitCanBeHiddenToFitTheFront() {
    ParetoChartView* chart = results()->paretoChart();
    QScatterSeries* equal = chart->equalSplitSeries();
    QCOMPARE(equal->count(), 1);
    const double equalCost = equal->at(0).x();
    double frontMax = 0;
    for (const QPointF& p : chart->frontSeries()->points()) frontMax = std::max(frontMax, p.x());
    QVERIFY2(equalCost > 2 * frontMax, "the bundled example's equal split lies far right");
    QVERIFY(chart->costAxis()->max() >= equalCost);
    const auto markers = chart->chart()->legend()->markers(equal);
    QCOMPARE(markers.size(), 1);
    // A real click on the entry, where it is drawn.
    const QPoint entry = legendEntryPosition(chart, markers.front()->label());
    QVERIFY2(chart->viewport()->rect().contains(entry), qPrintable(markers.front()->label()));
    QTest::mouseClick(chart->viewport(), Qt::LeftButton, Qt::NoModifier, entry);
    QVERIFY(!chart->equalSplitShown());
    QVERIFY(!equal->isVisible());
    QVERIFY(markers.front()->isVisible());  // still there to click back
    QVERIFY(chart->costAxis()->max() < equalCost);
    QVERIFY(chart->costAxis()->max() >= frontMax);
    doc()->edit(QStringLiteral("total"), [](Project& p) { setTotalBandwidth(p, 900); });
    QVERIFY(waitForCurrentFrame());
    verifyChartMatchesEngine();
    QVERIFY(!equal->isVisible());
    const double hiddenCost =
        results()->shownResult()->a().baseline->design.eval.costUsd / chart->units().usdPerUnit;
    QVERIFY(chart->costAxis()->max() < hiddenCost);
    // The exported figure is the chart on screen: its cost axis ends where the
    // screen's does (issue 28 item 8: the hidden equal split came back and
    // stretched it).
    {
      QTemporaryDir dir;
      const QString svg = dir.filePath(QStringLiteral("hidden.svg"));
      QString error;
      QVERIFY2(window_->exports()->exportTo(svg, &error), qPrintable(error));
      QFile file(svg);
      QVERIFY(file.open(QIODevice::ReadOnly));
      const QString text = QString::fromUtf8(file.readAll());
      const QString last = QString::asprintf(
          chart->costAxis()->labelFormat().toLatin1().constData(), chart->costAxis()->max());
      QVERIFY2(text.contains(QStringLiteral(">%1<").arg(last)), qPrintable(last));
      const QString beyond = QString::asprintf(
          chart->costAxis()->labelFormat().toLatin1().constData(), std::ceil(hiddenCost / 10) * 10);
      QVERIFY2(!text.contains(QStringLiteral(">%1<").arg(beyond)), qPrintable(beyond));
    }
    const QPoint greyed = legendEntryPosition(chart, markers.front()->label());
    QVERIFY(chart->viewport()->rect().contains(greyed));
    QTest::mouseClick(chart->viewport(), Qt::LeftButton, Qt::NoModifier, greyed);
    QVERIFY(chart->equalSplitShown());
    QVERIFY(equal->isVisible());
    QCOMPARE(equal->count(), 1);
    QVERIFY(chart->costAxis()->max() >= equal->at(0).x());
  }

  void editingANpuCountMovesTheChartToTheNewOptimum() {
    auto* table = window_->findChild<QTableView*>(QStringLiteral("dimensionTable"));
    QVERIFY(table);
    const QPointF before = chartOptimum();
    const QModelIndex index = table->model()->index(2, DimensionTableModel::Npus);
    table->setCurrentIndex(index);
    table->edit(index);
    auto* editor = table->viewport()->findChild<QSpinBox*>();
    QVERIFY(editor);
    editor->selectAll();
    QTest::keyClicks(editor, QStringLiteral("8"));
    QTest::keyClick(editor, Qt::Key_Return);  // the delegate commits on the next loop turn
    QTRY_COMPARE(doc()->project().network.dims[2].npus, 8);
    QVERIFY(waitForCurrentFrame());
    verifyChartMatchesEngine();
    QVERIFY(!samePoint(chartOptimum(), before));
    QCOMPARE(window_->findChild<QLabel*>(QStringLiteral("totalNpus"))->text(),
             QStringLiteral("<b>8,192</b> NPUs"));
    QVERIFY(window_->isWindowModified());
  }

  void oneSliderDragIsOneUndoStepAndUndoRestoresTheOptimum() {
    auto* slider = window_->findChild<QSlider*>(QStringLiteral("totalBandwidthSlider"));
    QVERIFY(slider && slider->isEnabled());
    const QPointF before = chartOptimum();
    const int valueBefore = slider->value();
    const int stepsBefore = doc()->undoStack()->count();
    QSignalSpy values(slider, &QSlider::valueChanged);
    dragSlider(slider, 40, 20);
    QVERIFY2(values.count() > 5, "the drag should move the slider through many values");
    QVERIFY(slider->value() > valueBefore);
    QCOMPARE(doc()->undoStack()->count(), stepsBefore + 1);
    QVERIFY(splitConstraints(doc()->project().constraints).totalBandwidth ==
            std::optional<double>(slider->value()));
    // The one step is named after the value the drag ended on, not its first.
    QAction* undo = window_->findChild<QAction*>(QStringLiteral("undoAction"));
    QCOMPARE(undo->text(), QStringLiteral("&Undo Set the total bandwidth to %1")
                               .arg(formatBandwidth(slider->value())));
    QVERIFY(values.first().first().toInt() != slider->value());
    QVERIFY(waitForCurrentFrame());
    verifyChartMatchesEngine();
    QVERIFY(!samePoint(chartOptimum(), before));

    undo->trigger();
    QCOMPARE(slider->value(), valueBefore);
    QVERIFY(waitForCurrentFrame());
    QVERIFY(samePoint(chartOptimum(), before));
    QVERIFY(!window_->isWindowModified());
    window_->findChild<QAction*>(QStringLiteral("redoAction"))->trigger();
    QVERIFY(waitForCurrentFrame());
    verifyChartMatchesEngine();
  }

  // While the mouse drags a control the fronts are coarse (at most
  // kDragFrontPoints points, so that they keep up with a 60 Hz pointer) and
  // the summary and status lines change at most every 100 ms; when the drag
  // ends the project's own front, the summary and the status follow at once.
  void aDragShowsCoarseFrontsThenTheProjectsOwn() {
    auto* slider = window_->findChild<QSlider*>(QStringLiteral("totalBandwidthSlider"));
    QVERIFY(slider && slider->isEnabled());
    const int points = paretoPointsOf(doc()->project());
    QVERIFY(points > ExplorerController::kDragFrontPoints);  // premise: the project's are finer
    QVERIFY(waitForCurrentFrame());
    QCOMPARE(static_cast<int>(results()->shownFront()->a().front.points.size()), points);

    const QPoint start = sliderHandleCenter(slider);
    QTest::mousePress(slider, Qt::LeftButton, Qt::NoModifier, start);
    QVERIFY(results()->axesHeld());
    QElapsedTimer drag;
    drag.start();
    int summaryChanges = 0, statusChanges = 0;
    QString summary = results()->summaryText(), status = window_->statusLabel()->text();
    // The status line and the summary change between frames, never while a
    // result waits for its frame: their layout would hold that frame back.
    int textsInAFrame = 0;
    const auto statusWatch = connect(window_->explorer(), &ExplorerController::statusChanged, this,
                                     [&] { textsInAFrame += results()->framePending(); });
    int coarseFronts = 0;
    quint64 lastFront = results()->shownFront()->generation;
    bool finerFront = false;
    std::size_t finerPoints = 0;
    const auto observe = [&] {
      if (results()->summaryText() != summary) ++summaryChanges, summary = results()->summaryText();
      if (window_->statusLabel()->text() != status)
        ++statusChanges, status = window_->statusLabel()->text();
      const SolveResultPtr front = results()->shownFront();
      if (front->generation != lastFront) {
        lastFront = front->generation;
        ++coarseFronts;
        if (front->a().front.points.size() >
            static_cast<std::size_t>(ExplorerController::kDragFrontPoints))
          finerFront = true, finerPoints = front->a().front.points.size();
      }
    };
    for (int i = 1; i <= 40; ++i) {
      const QPoint p = start + QPoint(i, 0);
      QMouseEvent move(QEvent::MouseMove, p, slider->mapToGlobal(p), Qt::NoButton, Qt::LeftButton,
                       Qt::NoModifier);
      QApplication::sendEvent(slider, &move);
      for (int ms = 0; ms < 16; ++ms) {
        QTest::qWait(1);
        observe();
      }
    }
    // Where solves are slow (a sanitizer build on a loaded machine) the fronts
    // of a fast drag are superseded before they finish; with the mouse held
    // still, the last one must then arrive, coarse, while the drag goes on.
    QElapsedTimer held;
    held.start();
    while (coarseFronts == 0 && held.elapsed() < 20000) {
      QTest::qWait(5);
      observe();
    }
    QVERIFY2(!finerFront,
             qPrintable(QStringLiteral("a front of %1 points during the drag").arg(finerPoints)));
    QVERIFY(results()->axesHeld());
    const qint64 dragMs = drag.elapsed();
    QVERIFY2(coarseFronts > 0, "no front reached the screen during the drag");
    // At most one change per 100 ms (and the one the drag began with).
    const int allowed = static_cast<int>(dragMs / ResultsView::kHeldTextIntervalMs) + 2;
    QVERIFY2(
        summaryChanges <= allowed,
        qPrintable(QStringLiteral("%1 summary changes in %2 ms").arg(summaryChanges).arg(dragMs)));
    QVERIFY2(
        statusChanges <= allowed,
        qPrintable(QStringLiteral("%1 status changes in %2 ms").arg(statusChanges).arg(dragMs)));
    QVERIFY(summaryChanges > 0);  // premise: the text does follow, only less often
    disconnect(statusWatch);
    QCOMPARE(textsInAFrame, 0);

    QTest::mouseRelease(slider, Qt::LeftButton, Qt::NoModifier, start + QPoint(40, 0));
    QVERIFY(!results()->axesHeld());
    QVERIFY(waitForCurrentFrame());
    const SolveResultPtr shown = results()->shownResult();
    QCOMPARE(results()->shownFront(), shown);
    QCOMPARE(static_cast<int>(shown->a().front.points.size()), points);
    QCOMPARE(splitConstraints(shown->project->constraints).totalBandwidth,
             std::optional<double>(slider->value()));
    QVERIFY2(results()->summaryText().contains(formatTimeNs(shown->a().design.eval.iterationNs)),
             qPrintable(results()->summaryText()));
    QTRY_VERIFY(window_->statusLabel()->text().contains(QStringLiteral("%1-point").arg(points)));
    verifyChartMatchesEngine();
  }

  // A change whose front is slow to solve (here 400 points) is shown with a
  // coarse front first, then the project's: the design is the same in both, and
  // the change is on screen without waiting for the fine front.
  void aSlowFrontComesCoarseFirstThenTheProjectsOwn() {
    constexpr int kPoints = 400;
    doc()->edit(QStringLiteral("points"), [](Project& p) { setParetoPoints(p, kPoints); });
    QVERIFY(waitForCurrentFrame());  // the first 400-point front: its time is learnt
    QCOMPARE(static_cast<int>(results()->shownFront()->a().front.points.size()), kPoints);
    QVERIFY(window_->explorer()->solver()->frontMsAt(kPoints) >
            ExplorerController::kCoarseFirstAboveMs);  // premise
    // The fronts of the change shown, in order (a frame of its design alone
    // still draws the last front, of the inputs before).
    std::vector<SolveResultPtr> fronts;
    const quint64 before = window_->explorer()->solver()->latestGeneration();
    const auto watch = connect(results(), &ResultsView::resultShown, this, [&](quint64) {
      const SolveResultPtr front = results()->shownFront();
      if (front && front->generation > before && (fronts.empty() || fronts.back() != front))
        fronts.push_back(front);
    });
    const double total = *splitConstraints(doc()->project().constraints).totalBandwidth + 50;
    doc()->edit(QStringLiteral("total"), [&](Project& p) { setTotalBandwidth(p, total); });
    QVERIFY(waitForCurrentFrame());
    disconnect(watch);
    QCOMPARE(fronts.size(), std::size_t(2));
    QCOMPARE(static_cast<int>(fronts[0]->a().front.points.size()),
             ExplorerController::kDragFrontPoints);
    QCOMPARE(static_cast<int>(fronts[1]->a().front.points.size()), kPoints);
    QVERIFY(fronts[0]->generation < fronts[1]->generation);
    QCOMPARE(fronts[0]->a().design.bandwidth, fronts[1]->a().design.bandwidth);
    QCOMPARE(splitConstraints(fronts[1]->project->constraints).totalBandwidth,
             std::optional<double>(total));
    verifyChartMatchesEngine();
  }

  // Ctrl+Z with the focus in a spin box used to undo the spin box's text (or
  // nothing), not the project. The keys go through the shortcut map as typed.
  void undoShortcutsWorkWhileASpinBoxHasFocus() {
    auto* count = window_->findChild<QSpinBox*>(QStringLiteral("dimensionCount"));
    QVERIFY(count);
    const int dimsBefore = doc()->project().network.size();
    count->setFocus();
    QTRY_VERIFY(count->hasFocus());
    count->stepDown();
    QTRY_COMPARE(static_cast<int>(doc()->project().network.size()), dimsBefore - 1);
    QTest::keyClick(count, Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(static_cast<int>(doc()->project().network.size()), dimsBefore);
    QCOMPARE(count->value(), dimsBefore);
    QTest::keySequence(count, QKeySequence(QKeySequence::Redo));
    QCOMPARE(static_cast<int>(doc()->project().network.size()), dimsBefore - 1);
    QVERIFY(waitForCurrentFrame());
    verifyChartMatchesEngine();
  }

  // A burst of changes: the screen ends on the last value, frames only go
  // forward, and a result already superseded by a newer change is shown only
  // once the screen has been out of date for a frame interval (it is then the
  // freshest there is; before, the newer result is on its way).
  void rapidSliderChangesEndOnTheLastValueAndNeverPaintAStaleResult() {
    auto* slider = window_->findChild<QSlider*>(QStringLiteral("totalBandwidthSlider"));
    ParetoChartView* chart = results()->paretoChart();
    const int paintedBefore = chart->paintedGenerations().size();
    int staleShown = 0;
    QElapsedTimer burst;
    connect(results(), &ResultsView::resultShown, this, [&](quint64 generation) {
      if (generation != solver()->latestGeneration() &&
          burst.elapsed() < ResultsView::kShowSupersededAfterMs)
        ++staleShown;
    });
    burst.start();
    int last = 0;
    for (int i = 0; i < 100; ++i) {
      last = 300 + 7 * i;
      slider->setValue(last);
      if (i % 9 == 0) QTest::qWait(1);  // let some results arrive mid-burst
    }
    QVERIFY(waitForCurrentFrame());
    QVERIFY(splitConstraints(doc()->project().constraints).totalBandwidth ==
            std::optional<double>(last));
    verifyChartMatchesEngine();
    QCOMPARE(staleShown, 0);
    const QList<quint64> painted = chart->paintedGenerations().mid(paintedBefore);
    QVERIFY(!painted.isEmpty());
    for (int i = 1; i < painted.size(); ++i)
      QVERIFY2(painted[i] > painted[i - 1], "a frame went back in time");
    QCOMPARE(painted.back(), solver()->latestGeneration());
    // Never more than one frame per result, and far fewer frames than changes.
    QVERIFY(painted.size() < 100);
  }

  // Solves slower than the pointer (40 ms against a tick every 16 ms): frames
  // still reach the screen at least every 100 ms during the drag, go forward
  // only, and the last one shows the value the drag ended on.
  void aDragWithSlowSolvesStaysLive() {
    window_->explorer()->setArtificialDelayMs(40);
    auto* slider = window_->findChild<QSlider*>(QStringLiteral("totalBandwidthSlider"));
    BandwidthChartView* bars = results()->bandwidthChart();
    // One slow solve first, as after opening the project.
    slider->setValue(slider->value() + 1);
    QVERIFY(waitForCurrentFrame());
    QElapsedTimer clock;
    std::vector<qint64> paintedAt;
    std::vector<quint64> generations;
    double longestJobMs = 0;    // the time a job took to its design, as measured by the job
    double longestFrontMs = 0;  // the time a job took from its design to its front
    std::map<quint64, double> designMs;
    connect(solver(), &SolverController::resultReady, this, [&](const SolveResultPtr& r) {
      if (!r->complete) {
        longestJobMs = std::max(longestJobMs, r->elapsedMs);
        designMs[r->generation] = r->elapsedMs;
      } else if (designMs.count(r->generation)) {
        longestFrontMs = std::max(longestFrontMs, r->elapsedMs - designMs[r->generation]);
      }
    });
    connect(bars, &ResultChartView::framePainted, this, [&](quint64 generation) {
      paintedAt.push_back(clock.elapsed());
      generations.push_back(generation);
    });
    slider->setSliderDown(true);
    clock.start();
    const int base = slider->value();
    // How late the GUI thread's own 16 ms ticks come back: on a machine loaded by
    // other processes the thread itself is not scheduled for that long, and no
    // frame can be painted meanwhile, whatever the controller does.
    qint64 worstTickLateMs = 0;
    for (int i = 1; i <= 60; ++i) {  // ~1 s at 60 Hz
      const qint64 tick = clock.elapsed();
      slider->setValue(base + (i % 2 == 0 ? i : -i));
      QTest::qWait(16);
      worstTickLateMs = std::max(worstTickLateMs, clock.elapsed() - tick - 16);
    }
    const qint64 released = clock.elapsed();
    slider->setSliderDown(false);
    QVERIFY(waitForCurrentFrame());
    window_->explorer()->setArtificialDelayMs(0);
    qint64 previous = 0, worst = 0;
    for (qint64 t : paintedAt) {
      if (t > released) break;
      worst = std::max(worst, t - previous);
      previous = t;
    }
    worst = std::max(worst, released - previous);
    QString times;
    for (qint64 t : paintedAt) times += QString::number(t) + QLatin1Char(' ');
    // 100 ms; on a machine so loaded that a 40 ms job takes longer than that,
    // no scheduler can do better than the rest of a superseded job plus the
    // newest one (plus a frame) per gap, and not while the GUI thread itself is
    // descheduled (its late ticks). A clean-clone CI run under ASan once showed
    // a 153 ms gap against a bound of 1.25 jobs (131 ms); the defect this
    // guards against left the whole drag (over 1 s) without a frame. A front the
    // controller lets finish (so the Pareto chart too follows a slow drag) holds
    // the next design up by at most its own time: one front is added.
    const double bound = std::max(100.0, 2.5 * longestJobMs + ResultsView::kMinFrameIntervalMs) +
                         longestFrontMs + static_cast<double>(worstTickLateMs);
    QVERIFY2(worst <= bound,
             qPrintable(QStringLiteral("%1 ms without a frame (bound %4 ms, GUI ticks up "
                                       "to %5 ms late, a front took up to %6 ms); painted at "
                                       "%2, released at %3")
                            .arg(worst)
                            .arg(times)
                            .arg(released)
                            .arg(bound)
                            .arg(worstTickLateMs)
                            .arg(longestFrontMs)));
    for (std::size_t i = 1; i < generations.size(); ++i)
      QVERIFY2(generations[i] > generations[i - 1], "a frame went back in time");
    QCOMPARE(generations.back(), solver()->latestGeneration());
    verifyChartMatchesEngine();
  }

  // The header says what the design means for training (tokens, throughput,
  // MFU, memory against the device's HBM), and the cost scope switches what the
  // cost counts: the header, the Pareto axis and the engine's answer follow,
  // and undo restores the network-only cost.
  void headerShowsTrainingAndTheCostScope() {
    QVERIFY(waitForCurrentFrame());
    const QString text = results()->summaryText();
    QVERIFY2(text.contains(QStringLiteral("tokens per iteration")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("tokens/s")), qPrintable(text));
    // Large counts read with thousands separators, as the CLI and the report print them.
    const Analysis& a = results()->shownResult()->a();
    QVERIFY(a.training.tokensPerIteration && *a.training.tokensPerIteration >= 1000);
    QVERIFY2(text.contains(formatCount(*a.training.tokensPerIteration) +
                           QStringLiteral(" tokens per iteration")),
             qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("MFU")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("GB per NPU")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("network cost")), qPrintable(text));
    auto* scope = window_->findChild<QComboBox*>(QStringLiteral("costScopeCombo"));
    QVERIFY(scope);
    scope->setCurrentIndex(scope->findData(static_cast<int>(CostScope::System)));
    Q_EMIT scope->activated(scope->currentIndex());
    QVERIFY(doc()->project().costScope == CostScope::System);
    QVERIFY(waitForCurrentFrame());
    verifyChartMatchesEngine();
    const QString system = results()->summaryText();
    QVERIFY2(system.contains(QStringLiteral("system cost")), qPrintable(system));
    QVERIFY2(system.contains(QStringLiteral("NPUs")), qPrintable(system));
    doc()->undoStack()->undo();
    QVERIFY(doc()->project().costScope == CostScope::Network);
  }

  // The header compares the design with the equal split of the same total by
  // iteration time, as the engine's Analysis does: a design the equal split
  // beats is "slower" (once "0.81× faster", and the ratio was of the exposed
  // communication only), and in perf-per-cost mode the gain in time × cost is
  // shown too. A typed constraint starves one dimension so the equal split wins.
  void theHeaderComparesIterationTimeWithTheEqualSplit() {
    auto* summary = window_->findChild<QLabel*>(QStringLiteral("resultsSummary"));
    QVERIFY(summary && summary->isVisible());
    // "against the equal split of the same total: 1.073× faster" / "1.234× slower",
    // then "1.500× better in time × cost".
    const QRegularExpression speed(
        QStringLiteral("equal split of the same total: (\\d+\\.\\d\\d\\d)× (faster|slower)"));
    const QRegularExpression gain(
        QStringLiteral("(\\d+\\.\\d\\d\\d)× (better|worse) in time × cost"));
    // The ratio shown, as the engine's: iteration time, > 1 faster.
    auto verifyAgainstEngine = [&](const QString& text) {
      const Analysis& a = results()->shownResult()->a();
      QVERIFY(a.baseline && a.baseline->speedup && a.baseline->communicationSpeedup);
      const QRegularExpressionMatch m = speed.match(text);
      QVERIFY2(m.hasMatch(), qPrintable(text));
      const double speedup = *a.baseline->speedup;
      const double shown = speedup >= 1 ? speedup : 1 / speedup;
      QCOMPARE(m.captured(1), QString::number(shown, 'f', 3));
      QCOMPARE(m.captured(2), speedup >= 1 ? QStringLiteral("faster") : QStringLiteral("slower"));
      // The engine's own numbers: the equal split's iteration over the design's.
      QVERIFY(test::close(speedup, a.baseline->design.eval.iterationNs / a.design.eval.iterationNs,
                          1e-9));
    };
    QVERIFY(waitForCurrentFrame());
    verifyAgainstEngine(summary->text());
    if (QTest::currentTestFailed()) return;
    QVERIFY2(summary->text().contains(QStringLiteral("faster")), qPrintable(summary->text()));
    QVERIFY(!gain.match(summary->text()).hasMatch());  // performance: time only

    // Starve the first dimension: the constrained optimum is slower than the equal split.
    auto* constraints = window_->findChild<ConstraintEditor*>(QStringLiteral("constraintEditor"));
    QVERIFY(constraints);
    QPlainTextEdit* editor = constraints->textEdit();
    QVERIFY(editor->isVisible());
    editor->setFocus();
    QTest::keyClick(editor, Qt::Key_A, Qt::ControlModifier);  // over the example's own line
    QTest::keyClicks(editor, QStringLiteral("bw[0] <= 20"));
    QTRY_VERIFY_WITH_TIMEOUT(splitConstraints(doc()->project().constraints).extra ==
                                 std::vector<std::string>{"bw[0] <= 20"},
                             5000);
    QVERIFY(waitForCurrentFrame());
    verifyChartMatchesEngine();
    const Analysis& slow = results()->shownResult()->a();
    QVERIFY2(*slow.baseline->speedup < 1, "the equal split should win here");
    // The premise that tells the ratios apart: communication alone says otherwise.
    QVERIFY(QString::number(*slow.baseline->communicationSpeedup, 'f', 2) !=
            QString::number(*slow.baseline->speedup, 'f', 2));
    const QString slower = summary->text();
    verifyAgainstEngine(slower);
    if (QTest::currentTestFailed()) return;
    QVERIFY2(slower.contains(QStringLiteral("slower")), qPrintable(slower));
    QVERIFY2(!slower.contains(QStringLiteral("faster")), qPrintable(slower));
    QVERIFY2(slower.contains(QStringLiteral("which breaks 1 constraint")), qPrintable(slower));

    // Perf per cost, chosen with the keyboard: the time × cost gain joins the ratio.
    auto* objective = window_->findChild<QComboBox*>(QStringLiteral("objectiveCombo"));
    QVERIFY(objective);
    objective->setFocus();
    QTest::keyClick(objective, Qt::Key_Down);
    QVERIFY(doc()->project().objective == Objective::PerfPerCost);
    QVERIFY(waitForCurrentFrame());
    const QString perCost = summary->text();
    verifyAgainstEngine(perCost);
    if (QTest::currentTestFailed()) return;
    const Analysis& a = results()->shownResult()->a();
    QVERIFY(a.baseline->timeCostGain);
    const QRegularExpressionMatch g = gain.match(perCost);
    QVERIFY2(g.hasMatch(), qPrintable(perCost));
    const double timeCost = *a.baseline->timeCostGain;
    QCOMPARE(g.captured(1), QString::number(timeCost >= 1 ? timeCost : 1 / timeCost, 'f', 3));
    QCOMPARE(g.captured(2), timeCost >= 1 ? QStringLiteral("better") : QStringLiteral("worse"));
    QVERIFY(test::close(timeCost,
                        a.baseline->design.eval.iterationNs * a.baseline->design.eval.costUsd /
                            (a.design.eval.iterationNs * a.design.eval.costUsd),
                        1e-9));
  }

  // The collective model is edited in the window: chunks in the workload panel,
  // latencies in the network table; both re-solve, undo restores.
  void chunksAndLatenciesAreEditedAndResolved() {
    auto* chunks = window_->findChild<QComboBox*>(QStringLiteral("chunksCombo"));
    QVERIFY(chunks);
    QCOMPARE(toQString(doc()->project().model.collectives.chunks.toString()),
             QStringLiteral("auto"));  // the bundled example starts on 'auto'
    chunks->setFocus();
    chunks->lineEdit()->selectAll();
    QTest::keyClicks(chunks->lineEdit(), QStringLiteral("4"));
    QTest::keyClick(chunks->lineEdit(), Qt::Key_Return);
    QVERIFY(doc()->project().model.collectives.chunks == ChunkSetting::fixed(4));
    QVERIFY(waitForCurrentFrame());
    verifyChartMatchesEngine();
    QVERIFY(results()->summaryText().contains(QStringLiteral("4 chunks per collective")));
    // A bad count changes nothing, and the status bar says why (issue 28
    // item 9: it was reverted without a word).
    for (const QString& bad :
         {QStringLiteral("0"), QStringLiteral("5000"), QStringLiteral("abc")}) {
      window_->statusBar()->clearMessage();
      chunks->lineEdit()->selectAll();
      QTest::keyClicks(chunks->lineEdit(), bad);
      QTest::keyClick(chunks->lineEdit(), Qt::Key_Return);
      QVERIFY(doc()->project().model.collectives.chunks == ChunkSetting::fixed(4));
      QCOMPARE(chunks->currentText(), QStringLiteral("4"));
      const QString said = window_->statusBar()->currentMessage();
      QVERIFY2(said.contains(QStringLiteral("'%1' is not a chunk count").arg(bad)),
               qPrintable(said));
    }
    // The ideal model from the list.
    chunks->setCurrentIndex(chunks->findData(QStringLiteral("ideal")));
    Q_EMIT chunks->activated(chunks->currentIndex());
    QVERIFY(doc()->project().model.collectives.chunks.isIdeal());
    QVERIFY(waitForCurrentFrame());
    verifyChartMatchesEngine();
    QVERIFY(results()->summaryText().contains(QStringLiteral("ideal collective model")));
    doc()->undoStack()->undo();
    QVERIFY(doc()->project().model.collectives.chunks == ChunkSetting::fixed(4));
    QCOMPARE(chunks->currentText(), QStringLiteral("4"));

    auto* table = window_->findChild<QTableView*>(QStringLiteral("dimensionTable"));
    const QModelIndex latency = table->model()->index(3, DimensionTableModel::Latency);
    QCOMPARE(table->model()->data(latency).toString(), QStringLiteral("936.25 ns"));
    QVERIFY(table->model()->setData(latency, QStringLiteral("2000")));
    QCOMPARE(doc()->project().network.dims[3].latencyNs, 2000.0);
    QVERIFY(!table->model()->setData(latency, QStringLiteral("-1")));
    QVERIFY2(window_->statusBar()->currentMessage().contains(
                 QStringLiteral("Latency of pod not changed: '-1' is not a latency")),
             qPrintable(window_->statusBar()->currentMessage()));
    QVERIFY(!table->model()->setData(latency, QStringLiteral("abc")));
    QVERIFY(window_->statusBar()->currentMessage().contains(QStringLiteral("'abc'")));
    const QModelIndex npus = table->model()->index(3, DimensionTableModel::Npus);
    QVERIFY(!table->model()->setData(npus, QStringLiteral("1")));
    QVERIFY2(window_->statusBar()->currentMessage().contains(
                 QStringLiteral("NPUs of pod not changed: a dimension has at least 2 NPUs, not 1")),
             qPrintable(window_->statusBar()->currentMessage()));
    QCOMPARE(doc()->project().network.dims[3].npus, 32);
    QVERIFY(waitForCurrentFrame());
    verifyChartMatchesEngine();

    // The endpoint delay (issue 26 item 6): the bundled example has the default
    // 10 ns; a new value is one undoable edit that re-solves.
    auto* endpoint = window_->findChild<QDoubleSpinBox*>(QStringLiteral("endpointDelaySpin"));
    QVERIFY(endpoint);
    QCOMPARE(endpoint->value(), 10.0);
    QCOMPARE(doc()->project().network.endpointDelayNs, 10.0);
    endpoint->setValue(250);
    QCOMPARE(doc()->project().network.endpointDelayNs, 250.0);
    QVERIFY(doc()->undoStack()->undoText().contains(QStringLiteral("endpoint delay")));
    QVERIFY(waitForCurrentFrame());
    verifyChartMatchesEngine();
    doc()->undoStack()->undo();
    QCOMPARE(doc()->project().network.endpointDelayNs, 10.0);
    QCOMPARE(endpoint->value(), 10.0);
  }

  // The same failures as typed by a user. A cost level no one defined, typed
  // into the network table's editor, is invalid input; a constraint the total
  // cannot meet, typed into the constraint editor, is infeasible. Both leave
  // the last picture marked as not current; typing the valid text back makes it
  // current again.
  void typedInputThatFailsMarksEveryChartNotCurrent() {
    const quint64 shown = results()->shownGeneration();
    auto* table = window_->findChild<QTableView*>(QStringLiteral("dimensionTable"));
    QVERIFY(table && !table->visibleRegion().isEmpty());
    const QModelIndex level = table->model()->index(0, DimensionTableModel::CostLevel);
    const QString levelBefore = level.data(Qt::EditRole).toString();
    table->scrollTo(level);
    // A double-click on the cell (its first click, then the second), as the
    // table's tooltip says.
    QTest::mouseClick(table->viewport(), Qt::LeftButton, Qt::NoModifier,
                      table->visualRect(level).center());
    QCOMPARE(table->currentIndex(), level);
    QTest::mouseDClick(table->viewport(), Qt::LeftButton, Qt::NoModifier,
                       table->visualRect(level).center());
    auto* combo = table->viewport()->findChild<QComboBox*>();
    QVERIFY(combo && combo->isEditable());
    combo->lineEdit()->selectAll();
    QTest::keyClicks(combo->lineEdit(), QStringLiteral("Moon"));
    QTest::keyClick(combo->lineEdit(), Qt::Key_Return);
    QTRY_COMPARE(level.data(Qt::EditRole).toString(), QStringLiteral("Moon"));
    QTRY_VERIFY(window_->statusLabel()->text().startsWith(QStringLiteral("Invalid input")));
    verifyEveryChartShowsNotCurrent(QStringLiteral("Not current: Invalid input"),
                                    QStringLiteral("Moon"));
    if (QTest::currentTestFailed()) return;
    QCOMPARE(results()->shownGeneration(), shown);
    // Undone from the keyboard: current again.
    QVERIFY(activateMainWindow());
    QTest::keySequence(window_.get(), QKeySequence(QKeySequence::Undo));
    QCOMPARE(level.data(Qt::EditRole).toString(), levelBefore);
    QVERIFY(waitForCurrentFrame());
    QVERIFY(!results()->isMarkedStale());

    auto* constraints = window_->findChild<ConstraintEditor*>(QStringLiteral("constraintEditor"));
    QVERIFY(constraints);
    QPlainTextEdit* editor = constraints->textEdit();
    QVERIFY(!editor->visibleRegion().isEmpty());
    const QString typedBefore = editor->toPlainText();
    const std::vector<std::string> extraBefore =
        splitConstraints(doc()->project().constraints).extra;
    const quint64 good = results()->shownGeneration();
    editor->setFocus();
    QTest::keyClick(editor, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(editor, QStringLiteral("bw[chiplet] >= 2000"));  // the total is 1000
    QTRY_VERIFY_WITH_TIMEOUT(splitConstraints(doc()->project().constraints).extra ==
                                 std::vector<std::string>{"bw[chiplet] >= 2000"},
                             5000);
    QTRY_VERIFY_WITH_TIMEOUT(
        window_->statusLabel()->text().startsWith(QStringLiteral("Infeasible")), 10000);
    verifyEveryChartShowsNotCurrent(QStringLiteral("Not current: Infeasible"),
                                    QStringLiteral("Infeasible"));
    if (QTest::currentTestFailed()) return;
    QCOMPARE(results()->shownGeneration(), good);
    test::saveScreenshot(window_.get(), QStringLiteral("explorer-typed-infeasible"));
    // The example's own constraint typed back: current, no badge left.
    editor->setFocus();
    QTest::keyClick(editor, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(editor, typedBefore);
    QTRY_VERIFY_WITH_TIMEOUT(splitConstraints(doc()->project().constraints).extra == extraBefore,
                             5000);
    QVERIFY(waitForCurrentFrame());
    QVERIFY(!results()->isMarkedStale());
    for (ResultChartView* c : std::initializer_list<ResultChartView*>{
             results()->paretoChart(), results()->bandwidthChart(), results()->breakdownChart()}) {
      QVERIFY(!c->isStale());
      QVERIFY(!c->findChild<QLabel*>(QStringLiteral("staleLabel"))->isVisible());
    }
    QVERIFY(results()->sensitivityView()->isCurrent());
    verifyChartMatchesEngine();
  }

  void anInvalidEditKeepsThePreviousResultMarkedStale() {
    const quint64 shown = results()->shownGeneration();
    auto* table = window_->findChild<QTableView*>(QStringLiteral("dimensionTable"));
    QVERIFY(table->model()->setData(table->model()->index(0, DimensionTableModel::CostLevel),
                                    QStringLiteral("Moon")));
    QTRY_VERIFY(window_->statusLabel()->text().startsWith(QStringLiteral("Invalid input")));
    QVERIFY(window_->statusLabel()->text().contains(QStringLiteral("Moon")));
    QTRY_VERIFY(results()->isMarkedStale());
    // Every chart says it is not current, and no "Updating…" is left behind.
    for (ResultChartView* c : std::initializer_list<ResultChartView*>{
             results()->paretoChart(), results()->bandwidthChart(), results()->breakdownChart()}) {
      QVERIFY(c->isStale());
      QVERIFY2(c->staleReason().startsWith(QStringLiteral("Not current")),
               qPrintable(c->staleReason()));
    }
    QVERIFY(results()->summaryText().contains(QStringLiteral("Moon")));
    QVERIFY(results()->summaryText().contains(QStringLiteral("last solved design")));
    QCOMPARE(results()->shownGeneration(), shown);
    doc()->undoStack()->undo();
    QVERIFY(waitForCurrentFrame());
    QVERIFY(!results()->isMarkedStale());
  }

  // A solve that fails (infeasible constraints) leaves no "Updating…" badge on any
  // chart, marks every chart and the header as not current, and its badge sits
  // inside the plot: below the chart's title and whole within the chart.
  void aFailedSolveMarksEveryChartNotCurrent() {
    const quint64 shown = results()->shownGeneration();
    doc()->edit(QStringLiteral("constraint"),
                [](Project& p) { setExtraConstraints(p, {"bw[chiplet] >= 2000"}); });
    QTRY_VERIFY_WITH_TIMEOUT(
        window_->statusLabel()->text().startsWith(QStringLiteral("Infeasible")), 10000);
    QTest::qWait(400);  // longer than the delay after which a late solve says "Updating…"
    for (ResultChartView* c : std::initializer_list<ResultChartView*>{
             results()->paretoChart(), results()->bandwidthChart(), results()->breakdownChart()}) {
      QVERIFY(c->isStale());
      QVERIFY2(c->staleReason() == QStringLiteral("Not current: Infeasible"),
               qPrintable(c->staleReason()));
      auto* badge = c->findChild<QLabel*>(QStringLiteral("staleLabel"));
      QVERIFY(badge && badge->isVisible());
      QVERIFY2(c->rect().contains(badge->geometry()),
               qPrintable(QStringLiteral("%1 badge outside the chart").arg(c->objectName())));
      const QRectF plot = c->chart()->mapToScene(c->chart()->plotArea()).boundingRect();
      QVERIFY2(badge->geometry().top() >= c->mapFromScene(plot.topLeft()).y() - 1,
               qPrintable(QStringLiteral("%1 badge over the title").arg(c->objectName())));
      QVERIFY(badge->fontMetrics().horizontalAdvance(badge->text()) <=
                  badge->contentsRect().width() ||
              badge->wordWrap());
    }
    QVERIFY(results()->summaryText().contains(QStringLiteral("Infeasible")));
    QVERIFY(results()->summaryText().contains(QStringLiteral("last solved design")));
    QCOMPARE(results()->shownGeneration(), shown);
    // A long reason wraps inside the chart instead of running off its right edge.
    ResultChartView* bars = results()->bandwidthChart();
    bars->setStale(true, QStringLiteral("Not current: ") + QString(40, QLatin1Char('x')) +
                             QStringLiteral(" ") + QString(40, QLatin1Char('y')));
    auto* badge = bars->findChild<QLabel*>(QStringLiteral("staleLabel"));
    QVERIFY(bars->rect().contains(badge->geometry()));
    QVERIFY(badge->height() > badge->fontMetrics().height() * 3 / 2);  // two lines at least
    doc()->undoStack()->undo();
    QVERIFY(waitForCurrentFrame());
    QVERIFY(!results()->isMarkedStale());
    QVERIFY(!bars->isStale());
    QVERIFY(!badge->isVisible());
  }

  void costBudgetAndObjectiveReachTheChart() {
    window_->findChild<QCheckBox*>(QStringLiteral("costBudgetEnabled"))->click();
    const auto budget = splitConstraints(doc()->project().constraints).costBudget;
    QVERIFY(budget);
    QVERIFY(waitForCurrentFrame());
    verifyChartMatchesEngine();
    QVERIFY(chartOptimum().x() <= *budget / 1e6 * (1 + 1e-6));
    auto* objective = window_->findChild<QComboBox*>(QStringLiteral("objectiveCombo"));
    objective->setCurrentIndex(1);
    Q_EMIT objective->activated(1);
    QVERIFY(doc()->project().objective == Objective::PerfPerCost);
    QVERIFY(waitForCurrentFrame());
    verifyChartMatchesEngine();
  }

  // The bundled example's name describes its content. It follows the network and
  // the model until the user renames the project; an empty name follows again.
  void theProjectNameFollowsTheContentUntilItIsRenamed() {
    const std::string four = "GPT-3 175B on a 4D network (Ring 4 x FC 8 x Ring 4 x Switch 32)";
    QCOMPARE(doc()->project().name, four);
    QVERIFY2(window_->windowTitle().startsWith(QString::fromStdString(four)),
             qPrintable(window_->windowTitle()));

    // The model chosen with the mouse in the Model list.
    auto* preset = window_->findChild<QComboBox*>(QStringLiteral("presetCombo"));
    QVERIFY(preset);
    QVERIFY(clickDockTab(QStringLiteral("Workload")));  // its panel shares the dock area
    QVERIFY(chooseInCombo(preset, QStringLiteral("Mixtral 8x22B")));
    QCOMPARE(doc()->project().workloads.front().origin->preset, std::string("mixtral-8x22b"));
    const QString fourMixtral =
        QStringLiteral("Mixtral 8x22B on a 4D network (Ring 4 x FC 8 x Ring 4 x Switch 32)");
    QCOMPARE(QString::fromStdString(doc()->project().name), fourMixtral);
    QVERIFY2(window_->windowTitle().startsWith(fourMixtral), qPrintable(window_->windowTitle()));
    // Three dimensions typed into the count.
    auto* dims = window_->findChild<QSpinBox*>(QStringLiteral("dimensionCount"));
    QVERIFY(dims && !dims->visibleRegion().isEmpty());
    dims->setFocus();
    QTest::keyClick(dims, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(dims, QStringLiteral("3"));
    QTest::keyClick(dims, Qt::Key_Return);
    QCOMPARE(doc()->project().network.size(), std::size_t(3));
    const QString three = QString::fromStdString(doc()->project().name);
    QVERIFY2(three.startsWith(QStringLiteral("Mixtral 8x22B on a 3D network (")),
             qPrintable(three));
    QVERIFY(!three.contains(QStringLiteral("GPT-3")));
    QCOMPARE(doc()->project().name, describedName(doc()->project()));
    QVERIFY2(window_->windowTitle().startsWith(three), qPrintable(window_->windowTitle()));
    // This content solves: the result on screen is its own, current.
    QVERIFY(waitForCurrentFrame());
    QVERIFY2(results()->shownResult()->ok(), qPrintable(window_->statusLabel()->text()));
    QVERIFY(!results()->isMarkedStale());
    QCOMPARE(results()->shownResult()->project->name, three.toStdString());

    // The exports carry the name of what they show (drawn as the figure's
    // heading), and Save As suggests it.
    QTemporaryDir dir;
    QString error;
    const QString json = dir.filePath(QStringLiteral("r.json"));
    QVERIFY2(window_->exports()->exportTo(json, &error), qPrintable(error));
    QFile f(json);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(QJsonDocument::fromJson(f.readAll()).object().value("project").toString(), three);
    QCOMPARE(exportedHeading(), three + QStringLiteral(" — objective: performance"));
    QString suggested = saveAsSuggestion();
    QVERIFY2(suggested.startsWith(QStringLiteral("Mixtral-8x22B-on-a-3D-network-")) &&
                 suggested.endsWith(QStringLiteral(".json")) && !suggested.contains(' '),
             qPrintable(suggested));

    // A name chosen in File > Rename Project… stays through edits, is one undo
    // step, names the figures and the file Save As suggests, and is saved.
    const int steps = doc()->undoStack()->count();
    QCOMPARE(renameThroughTheMenu(QStringLiteral("  Pod study A ")), three);
    QCOMPARE(doc()->project().name, std::string("Pod study A"));
    QCOMPARE(doc()->undoStack()->count(), steps + 1);
    QVERIFY(window_->windowTitle().startsWith(QStringLiteral("Pod study A")));
    dims->setFocus();
    QTest::keyClick(dims, Qt::Key_Up);  // back to the 4D network
    QCOMPARE(doc()->project().network.size(), 4);
    QCOMPARE(doc()->project().name, std::string("Pod study A"));
    QCOMPARE(saveAsSuggestion(), QStringLiteral("Pod-study-A.json"));
    QCOMPARE(exportedHeading(), QStringLiteral("Pod study A — objective: performance"));
    const QString path = dir.filePath(QStringLiteral("named.json"));
    QVERIFY2(window_->files()->saveFile(path, &error), qPrintable(error));
    QCOMPARE(Document::loadFile(path).name, std::string("Pod study A"));
    // Back to the described name with an empty one; it follows edits again.
    QCOMPARE(renameThroughTheMenu(QStringLiteral(" ")), QStringLiteral("Pod study A"));
    QCOMPARE(doc()->project().name, describedName(doc()->project()));
    QTest::keyClick(dims, Qt::Key_Down);  // the 3D network again
    QCOMPARE(doc()->project().name, three.toStdString());
    QCOMPARE(exportedHeading(), three + QStringLiteral(" — objective: performance"));
    // Undo walks the names back with the content.
    doc()->undoStack()->undo();
    doc()->undoStack()->undo();
    QCOMPARE(doc()->project().name, std::string("Pod study A"));
    QVERIFY(window_->findChild<QAction*>(QStringLiteral("renameAction")) != nullptr);
  }

  // A project whose model and network were changed (and which was never
  // renamed) is saved under the name of that content, through File > Save As…
  // (Ctrl+Shift+S); a later change of content is saved (Ctrl+S) under the new name.
  void aSavedProjectIsNamedAfterItsContent() {
    auto* preset = window_->findChild<QComboBox*>(QStringLiteral("presetCombo"));
    QVERIFY(preset);
    QVERIFY(clickDockTab(QStringLiteral("Workload")));
    QVERIFY(chooseInCombo(preset, QStringLiteral("Mixtral 8x22B")));
    auto* dims = window_->findChild<QSpinBox*>(QStringLiteral("dimensionCount"));
    QVERIFY(dims && !dims->visibleRegion().isEmpty());
    dims->setFocus();
    QTest::keyClick(dims, Qt::Key_Down);
    QCOMPARE(doc()->project().network.size(), std::size_t(3));
    const QString three = QString::fromStdString(doc()->project().name);
    QVERIFY2(three.startsWith(QStringLiteral("Mixtral 8x22B on a 3D network (")),
             qPrintable(three));

    // The dialog opens in the folder of the last project saved or opened.
    QTemporaryDir dir;
    QSettings().setValue(QStringLiteral("lastDirectory"), dir.path());
    const QString path = dir.filePath(QStringLiteral("study.json"));
    const QString suggested = saveAsThroughTheDialog(QStringLiteral("study.json"));
    QCOMPARE(QFileInfo(suggested).absolutePath(), QFileInfo(path).absolutePath());
    QVERIFY2(QFileInfo(suggested).fileName().startsWith(
                 QStringLiteral("Mixtral-8x22B-on-a-3D-network-")),
             qPrintable(suggested));
    QCOMPARE(doc()->filePath(), QFileInfo(path).absoluteFilePath());
    QVERIFY(!window_->isWindowModified());
    QVERIFY2(window_->windowTitle().startsWith(QStringLiteral("study.json")),
             qPrintable(window_->windowTitle()));
    const auto savedName = [&] {
      QFile file(path);
      if (!file.open(QIODevice::ReadOnly)) return QStringLiteral("<unreadable>");
      return QJsonDocument::fromJson(file.readAll()).object().value("name").toString();
    };
    QCOMPARE(savedName(), three);

    dims->setFocus();
    QTest::keyClick(dims, Qt::Key_Up);  // the 4D network again
    QCOMPARE(doc()->project().network.size(), std::size_t(4));
    const QString four = QString::fromStdString(doc()->project().name);
    QVERIFY2(four.startsWith(QStringLiteral("Mixtral 8x22B on a 4D network (")), qPrintable(four));
    QCOMPARE(doc()->project().name, describedName(doc()->project()));
    QVERIFY(window_->isWindowModified());
    QVERIFY(activateMainWindow());
    QTest::keySequence(window_.get(), QKeySequence(QKeySequence::Save));
    QVERIFY(!window_->isWindowModified());
    QCOMPARE(savedName(), four);
  }

  // A cost budget ticked on right after another example was opened starts from
  // that example, not from the optimum of the project before it.
  void aCostBudgetDoesNotCarryOverIntoAnotherProject() {
    auto* enabled = window_->findChild<QCheckBox*>(QStringLiteral("costBudgetEnabled"));
    auto* spin = window_->findChild<QDoubleSpinBox*>(QStringLiteral("costBudgetSpin"));
    QVERIFY(enabled && !enabled->visibleRegion().isEmpty() && spin);
    enabled->setFocus();
    QTest::keyClick(enabled, Qt::Key_Space);  // ticked with the keyboard
    QVERIFY(enabled->isChecked());
    const auto fourBudget = splitConstraints(doc()->project().constraints).costBudget;
    QVERIFY(fourBudget);
    QVERIFY(waitForCurrentFrame());
    // File > Open Example > the 3D one, clicked in the menus.
    QString threeTitle;
    for (const ExampleInfo& e : bundledExamples())
      if (e.id == QStringLiteral("gpt3-3d")) threeTitle = e.title;
    QVERIFY(!threeTitle.isEmpty());
    QVERIFY(clickMenuPath({QStringLiteral("&File"), QStringLiteral("Open &Example"), threeTitle}));
    QVERIFY(doc()->project() == loadExample(QStringLiteral("gpt3-3d")));
    QCOMPARE(doc()->project().network.size(), std::size_t(3));
    QVERIFY(!enabled->isChecked());
    // The disabled controls preview what ticking the box sets.
    const double preview = window_->findChild<BudgetPanel*>()->costBudgetStartUsd();
    QVERIFY(test::close(spin->value() * 1e6, preview, 1e-9));
    enabled->setFocus();
    QTest::keyClick(enabled, Qt::Key_Space);
    QVERIFY(enabled->isChecked());
    const auto threeBudget = splitConstraints(doc()->project().constraints).costBudget;
    QVERIFY(threeBudget);
    QVERIFY(test::close(*threeBudget, preview, 1e-9));
    QVERIFY2(!test::close(*threeBudget, *fourBudget, 1e-3),
             qPrintable(QStringLiteral("%1 vs %2").arg(*threeBudget).arg(*fourBudget)));
    QVERIFY(waitForCurrentFrame());
    verifyChartMatchesEngine();
  }

  // A model that is not a preset: a Hugging Face config opened in the
  // workload panel becomes the workload (one undo step), its hyperparameters
  // are edited in a form, and the project keeps it through save and open
  // (issue 26 item 1).
  void aModelFileBecomesTheWorkload() {
    auto* editor = window_->findChild<PresetEditor*>();
    QVERIFY(editor);
    QVERIFY(clickDockTab(QStringLiteral("Workload")));
    const QString config = QStringLiteral(LIBRA_SOURCE_DIR "/tests/data/models/llama3-8b.json");
    const Project before = doc()->project();
    QString error;
    QVERIFY(!editor->openModelFile(config, 0, 0, &error));  // no batch in a config
    QVERIFY2(error.contains(QStringLiteral("sequence length")), qPrintable(error));
    QVERIFY(doc()->project() == before);
    // 512 sequences on 4096 NPUs: the model's default (TP 1 x DP 4096) cannot
    // split the batch; the execution of least compute time that fits is chosen
    // in the background, as `libra new` chooses it.
    QSignalSpy applied(editor, &PresetEditor::modelApplied);
    QVERIFY2(editor->openModelFile(config, 8192, 512, &error), qPrintable(error));
    QTRY_COMPARE_WITH_TIMEOUT(applied.count(), 1, 60000);
    QVERIFY(applied.front().front().toBool());
    QVERIFY(!editor->choosingExecution());
    const auto& origin = doc()->project().workloads.front().origin;
    const auto chosen = presetChoiceOf(doc()->project().workloads.front());
    QVERIFY(chosen);
    QVERIFY(chosen->parallelism.dp <= 512);
    QVERIFY2(window_->statusBar()->currentMessage().contains(QStringLiteral("least compute time")),
             qPrintable(window_->statusBar()->currentMessage()));
    QVERIFY(origin && !origin->model.empty());
    auto* combo = window_->findChild<QComboBox*>(QStringLiteral("presetCombo"));
    QCOMPARE(combo->currentText(), QStringLiteral("meta-llama/Meta-Llama-3-8B (own model)"));
    QVERIFY(waitForCurrentFrame());
    QVERIFY2(results()->summaryText().contains(QStringLiteral("4,194,304 tokens per iteration")),
             qPrintable(results()->summaryText()));
    QVERIFY2(!results()->summaryText().contains(QStringLiteral("does not fit")),
             qPrintable(results()->summaryText()));
    test::saveScreenshot(window_.get(), QStringLiteral("workload-own-model"));
    doc()->undoStack()->undo();
    QVERIFY(doc()->project() == before);
    QCOMPARE(combo->findData(QStringLiteral("@model")), -1);
    doc()->undoStack()->redo();

    // Four more layers in the form: a bigger model, still its own.
    const auto model = editor->currentModel();
    QVERIFY(model);
    ModelDialog dialog(*model);
    QVERIFY(dialog.problem().isEmpty());
    dialog.field(QStringLiteral("layers"))->setValue(36);
    dialog.field(QStringLiteral("heads"))->setValue(33);  // 4096 is no multiple of 33
    QVERIFY2(dialog.problem().contains(QStringLiteral("not a multiple of the 33 heads")),
             qPrintable(dialog.problem()));
    dialog.field(QStringLiteral("heads"))->setValue(32);
    QVERIFY(dialog.problem().isEmpty());
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    test::saveScreenshot(&dialog, QStringLiteral("model-dialog"));
    const Preset bigger = dialog.model();
    QVERIFY(bigger.parameterCount() > model->parameterCount());
    QVERIFY(editor->useModel(bigger, &error));
    QTRY_VERIFY_WITH_TIMEOUT(!editor->choosingExecution(), 60000);
    QCOMPARE(std::get<TransformerConfig>(editor->currentModel()->model).layers, 36);

    // Saved and opened again: the same model, in the combo.
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("own-model.json"));
    QVERIFY2(window_->files()->saveFile(path, &error), qPrintable(error));
    QVERIFY2(window_->files()->openExample(QStringLiteral("gpt3-3d"), &error), qPrintable(error));
    QVERIFY2(window_->files()->openFile(path, &error), qPrintable(error));
    QCOMPARE(std::get<TransformerConfig>(editor->currentModel()->model).layers, 36);
    QVERIFY(combo->currentText().endsWith(QStringLiteral("(own model)")));
    // A preset chosen again replaces it.
    QVERIFY(chooseInCombo(combo, QStringLiteral("Llama 3 70B")));
    QVERIFY(doc()->project().workloads.front().origin->model.empty());
    QCOMPARE(combo->findData(QStringLiteral("@model")), -1);
  }

  // Help, offline: the glossary and the guide from the Help menu, and a tour
  // whose every step frames a part of the window that is on screen (issue 28
  // item 3 of the deliverables).
  void helpHasAGlossaryAGuideAndATour() {
    QVERIFY(clickMenuPath({QStringLiteral("&Help"), QStringLiteral("&Glossary")}));
    auto* help = window_->findChild<HelpDialog*>();
    QVERIFY(help && help->isVisible());
    const QString glossary = help->page(QStringLiteral("glossary"))->toPlainText();
    for (const char* term : {"Equal split", "Surrogate", "Chunks", "Sensitivity", "MFU",
                             "Perf per cost", "Time to train"})
      QVERIFY2(glossary.contains(QLatin1String(term)), term);
    QVERIFY(clickMenuPath({QStringLiteral("&Help"), QStringLiteral("&User Guide")}));
    QVERIFY2(
        help->page(QStringLiteral("gui"))->toPlainText().contains(QStringLiteral("the GUI guide")),
        "docs/gui.md is compiled in");
    help->close();

    Tour* tour = window_->tour();
    QSignalSpy finished(tour, &Tour::finished);
    QVERIFY(clickMenuPath({QStringLiteral("&Help"), QStringLiteral("&Tour of the Window")}));
    int shown = 0;
    while (tour->step() >= 0) {
      QWidget* part = tour->target();
      QVERIFY(part && part->isVisible());
      const QRect at(part->mapTo(window_.get(), QPoint(0, 0)), part->size());
      QVERIFY2(tour->highlight()->geometry().contains(at & window_->rect()),
               qPrintable(part->objectName()));
      QVERIFY(window_->rect().contains(tour->geometry()));
      if (shown == 2) test::saveScreenshot(window_.get(), QStringLiteral("tour-pareto"));
      ++shown;
      QTest::mouseClick(tour->findChild<QPushButton*>(QStringLiteral("tourNext")), Qt::LeftButton);
    }
    QCOMPARE(shown, tour->stepCount());
    QCOMPARE(finished.count(), 1);
    QVERIFY(!tour->isVisible() && !tour->highlight()->isVisible());
  }

  // Exports start next to a saved project and confirm what they wrote.
  void exportsStartNextToTheProjectAndConfirm() {
    QTemporaryDir dir;
    QString error;
    QVERIFY(doc()->filePath().isEmpty());
    const QString path = dir.filePath(QStringLiteral("p.json"));
    QVERIFY2(window_->files()->saveFile(path, &error), qPrintable(error));
    QCOMPARE(window_->exports()->startDirectory(), QFileInfo(path).absolutePath());
    const QString png = dir.filePath(QStringLiteral("chart.png"));
    QVERIFY(window_->exports()->exportAndConfirm(png));
    QVERIFY(QFileInfo::exists(png));
    const QString message = window_->statusBar()->currentMessage();
    QVERIFY2(message.startsWith(QStringLiteral("Exported to")) &&
                 message.contains(QDir::toNativeSeparators(png)),
             qPrintable(message));

    // The same through File > Export > Charts as SVG…, clicked in the menus: the
    // dialog opens in the project's folder and suggests the project's name; a
    // name typed there is written and confirmed in the status bar.
    window_->statusBar()->clearMessage();
    const QString projectFolder = QFileInfo(path).absolutePath();
    const QString svg = dir.filePath(QStringLiteral("typed.svg"));
    const ExportDialogSeen seen = exportThroughTheDialog(
        [&] {
          return clickMenuPath({QStringLiteral("&File"), QStringLiteral("&Export"),
                                QStringLiteral("Charts as &SVG…")});
        },
        QStringLiteral("typed.svg"));
    QVERIFY(seen.opened);
    QCOMPARE(seen.directory, projectFolder);
    QCOMPARE(seen.suggested, QDir(projectFolder).filePath(QStringLiteral("p.svg")));
    QVERIFY2(QFileInfo(svg).size() > 0, qPrintable(svg));
    QCOMPARE(window_->statusBar()->currentMessage(),
             QStringLiteral("Exported to ") + QDir::toNativeSeparators(svg));

    // A project never saved: the dialog (Ctrl+E, the PNG export) starts in the
    // folder of the last export, and suggests the project's name.
    QVERIFY(clickMenuPath({QStringLiteral("&File"), QStringLiteral("&New")}));
    QVERIFY(doc()->filePath().isEmpty());
    QVERIFY(waitForCurrentFrame());
    const QString png2 = dir.filePath(QStringLiteral("second.png"));
    const ExportDialogSeen fresh = exportThroughTheDialog(
        [&] {
          if (!activateMainWindow()) return false;
          QTest::keySequence(window_.get(), QKeySequence(QStringLiteral("Ctrl+E")));
          return true;
        },
        QStringLiteral("second.png"));
    QVERIFY(fresh.opened);
    QCOMPARE(fresh.directory, QFileInfo(svg).absolutePath());
    // Named like a saved project: the name's file stem (no '/', no spaces).
    QCOMPARE(QFileInfo(fresh.suggested).fileName(),
             QString::fromStdString(fileStem(doc()->project().name, '-')) + QStringLiteral(".png"));
    QVERIFY(!QImage(png2).isNull());
    QCOMPARE(window_->statusBar()->currentMessage(),
             QStringLiteral("Exported to ") + QDir::toNativeSeparators(png2));

    // With no earlier export folder (it was removed) the dialog starts in the
    // user's documents folder where there is one, else in the home folder.
    QSettings().remove(QStringLiteral("exportDirectory"));
    const QString documents = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    const QString expected = QFileInfo(documents).isDir() ? documents : QDir::homePath();
    const ExportDialogSeen first = exportThroughTheDialog(
        [&] {
          if (!activateMainWindow()) return false;
          QTest::keySequence(window_.get(), QKeySequence(QStringLiteral("Ctrl+E")));
          return true;
        },
        QString());
    QVERIFY(first.opened);
    QCOMPARE(first.directory, QDir(expected).absolutePath());
  }

  void saveAndReopenGiveTheSameProject() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("explored.json"));
    window_->findChild<QSlider*>(QStringLiteral("totalBandwidthSlider"))->setValue(640);
    window_->findChild<QSpinBox*>(QStringLiteral("paretoPointsSpin"))
        ->setValue(40);  // kept in the "ui" section
    QVERIFY(window_->isWindowModified());
    QVERIFY(window_->windowTitle().contains(QStringLiteral("[*]")));
    QString error;
    QVERIFY2(window_->files()->saveFile(path, &error), qPrintable(error));
    QVERIFY(!window_->isWindowModified());
    QVERIFY(window_->windowTitle().startsWith(QStringLiteral("explored.json")));
    const Project saved = doc()->project();

    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonObject json = QJsonDocument::fromJson(file.readAll()).object();
    QCOMPARE(json.value(QStringLiteral("format")).toString(), QStringLiteral("libra-project"));

    QVERIFY(window_->files()->openExample(QStringLiteral("gpt3-3d"), &error));
    QVERIFY(doc()->project() != saved);
    QVERIFY2(window_->files()->openFile(path, &error), qPrintable(error));
    QVERIFY(doc()->project() == saved);
    QCOMPARE(doc()->filePath(), QFileInfo(path).absoluteFilePath());
    QVERIFY(!window_->isWindowModified());
    QCOMPARE(FileController::recentFiles().front(), QFileInfo(path).absoluteFilePath());
    QVERIFY(waitForCurrentFrame());
    verifyChartMatchesEngine();
    QCOMPARE(results()->paretoChart()->frontSeries()->count(), 40);

    // Dropping a project file on the window opens it.
    QVERIFY(window_->files()->openExample(QStringLiteral("gpt3-3d"), &error));
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(path)});
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(window_.get(), &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(window_.get(), &drop);
    QVERIFY(doc()->project() == saved);

    // A broken file is refused with a message and changes nothing.
    const QString broken = dir.filePath(QStringLiteral("broken.json"));
    QFile b(broken);
    QVERIFY(b.open(QIODevice::WriteOnly));
    b.write("{ \"format\": \"libra-project\", ");
    b.close();
    QVERIFY(!window_->files()->openFile(broken, &error));
    QVERIFY(error.contains(QStringLiteral("broken.json")));
    QVERIFY(doc()->project() == saved);
  }

  // File > Export > Design for ASTRA-sim 2 writes the engine's export of the shown
  // design (the files `libra export-astra-sim --bandwidth ...` writes), replaces an
  // earlier export only when told to, and refuses any other folder that is not
  // empty, and a file.
  void astraSimExportWritesTheShownDesign() {
    QVERIFY(waitForCurrentFrame());
    QVERIFY(window_->findChild<QAction*>(QStringLiteral("export_astra_sim")) != nullptr);
    const SolveResultPtr shown = results()->shownResult();
    QVERIFY(shown && shown->ok() && shown->project);
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("astra"));
    QString error;
    QStringList warnings, written;
    QVERIFY2(window_->exports()->exportAstraSimTo(out, false, &error, &warnings, &written),
             qPrintable(error));
    QVERIFY(written.contains(QStringLiteral("network.yml")));
    QVERIFY(written.contains(QStringLiteral("system.json")));
    QVERIFY(written.contains(QStringLiteral("README.md")));
    // The README's commands name the project file, PROJECT.json while there is none.
    const std::string projectFile = doc()->filePath().isEmpty()
                                        ? std::string("PROJECT.json")
                                        : QFileInfo(doc()->filePath()).fileName().toStdString();
    const AstraExport expected = exportAstraSim(*shown->project, shown->a(), projectFile);
    QCOMPARE(written.size(), static_cast<qsizetype>(expected.files.size()));
    for (const AstraExportFile& f : expected.files) {
      QFile file(QDir(out).filePath(QString::fromStdString(f.path)));
      QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(file.fileName()));
      QCOMPARE(file.readAll(), QByteArray::fromStdString(f.contents));
    }
    // The network file carries the shown design's bandwidths, dimension by dimension.
    QFile network(QDir(out).filePath(QStringLiteral("network.yml")));
    QVERIFY(network.open(QIODevice::ReadOnly));
    QCOMPARE(network.readAll(), QByteArray::fromStdString(astraNetworkYml(
                                    shown->project->network, shown->a().design.bandwidth)));

    // Not empty now: refused without overwrite, written with it.
    QVERIFY(!window_->exports()->exportAstraSimTo(out, false, &error));
    QVERIFY2(error.contains(QStringLiteral("not empty")), qPrintable(error));
    QVERIFY2(window_->exports()->exportAstraSimTo(out, true, &error), qPrintable(error));
    // A folder no export wrote is never written into, not even when told to overwrite.
    const QString mine = dir.filePath(QStringLiteral("mine"));
    QVERIFY(QDir().mkpath(mine));
    QFile notes(QDir(mine).filePath(QStringLiteral("notes.txt")));
    QVERIFY(notes.open(QIODevice::WriteOnly));
    notes.close();
    QVERIFY(!window_->exports()->exportAstraSimTo(mine, true, &error));
    QVERIFY2(error.contains(QStringLiteral("no earlier export")), qPrintable(error));
    QCOMPARE(QDir(mine).entryList(QDir::Files | QDir::Hidden), QStringList{"notes.txt"});
    // A file is not a folder.
    const QString file = dir.filePath(QStringLiteral("plain.txt"));
    QFile plain(file);
    QVERIFY(plain.open(QIODevice::WriteOnly));
    plain.close();
    QVERIFY(!window_->exports()->exportAstraSimTo(file, true, &error));
    QVERIFY2(error.contains(QStringLiteral("not a directory")), qPrintable(error));
  }

  void exportsAreValidFiles() {
    QTemporaryDir dir;
    QString error;
    const QString png = dir.filePath(QStringLiteral("r.png"));
    const QString svg = dir.filePath(QStringLiteral("r.svg"));
    const QString pdf = dir.filePath(QStringLiteral("r.pdf"));
    const QString csv = dir.filePath(QStringLiteral("r.csv"));
    const QString json = dir.filePath(QStringLiteral("r.json"));
    for (const QString& path : {png, svg, pdf, csv, json}) {
      QVERIFY2(window_->exports()->exportTo(path, &error), qPrintable(error));
    }
    QFile pngFile(png);
    QVERIFY(pngFile.open(QIODevice::ReadOnly));
    QCOMPARE(pngFile.read(8), QByteArray("\x89PNG\r\n\x1a\n", 8));
    const QImage image(png);
    QVERIFY(!image.isNull());
    QVERIFY(image.width() >= 1600 && image.height() >= 1000);

    QFile svgFile(svg);
    QVERIFY(svgFile.open(QIODevice::ReadOnly));
    QXmlStreamReader xml(&svgFile);
    QString root;
    int texts = 0;
    while (!xml.atEnd()) {
      if (xml.readNext() == QXmlStreamReader::StartElement) {
        if (root.isEmpty()) root = xml.name().toString();
        if (xml.name() == QStringLiteral("text")) ++texts;
      }
    }
    QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
    QCOMPARE(root, QStringLiteral("svg"));
    QVERIFY(texts > 10);  // axis labels and titles stay text

    QFile pdfFile(pdf);
    QVERIFY(pdfFile.open(QIODevice::ReadOnly));
    const QByteArray pdfBytes = pdfFile.readAll();
    QVERIFY(pdfBytes.startsWith("%PDF"));
    QVERIFY(pdfBytes.trimmed().endsWith("%%EOF"));

    QFile csvFile(csv);
    QVERIFY(csvFile.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = csvFile.readAll().trimmed().split('\n');
    QVERIFY(lines.front().startsWith("kind,network_cost_usd,iteration_time_ns"));
    QCOMPARE(lines.size(), 1 + 1 + 1 + 50 + 1);  // header, optimum, perf/cost, front, equal split

    QFile jsonFile(json);
    QVERIFY(jsonFile.open(QIODevice::ReadOnly));
    const QJsonObject o = QJsonDocument::fromJson(jsonFile.readAll()).object();
    // The keys of `libra solve --json`, written by the same engine function.
    const QJsonObject optimum = o;
    QCOMPARE(optimum.value(QStringLiteral("status")).toString(), QStringLiteral("optimal"));
    QCOMPARE(optimum.value(QStringLiteral("bandwidth_gbps")).toArray().size(), 4);
    const Solution expected = test::engineOptimum(doc()->project());
    QVERIFY(test::close(optimum.value(QStringLiteral("iteration_time_ns")).toDouble(),
                        expected.eval.iterationNs));
    QCOMPARE(o.value(QStringLiteral("pareto"))
                 .toObject()
                 .value(QStringLiteral("points"))
                 .toArray()
                 .size(),
             50);
  }

  void presetParallelismRegeneratesTheWorkload() {
    auto* tp = window_->findChild<QSpinBox*>(QStringLiteral("tpSpin"));
    QVERIFY(tp);
    QCOMPARE(tp->value(), 16);
    tp->setValue(8);
    const Workload& w = doc()->project().workloads.front();
    QVERIFY(w.origin);
    QCOMPARE(w.origin->parameters.at("tp"), 8.0);
    QCOMPARE(w.origin->parameters.at("dp"), 512.0);
    QCOMPARE(window_->findChild<QLabel*>(QStringLiteral("dpLabel"))->text(),
             QStringLiteral("DP 512"));
    QVERIFY(waitForCurrentFrame());
    verifyChartMatchesEngine();
    // Context parallelism takes its NPUs from the data-parallel degree.
    auto* cp = window_->findChild<QSpinBox*>(QStringLiteral("cpSpin"));
    QVERIFY(cp);
    cp->setValue(2);
    QCOMPARE(doc()->project().workloads.front().origin->parameters.at("cp"), 2.0);
    QCOMPARE(doc()->project().workloads.front().origin->parameters.at("dp"), 256.0);
    cp->setValue(1);
    QCOMPARE(doc()->project().workloads.front().origin->parameters.count("cp"), std::size_t{0});
    // A degree that does not divide the network is reported and not applied.
    const Project before = doc()->project();
    tp->setValue(3);
    QVERIFY(doc()->project() == before);
    QVERIFY(!window_->findChild<QLabel*>(QStringLiteral("presetError"))->text().isEmpty());
    // Another device changes the compute times, not the traffic.
    auto* device = window_->findChild<QComboBox*>(QStringLiteral("deviceCombo"));
    const int a100 = device->findData(QStringLiteral("a100"));
    QVERIFY(a100 >= 0);
    tp->setValue(16);
    device->setCurrentIndex(a100);
    Q_EMIT device->activated(a100);
    QCOMPARE(doc()->project().workloads.front().origin->device, std::string("a100"));
    QVERIFY(waitForCurrentFrame());
    verifyChartMatchesEngine();
  }

  // Expert TP (Megatron-Core's MoE layout) has no widget: editing another degree
  // keeps it while it still folds into TP and EP, as `libra new` wrote it.
  void anEditKeepsTheExpertTensorParallelism() {
    Parallelism par;
    par.tp = 8;
    par.ep = 8;
    par.expertTp = 1;
    par.sequenceParallel = true;
    const Workload moe = generateWorkload(findPreset("mixtral-8x22b"), par, findDevice("h100"),
                                          doc()->project().network, {});
    doc()->edit(QStringLiteral("MoE"), [&](Project& p) { p.workloads.front() = moe; });
    QCOMPARE(doc()->project().workloads.front().origin->parameters.at("expert_tp"), 1.0);
    auto* pp = window_->findChild<QSpinBox*>(QStringLiteral("ppSpin"));
    QVERIFY(pp);
    QCOMPARE(pp->value(), 1);
    pp->setValue(2);
    const auto& origin = doc()->project().workloads.front().origin;
    QCOMPARE(origin->parameters.at("pp"), 2.0);
    QCOMPARE(origin->parameters.at("expert_tp"), 1.0);
    QVERIFY(QString::fromStdString(doc()->project().workloads.front().name)
                .contains(QStringLiteral("expert TP 1")));
  }

  // The Design Space tab (issue 25 item 7): the co-design runs in the
  // background (the window keeps handling events), every design solved is a
  // point, the front is highlighted, the filter narrows the cloud, and a design
  // opens as a scenario with its execution and bandwidths in one undo step.
  void theDesignSpaceRunsInTheBackgroundAndOpensADesign() {
    auto* view = window_->designSpace();
    QVERIFY(view);
    window_->findChild<QTabWidget*>(QStringLiteral("resultTabs"))->setCurrentWidget(view);
    window_->findChild<QSpinBox*>(QStringLiteral("designMaxDims"))->setValue(2);
    QSignalSpy finished(view, &DesignSpaceView::finished);
    QString why;
    QVERIFY2(view->start(&why), qPrintable(why));
    QVERIFY(view->running());
    QVERIFY(!view->start(&why));  // one search at a time
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
    const CodesignResult* r = view->result();
    QVERIFY(r && !r->designs.empty());
    QCOMPARE(static_cast<std::int64_t>(r->points.size()) + r->pointsLeftOut, r->evaluated);
    QCOMPARE(view->shownPoints().size(), r->points.size());
    QVERIFY(view->frontPointCount() >= 1);
    QVERIFY(view->frontPointCount() <= r->pareto.size());
    const QString status = window_->findChild<QLabel*>(QStringLiteral("designStatus"))->text();
    QVERIFY2(status.contains(QStringLiteral("designs solved")), qPrintable(status));
    test::saveScreenshot(window_.get(), QStringLiteral("design-space"));
    // Export: every design solved as CSV (a row each), the chart as drawn.
    QVERIFY(window_->findChild<QPushButton*>(QStringLiteral("designExport"))->isEnabled());
    QTemporaryDir dir;
    const QString csv = dir.filePath(QStringLiteral("space.csv"));
    QVERIFY2(view->exportTo(csv, &why), qPrintable(why));
    QFile csvFile(csv);
    QVERIFY(csvFile.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = csvFile.readAll().trimmed().split('\n');
    QCOMPARE(static_cast<std::size_t>(lines.size()), r->points.size() + 1);
    QVERIFY(lines.front().startsWith("pareto,shape,"));
    const QString png = dir.filePath(QStringLiteral("space.png"));
    QVERIFY2(view->exportTo(png, &why), qPrintable(why));
    const QImage image(png);
    QVERIFY(!image.isNull());
    test::saveScreenshot(image, QStringLiteral("design-space-export"));
    QCOMPARE(image.width(), qRound(1.5 * view->findChild<QChartView*>()->width()));
    QVERIFY(view->exportTo(dir.filePath(QStringLiteral("space.svg")), &why));
    QVERIFY(!view->exportTo(dir.filePath(QStringLiteral("space.txt")), &why));
    QVERIFY2(why.contains(QStringLiteral(".csv")), qPrintable(why));
    // The filter keeps the designs whose shape or execution names it.
    auto* filter = window_->findChild<QLineEdit*>(QStringLiteral("designFilter"));
    filter->setText(QStringLiteral("Switch"));
    QVERIFY(!view->shownPoints().empty());
    QVERIFY(view->shownPoints().size() < r->points.size());
    for (std::size_t k : view->shownPoints()) {
      QVERIFY(QString::fromStdString(r->points[k].label + ", " + r->points[k].execution.label())
                  .contains(QStringLiteral("Switch"), Qt::CaseInsensitive));
    }
    filter->clear();
    // The best design opens as the active scenario; its solve is the point's.
    const CodesignDesign& best = r->designs.front();
    std::size_t k = 0;
    while (k < r->points.size() &&
           !(r->points[k].execution == best.execution && r->points[k].label == best.label &&
             r->points[k].iterationNs == best.solution.eval.iterationNs)) {
      ++k;
    }
    QVERIFY(k < r->points.size());
    const std::size_t before = scenarioCount(doc()->project());
    QVERIFY2(view->openPoint(k, &why), qPrintable(why));
    QCOMPARE(scenarioCount(doc()->project()), before + 1);
    QCOMPARE(doc()->project().network.npuCount(), r->points[k].npus);
    QVERIFY(doc()->project().network.dims.size() == r->points[k].network.dims.size());
    const Solution s = test::engineOptimum(doc()->project());
    QVERIFY(test::close(s.eval.iterationNs, r->points[k].iterationNs));
    doc()->undoStack()->undo();
    QCOMPARE(scenarioCount(doc()->project()), before);
    // Cancel stops a long search with what it found; the window stays live.
    window_->findChild<QSpinBox*>(QStringLiteral("designMaxDims"))->setValue(4);
    window_->findChild<QCheckBox*>(QStringLiteral("designAllPlacements"))->setChecked(true);
    QVERIFY2(view->start(&why), qPrintable(why));
    QVERIFY(!view->exportTo(csv, &why));  // nothing to write while it runs
    QVERIFY(!window_->findChild<QPushButton*>(QStringLiteral("designExport"))->isEnabled());
    QTest::qWait(50);
    view->cancel();
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 2, 120000);
    QVERIFY(view->result()->cancelled);
    QVERIFY(window_->findChild<QLabel*>(QStringLiteral("designStatus"))
                ->text()
                .startsWith(QStringLiteral("Cancelled")));
  }

  void networkButtonsEditTheTableUnderTheModelTester() {
    auto* table = window_->findChild<QTableView*>(QStringLiteral("dimensionTable"));
    QAbstractItemModelTester tester(table->model(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    table->setCurrentIndex(table->model()->index(1, 0));
    window_->findChild<QPushButton*>(QStringLiteral("addDimension"))->click();
    QCOMPARE(doc()->project().network.size(), 5);
    QCOMPARE(table->currentIndex().row(), 2);
    window_->findChild<QPushButton*>(QStringLiteral("moveDimensionDown"))->click();
    QCOMPARE(table->currentIndex().row(), 3);
    window_->findChild<QPushButton*>(QStringLiteral("removeDimension"))->click();
    QCOMPARE(doc()->project().network.size(), 4);
    window_->findChild<QSpinBox*>(QStringLiteral("dimensionCount"))->setValue(3);
    QCOMPARE(doc()->project().network.size(), 3);
    QVERIFY(waitForCurrentFrame() ||
            window_->statusLabel()->text().startsWith(QStringLiteral("Invalid")));
    while (doc()->undoStack()->canUndo()) doc()->undoStack()->undo();
    QCOMPARE(doc()->project().network.size(), 4);
    QVERIFY(waitForCurrentFrame());
    verifyChartMatchesEngine();
  }

  void movingADimensionKeepsConstraintsAndRemovingOneSaysWhatWentWithIt() {
    doc()->edit(QStringLiteral("constraint"), [](Project& p) {
      setExtraConstraints(p, {"bw[chiplet] >= bw[package]", "bw[0] >= 2*bw[1]"});
    });
    auto* table = window_->findChild<QTableView*>(QStringLiteral("dimensionTable"));
    table->setCurrentIndex(table->model()->index(1, 0));
    window_->findChild<QPushButton*>(QStringLiteral("moveDimensionUp"))->click();
    QCOMPARE(doc()->project().network.dims[0].name, std::string("package"));
    QCOMPARE(table->currentIndex().row(), 0);
    QVERIFY(doc()->project().constraints ==
            (std::vector<std::string>{"total == 1000", "bw[chiplet] >= bw[package]",
                                      "bw[1] >= 2*bw[0]"}));
    QVERIFY(window_->statusBar()->currentMessage().isEmpty());
    // Remove the selected package (now row 0): both constraints on it go, in one undo step.
    const int steps = doc()->undoStack()->count();
    window_->findChild<QPushButton*>(QStringLiteral("removeDimension"))->click();
    QCOMPARE(doc()->project().network.size(), 3);
    QVERIFY(doc()->project().constraints == std::vector<std::string>{"total == 1000"});
    QCOMPARE(doc()->undoStack()->count(), steps + 1);
    const QString message = window_->statusBar()->currentMessage();
    QVERIFY2(message.contains(QStringLiteral("'bw[chiplet] >= bw[package]'")) &&
                 message.contains(QStringLiteral("'bw[1] >= 2*bw[0]'")) &&
                 message.contains(QStringLiteral("dimension 'package', which was removed")),
             qPrintable(message));
    doc()->undoStack()->undo();
    QCOMPARE(doc()->project().constraints.size(), std::size_t(3));
    QVERIFY(waitForCurrentFrame());
    verifyChartMatchesEngine();
  }
};

namespace {

// The test functions that measure real time (how soon a drag's results reach
// the screen) run alone: ctest runs `--timed` with RUN_SERIAL and `--untimed`
// beside other tests (tests/ui/CMakeLists.txt). A new function is untimed
// unless listed here; a listed name that is not a test function is an error.
constexpr std::array kTimedFunctions{
    "aDragShowsCoarseFrontsThenTheProjectsOwn",
    "aSlowFrontComesCoarseFirstThenTheProjectsOwn",
    "rapidSliderChangesEndOnTheLastValueAndNeverPaintAStaleResult",
    "aDragWithSlowSolvesStaysLive",
};

// The arguments for QTest::qExec: `--timed` and `--untimed` replaced by the
// functions they select; empty when kTimedFunctions names an unknown function.
QStringList selectFunctions(const QObject& test, QStringList arguments) {
  const bool timed = arguments.removeAll(QStringLiteral("--timed")) > 0;
  const bool untimed = arguments.removeAll(QStringLiteral("--untimed")) > 0;
  const QStringList fixtures{QStringLiteral("initTestCase"), QStringLiteral("cleanupTestCase"),
                             QStringLiteral("init"), QStringLiteral("cleanup")};
  QStringList functions;
  const QMetaObject* meta = test.metaObject();
  for (int i = meta->methodOffset(); i < meta->methodCount(); ++i) {
    const QMetaMethod m = meta->method(i);
    const QString name = QString::fromLatin1(m.name());
    if (m.methodType() == QMetaMethod::Slot && m.access() == QMetaMethod::Private &&
        m.parameterCount() == 0 && !fixtures.contains(name) &&
        !name.endsWith(QStringLiteral("_data"))) {
      functions << name;
    }
  }
  QStringList timedFunctions;
  for (const char* name : kTimedFunctions) timedFunctions << QLatin1String(name);
  for (const QString& name : timedFunctions) {
    if (!functions.contains(name)) {
      qCritical("kTimedFunctions names %s, which is not a test function", qPrintable(name));
      return {};
    }
  }
  for (const QString& name : functions) {
    if (timedFunctions.contains(name) ? timed : untimed) arguments << name;
  }
  return arguments;
}

}  // namespace

int main(int argc, char* argv[]) {
  QTEST_MAIN_SETUP()
  ExplorerTest test;
  QTEST_SET_MAIN_SOURCE_PATH
  const QStringList arguments = selectFunctions(test, QCoreApplication::arguments());
  return arguments.isEmpty() ? 1 : QTest::qExec(&test, arguments);
}

#include "test_explorer.moc"
