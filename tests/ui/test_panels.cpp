// The side panels and dialogs with real input events: the import dialog (its
// hint, its Tab order, the fields it reopens with) and the cost levels' prices
// (shown, edited, undone).
#include <QAbstractItemModelTester>
#include <QApplication>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QElapsedTimer>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableView>
#include <QTest>
#include <libra/cost.hpp>
#include <memory>

#include "charts.hpp"
#include "cost_level_model.hpp"
#include "dimension_model.hpp"
#include "document.hpp"
#include "explorer_controller.hpp"
#include "file_controller.hpp"
#include "import_dialog.hpp"
#include "main_window.hpp"
#include "results_view.hpp"
#include "ui_test_support.hpp"

using namespace libra;
using namespace libra::studio;

class PanelsTest : public QObject {
  Q_OBJECT

 private:
  static QLineEdit* field(QWidget* dialog, const char* name) {
    return dialog->findChild<QLineEdit*>(QLatin1String(name));
  }

 private Q_SLOTS:
  void initTestCase() { test::isolateSettings(); }

  // "Choose a network file..." goes once a field is edited; Tab goes from
  // field to field (it used to land on Browse, and the next typed path went
  // nowhere); the fields reopen as they were left.
  void theImportDialogKeepsItsFieldsAndDropsAStaleHint() {
    {
      ImportDialog dialog;
      dialog.show();
      QVERIFY(QTest::qWaitForWindowExposed(&dialog));
      auto* error = dialog.findChild<QLabel*>(QStringLiteral("importError"));
      QLineEdit* network = field(&dialog, "importNetwork");
      QLineEdit* workload = field(&dialog, "importWorkload");
      QVERIFY(network && workload && error);
      for (const char* name : {"importNetwork", "importWorkload", "importCommunicator",
                               "importCostModel", "importName"})
        field(&dialog, name)->clear();
      auto* buttons = dialog.findChild<QDialogButtonBox*>();
      QTest::mouseClick(buttons->button(QDialogButtonBox::Ok), Qt::LeftButton);
      QVERIFY(error->isVisible());
      QVERIFY(dialog.isVisible());  // not accepted

      network->setFocus();
      QTRY_VERIFY(network->hasFocus());
      QTest::keyClicks(network, QStringLiteral("/data/net.yml"));
      QVERIFY(!error->isVisible());
      QTest::keyClick(network, Qt::Key_Tab);
      QTRY_COMPARE(QApplication::focusWidget(), workload);
      QTest::keyClicks(QApplication::focusWidget(), QStringLiteral("/data/work.txt"));
      QCOMPARE(network->text(), QStringLiteral("/data/net.yml"));
      QCOMPARE(workload->text(), QStringLiteral("/data/work.txt"));
      QTest::keyClick(workload, Qt::Key_Tab);
      QTRY_COMPARE(QApplication::focusWidget(), field(&dialog, "importCommunicator"));
      QTest::keyClick(&dialog, Qt::Key_Escape);
      QVERIFY(!dialog.isVisible());
    }
    ImportDialog again;
    QCOMPARE(field(&again, "importNetwork")->text(), QStringLiteral("/data/net.yml"));
    QCOMPARE(field(&again, "importWorkload")->text(), QStringLiteral("/data/work.txt"));
    QCOMPARE(field(&again, "importCommunicator")->text(), QString());
  }

  // The cost levels show their prices (the reference model's, from the
  // LIBRA paper's table) and a price is edited in place, undoably; the
  // solve follows. A negative price is refused.
  void costLevelPricesAreShownAndEdited() {
    MainWindow window(nullptr, false);
    window.files()->setPromptsEnabled(false);
    QString error;
    QVERIFY2(window.files()->openExample(QStringLiteral("gpt3-4d"), &error), qPrintable(error));
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto* table = window.findChild<QTableView*>(QStringLiteral("costLevelTable"));
    QVERIFY(table);
    QAbstractItemModelTester tester(table->model());
    Document* doc = window.document();
    const CostModel reference = referenceCostModel();
    QCOMPARE(doc->project().costModel, reference);
    QAbstractItemModel* model = table->model();
    int chiplet = -1;
    for (int r = 0; r < model->rowCount(); ++r) {
      const std::string name =
          model->index(r, CostLevelModel::Level).data().toString().toStdString();
      const CostLevel& level = reference.levels.at(name);
      QCOMPARE(
          model->index(r, CostLevelModel::Link).data().toString(),
          level.link ? QStringLiteral("$") + QString::number(*level.link) : QStringLiteral("—"));
      if (name == "InterChiplet") chiplet = r;
    }
    QVERIFY(chiplet >= 0);
    QCOMPARE(model->index(chiplet, CostLevelModel::UsedBy).data().toString(),
             QStringLiteral("chiplet"));

    // The dock is a tab beside the budget: raise it and type a new link price.
    window.findChild<QWidget*>(QStringLiteral("costLevelDock"))->raise();
    QTRY_VERIFY(table->isVisible());
    test::saveScreenshot(&window, QStringLiteral("cost-levels"));
    const int steps = doc->undoStack()->count();
    table->setFocus();
    table->setCurrentIndex(model->index(chiplet, CostLevelModel::Link));
    QTest::keyClick(table, Qt::Key_F2);
    QWidget* editor = QApplication::focusWidget();
    QVERIFY(editor && editor != table);
    QTest::keySequence(editor, QKeySequence::SelectAll);
    QTest::keyClicks(editor, QStringLiteral("3.5"));
    QTest::keyClick(editor, Qt::Key_Return);
    QTRY_COMPARE(doc->undoStack()->count(), steps + 1);  // committed on the next loop turn
    QCOMPARE(doc->project().costModel.levels.at("InterChiplet").link, std::optional<double>(3.5));
    QCOMPARE(model->index(chiplet, CostLevelModel::Link).data().toString(), QStringLiteral("$3.5"));
    // The solve that follows is of the new prices.
    SolverController* solver = window.explorer()->solver();
    QTRY_VERIFY_WITH_TIMEOUT(
        window.results()->shownResult() &&
            window.results()->shownResult()->generation == solver->latestGeneration(),
        15000);
    QCOMPARE(window.results()->shownResult()->project->costModel, doc->project().costModel);
    // The dimension table's tooltip says what the dimension costs.
    auto* dims = window.findChild<QTableView*>(QStringLiteral("dimensionTable"));
    const QString tip =
        dims->model()->index(0, DimensionTableModel::CostLevel).data(Qt::ToolTipRole).toString();
    QVERIFY2(tip.contains(QStringLiteral("$3.5 per GB/s")), qPrintable(tip));

    QVERIFY(!model->setData(model->index(chiplet, CostLevelModel::Link), QStringLiteral("-1")));
    QCOMPARE(doc->undoStack()->count(), steps + 1);
    doc->undoStack()->undo();
    QCOMPARE(doc->project().costModel, reference);
    QCOMPARE(model->index(chiplet, CostLevelModel::Link).data().toString(), QStringLiteral("$2"));
    doc->undoStack()->setClean();
  }
  // A name in a project can hold controls, bidirectional overrides and any
  // length (issue 29): the window shows it escaped and cut, the editors the
  // name itself.
  void hostileNamesAreShownEscapedAndCut() {
    MainWindow window(nullptr, false);
    window.files()->setPromptsEnabled(false);
    QString error;
    QVERIFY2(window.files()->openExample(QStringLiteral("gpt3-4d"), &error), qPrintable(error));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    Document* doc = window.document();
    const std::string evil = "evil\x1b[2J\x07\xe2\x80\xae" + std::string(5000, 'x');
    QVERIFY(doc->edit(QStringLiteral("hostile names"), [&](Project& p) {
      p.name = evil;
      p.workloads[0].name = evil;
    }));
    const auto safe = [](const QString& text) {
      for (const QChar c : text) {
        if (c.unicode() < 0x20 || c.unicode() == 0x7f || c.unicode() == 0x202e) return false;
      }
      return true;
    };
    const QString title = window.windowTitle();
    QVERIFY2(safe(title) && title.contains(QStringLiteral("evil\\x1b[2J\\x07\\u202e")),
             qPrintable(title));
    QVERIFY2(title.size() < 200, qPrintable(title));
    auto* selector = window.findChild<QComboBox*>(QStringLiteral("workloadSelector"));
    QVERIFY(selector && selector->count() > 0);
    const QString item = selector->itemText(0);
    QVERIFY2(safe(item) && item.size() <= 48, qPrintable(item));
    QVERIFY(item.endsWith(QChar(0x2026)));
    // A plain name is shown as itself; the editor gets the name.
    auto* dims = window.findChild<QTableView*>(QStringLiteral("dimensionTable"));
    const QModelIndex name = dims->model()->index(0, DimensionTableModel::Name);
    QCOMPARE(name.data(Qt::EditRole).toString(),
             QString::fromStdString(doc->project().network.dims[0].name));
    QCOMPARE(name.data(Qt::DisplayRole).toString(), name.data(Qt::EditRole).toString());
    doc->undoStack()->setClean();
  }
};

QTEST_MAIN(PanelsTest)
#include "test_panels.moc"
