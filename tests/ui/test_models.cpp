// Table models (QAbstractItemModelTester on every one, through edits, undo and
// resets), the project edit helpers and the undo command's merging.
#include <QAbstractItemModelTester>
#include <QApplication>
#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTest>
#include <libra/edits.hpp>

#include "budget_panel.hpp"
#include "commands.hpp"
#include "constraint_editor.hpp"
#include "dimension_model.hpp"
#include "document.hpp"
#include "examples.hpp"
#include "import_dialog.hpp"
#include "layer_model.hpp"
#include "ui_test_support.hpp"

using namespace libra;
using namespace libra::studio;

class ModelsTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { test::isolateSettings(); }

  // Edits say which part of the project they changed; a slider tick shares the
  // workloads with the previous state instead of copying them.
  void editsNameThePartsTheyChange() {
    Document doc(loadExample(QStringLiteral("gpt3-4d")));
    QSignalSpy changed(&doc, &Document::projectChanged);
    const LayerList layersBefore = doc.project().workloads.front().layers;
    QVERIFY(doc.edit(QStringLiteral("total"), [](Project& p) { setTotalBandwidth(p, 700); }));
    QCOMPARE(changed.count(), 1);
    QCOMPARE(changed.takeFirst().front().value<Document::Parts>(),
             Document::Parts(Document::Constraints));
    QVERIFY(doc.project().workloads.front().layers.sharesStorageWith(layersBefore));  // not copied
    QVERIFY(doc.edit(QStringLiteral("objective"),
                     [](Project& p) { p.objective = Objective::PerfPerCost; }));
    QCOMPARE(changed.takeFirst().front().value<Document::Parts>(),
             Document::Parts(Document::Objective));
    // The example's name describes its network, so it follows the new NPU count.
    QVERIFY(doc.edit(QStringLiteral("npus"), [](Project& p) { p.network.dims[0].npus = 8; }));
    QCOMPARE(changed.takeFirst().front().value<Document::Parts>(),
             Document::Parts(Document::Network | Document::Name));
    QVERIFY(doc.project().name.find("Ring 8 x FC 8") != std::string::npos);
    doc.undoStack()->undo();
    QCOMPARE(changed.takeFirst().front().value<Document::Parts>(),
             Document::Parts(Document::Network | Document::Name));
    doc.reset(loadExample(QStringLiteral("gpt3-3d")), QString());
    QCOMPARE(changed.takeFirst().front().value<Document::Parts>(),
             Document::Parts(Document::Everything));
    // A layer table does not reset for an edit of the constraints.
    LayerTableModel layers(&doc);
    QSignalSpy resets(&layers, &QAbstractItemModel::modelReset);
    QVERIFY(doc.edit(QStringLiteral("total"), [](Project& p) { setTotalBandwidth(p, 600); }));
    QCOMPARE(resets.count(), 0);
  }

  void theUndoHistoryIsBounded() {
    Document doc(loadExample(QStringLiteral("gpt3-3d")));
    for (int i = 0; i < Document::kUndoLimit + 50; ++i) {
      QVERIFY(
          doc.edit(QStringLiteral("total"), [i](Project& p) { setTotalBandwidth(p, 100 + i); }));
    }
    QCOMPARE(doc.undoStack()->count(), Document::kUndoLimit);
    // The oldest steps went; the newest still undo in order.
    doc.undoStack()->undo();
    QVERIFY(splitConstraints(doc.project().constraints).totalBandwidth ==
            std::optional<double>(100 + Document::kUndoLimit + 48));
  }

  void dimensionModelPassesTheTester() {
    Document doc(loadExample(QStringLiteral("gpt3-4d")));
    DimensionTableModel model(&doc);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(model.columnCount(), int(DimensionTableModel::ColumnCount));

    QVERIFY(model.setData(model.index(2, DimensionTableModel::Npus), 8));
    QCOMPARE(doc.project().network.dims[2].npus, 8);
    QVERIFY(model.setData(model.index(1, DimensionTableModel::Block), QStringLiteral("Switch")));
    QVERIFY(doc.project().network.dims[1].block == BuildingBlock::Switch);
    QVERIFY(
        model.setData(model.index(0, DimensionTableModel::MaxBandwidth), QStringLiteral("700")));
    QVERIFY(doc.project().network.dims[0].maxBandwidth == std::optional<double>(700));
    QCOMPARE(model.data(model.index(0, DimensionTableModel::MaxBandwidth), Qt::EditRole).toString(),
             QStringLiteral("700"));
    QVERIFY(model.setData(model.index(0, DimensionTableModel::MaxBandwidth), QString()));
    QVERIFY(!doc.project().network.dims[0].maxBandwidth);
    // Bad values are refused and change nothing.
    QVERIFY(!model.setData(model.index(2, DimensionTableModel::Npus), 1));
    QVERIFY(
        !model.setData(model.index(0, DimensionTableModel::MinBandwidth), QStringLiteral("-3")));
    QVERIFY(
        !model.setData(model.index(0, DimensionTableModel::Name), QStringLiteral("pod")));  // taken
    QVERIFY(!model.setData(model.index(1, DimensionTableModel::Block), QStringLiteral("Torus")));

    // Renaming follows into the constraints that name the dimension.
    QVERIFY(model.setData(model.index(0, DimensionTableModel::Name), QStringLiteral("die")));
    QVERIFY(std::find(doc.project().constraints.begin(), doc.project().constraints.end(),
                      std::string("bw[die] >= bw[package]")) != doc.project().constraints.end());

    // Structural edits: rows appear and disappear under the tester.
    doc.edit(QStringLiteral("add"), [](Project& p) { insertDimension(p, 1); });
    QCOMPARE(model.rowCount(), 5);
    doc.edit(QStringLiteral("move"), [](Project& p) { moveDimension(p, 0, 3); });
    doc.edit(QStringLiteral("remove"), [](Project& p) { removeDimension(p, 4); });
    QCOMPARE(model.rowCount(), 4);
    while (doc.undoStack()->canUndo()) doc.undoStack()->undo();
    QVERIFY(doc.project() == loadExample(QStringLiteral("gpt3-4d")));
    while (doc.undoStack()->canRedo()) doc.undoStack()->redo();
    doc.reset(loadExample(QStringLiteral("gpt3-3d")), QString());
    QCOMPARE(model.rowCount(), 3);
  }

  void layerAndCommunicatorModelsPassTheTester() {
    Document doc(loadExample(QStringLiteral("gpt3-4d")));
    LayerTableModel layers(&doc);
    CommunicatorTableModel communicator(&doc);
    QAbstractItemModelTester t1(&layers, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t2(&communicator,
                                QAbstractItemModelTester::FailureReportingMode::QtTest);
    const Workload& w = doc.project().workloads.front();
    QCOMPARE(layers.rowCount(), int(w.layers.size()));
    QCOMPARE(communicator.rowCount(), 3);
    QCOMPARE(communicator.columnCount(), 4);
    QCOMPARE(layers.data(layers.index(0, LayerTableModel::Name)).toString(),
             QString::fromStdString(w.layers.front().name));
    // Group sizes of the forward phase over the 4 dimensions, as the communicator says.
    for (int d = 0; d < 4; ++d) {
      const int g = w.communicator.of(PhaseKind::Forward)[d];
      QCOMPARE(communicator.data(communicator.index(0, d)).toString(),
               g <= 1 ? QStringLiteral("—") : QString::number(g));
    }
    doc.edit(QStringLiteral("dims"), [](Project& p) { setDimensionCount(p, 5); });
    QCOMPARE(communicator.columnCount(), 5);
    layers.setWorkloadIndex(3);  // out of range: empty, not a crash
    QCOMPARE(layers.rowCount(), 0);
    layers.setWorkloadIndex(0);
    doc.reset(loadExample(QStringLiteral("gpt3-3d")), QString());
    QCOMPARE(communicator.columnCount(), 3);
  }

  void budgetPanelReadsBudgetsHoweverWritten() {
    Document doc(loadExample(QStringLiteral("gpt3-4d")));
    doc.edit(QStringLiteral("constraints"), [](Project& p) {
      p.constraints = {"bw[0] >= bw[1]", "2*total == 1000", "4.5e7 >= cost"};
    });
    BudgetPanel panel(&doc);
    QVERIFY(panel.findChild<QCheckBox*>(QStringLiteral("totalBandwidthEnabled"))->isChecked());
    QCOMPARE(panel.totalSpin()->value(), 500.0);
    QVERIFY(panel.findChild<QCheckBox*>(QStringLiteral("costBudgetEnabled"))->isChecked());
    QCOMPARE(panel.findChild<QDoubleSpinBox*>(QStringLiteral("costBudgetSpin"))->value(), 45.0);
    // Moving the total replaces its line in place; the others stay as written.
    panel.totalSpin()->setValue(640);
    QVERIFY(doc.project().constraints ==
            (std::vector<std::string>{"bw[0] >= bw[1]", "total == 640", "4.5e7 >= cost"}));
    QVERIFY(panel.constraintEditor()->textEdit()->toPlainText() ==
            QStringLiteral("bw[0] >= bw[1]"));
  }

  void dimensionEditsReportTheConstraintsTheyRemove() {
    Document doc(loadExample(QStringLiteral("gpt3-4d")));
    QSignalSpy reported(&doc, &Document::editReported);
    doc.edit(QStringLiteral("constraints"), [](Project& p) {
      setExtraConstraints(p, {"bw[0] >= bw[1]", "bw[3] <= 50"});
    });
    const Project before = doc.project();
    const int steps = doc.undoStack()->count();
    // Moving keeps the meaning and reports nothing.
    QVERIFY(doc.reportingEdit(QStringLiteral("move"),
                              [](Project& p) { return moveDimension(p, 0, 1); }));
    QVERIFY(doc.project().constraints ==
            (std::vector<std::string>{"total == 1000", "bw[1] >= bw[0]", "bw[3] <= 50"}));
    QCOMPARE(reported.count(), 0);
    // Removing the pod removes the constraint on it, in the same undo step, and says so.
    QVERIFY(doc.reportingEdit(QStringLiteral("remove"),
                              [](Project& p) { return removeDimension(p, 3); }));
    QCOMPARE(doc.undoStack()->count(), steps + 2);
    QVERIFY(doc.project().constraints ==
            (std::vector<std::string>{"total == 1000", "bw[1] >= bw[0]"}));
    QCOMPARE(reported.count(), 1);
    const QString notes = reported.front().front().toString();
    QVERIFY2(notes.startsWith(QStringLiteral("Removed constraint 'bw[3] <= 50'")),
             qPrintable(notes));
    QVERIFY(notes.contains(QStringLiteral("'pod'")));
    doc.undoStack()->undo();
    doc.undoStack()->undo();
    QVERIFY(doc.project() == before);
    // An edit that changes nothing reports nothing.
    QVERIFY(!doc.reportingEdit(QStringLiteral("nothing"),
                               [](Project& p) { return removeDimension(p, 9); }));
    QCOMPARE(reported.count(), 1);
  }

  void npuChangesKeepTheWorkloadMapped() {
    Project p = loadExample(QStringLiteral("gpt3-4d"));
    // The pod dimension carries the whole data-parallel group; halving it halves DP.
    setDimensionNpus(p, 3, 16);
    QCOMPARE(p.network.npuCount(), 2048);
    QCOMPARE(p.workloads.front().communicator.of(PhaseKind::WeightGrad)[3], 16);
    QVERIFY(p.workloads.front().origin);
    QCOMPARE(p.workloads.front().origin->parameters.at("dp"), 128.0);
    validateProject(p);
    // An imported workload (no origin) is remapped by clamping.
    Project imported = loadExample(QStringLiteral("gpt3-4d"));
    imported.workloads.front().origin.reset();
    setDimensionNpus(imported, 0, 2);
    QCOMPARE(imported.workloads.front().communicator.of(PhaseKind::Forward)[0], 2);
    validateProject(imported);
  }

  void oneDragMergesIntoOneUndoStep() {
    Document doc(loadExample(QStringLiteral("gpt3-4d")));
    const quint64 drag = doc.newMergeSession();
    for (int v = 600; v <= 700; v += 10) {
      doc.edit(
          QStringLiteral("total %1").arg(v), [v](Project& p) { setTotalBandwidth(p, v); },
          MergeKey{QStringLiteral("budget.total"), drag});
    }
    QCOMPARE(doc.undoStack()->count(), 1);
    // The step is named after where the drag ended, not where it began.
    QCOMPARE(doc.undoStack()->undoText(), QStringLiteral("total 700"));
    const quint64 second = doc.newMergeSession();
    doc.edit(
        QStringLiteral("total"), [](Project& p) { setTotalBandwidth(p, 800); },
        MergeKey{QStringLiteral("budget.total"), second});
    QCOMPARE(doc.undoStack()->count(), 2);
    // A drag that ends where it began leaves no step behind.
    doc.edit(
        QStringLiteral("total"), [](Project& p) { setTotalBandwidth(p, 700); },
        MergeKey{QStringLiteral("budget.total"), second});
    QCOMPARE(doc.undoStack()->count(), 1);
    QVERIFY(doc.isModified());
    doc.undoStack()->undo();
    QVERIFY(splitConstraints(doc.project().constraints).totalBandwidth ==
            std::optional<double>(1000));
    QVERIFY(!doc.isModified());
    // No-op edits push nothing.
    QVERIFY(!doc.edit(QStringLiteral("nothing"), [](Project&) {}));
  }

#ifdef LIBRA_REFERENCE_DIR
  // Only built where ../shared exists (tests/ui/CMakeLists.txt): absent, not skipped.
  void importDialogBuildsAProjectFromTheReferenceInputs() {
    const QString dir = QStringLiteral(LIBRA_REFERENCE_DIR "/libra-inputs/");
    ImportDialog dialog;
    auto field = [&](const char* name) {
      return dialog.findChild<QLineEdit*>(QString::fromLatin1(name));
    };
    // Missing required files: the dialog stays open and says why.
    dialog.accept();
    QVERIFY(dialog.result() != QDialog::Accepted);
    QVERIFY(!dialog.findChild<QLabel*>(QStringLiteral("importError"))->text().isEmpty());
    field("importNetwork")->setText(dir + QStringLiteral("network/4d_network.yml"));
    field("importWorkload")->setText(dir + QStringLiteral("workload/nowhere.txt"));
    dialog.accept();
    QVERIFY(dialog.result() != QDialog::Accepted);
    QVERIFY(dialog.findChild<QLabel*>(QStringLiteral("importError"))
                ->text()
                .contains(QStringLiteral("nowhere.txt")));
    field("importWorkload")->setText(dir + QStringLiteral("workload/GPT_3.txt"));
    field("importCommunicator")->setText(dir + QStringLiteral("communicator/GPT_3_4d.yml"));
    field("importCostModel")->setText(dir + QStringLiteral("cost_model/4d_cost_model.yml"));
    dialog.accept();
    QCOMPARE(dialog.result(), int(QDialog::Accepted));
    QCOMPARE(dialog.project().network.size(), 4);
    QCOMPARE(dialog.project().network.npuCount(), 4096);
    validateProject(dialog.project());
  }
#endif

  void constraintErrorsNameTheirColumn() {
    Document doc(loadExample(QStringLiteral("gpt3-4d")));
    const auto issues =
        ConstraintEditor::validate({QStringLiteral("bw[0] >= bw[1]"), QString(),
                                    QStringLiteral("bw[nowhere] <= 5"), QStringLiteral("total ==")},
                                   doc);
    QCOMPARE(issues.size(), 2);
    QCOMPARE(issues[0].line, 2);
    QVERIFY(issues[0].column >= 1);
    QVERIFY(issues[0].message.contains(QStringLiteral("nowhere")));
    QCOMPARE(issues[1].line, 3);
  }

  void typedConstraintsReachTheDocumentOnlyWhenValid() {
    Document doc(loadExample(QStringLiteral("gpt3-4d")));
    ConstraintEditor editor(&doc);
    editor.textEdit()->setPlainText(QStringLiteral("bw[chiplet] >= bw[package]\nbw[pod] <= 5x"));
    QVERIFY(!editor.issues().isEmpty());
    QVERIFY(editor.issuesText().contains(QStringLiteral("Line 2")));
    editor.commitNow();
    QVERIFY(splitConstraints(doc.project().constraints).extra ==
            std::vector<std::string>{"bw[chiplet] >= bw[package]"});
    editor.textEdit()->setPlainText(QStringLiteral("bw[chiplet] >= bw[package]\nbw[pod] <= 50"));
    QVERIFY(editor.issues().isEmpty());
    QTRY_VERIFY(splitConstraints(doc.project().constraints).extra ==
                (std::vector<std::string>{"bw[chiplet] >= bw[package]", "bw[pod] <= 50"}));
    doc.undoStack()->undo();
    QCOMPARE(editor.textEdit()->toPlainText(), QStringLiteral("bw[chiplet] >= bw[package]"));
  }
};

QTEST_MAIN(ModelsTest)
#include "test_models.moc"
