// The network: a table of dimensions (innermost first) with add, remove and
// reorder, the number of dimensions and the total NPU count.
#pragma once

#include <QWidget>

QT_BEGIN_NAMESPACE
class QLabel;
class QPushButton;
class QSpinBox;
class QTableView;
QT_END_NAMESPACE

namespace libra::studio {

class DimensionTableModel;
class Document;

class NetworkPanel : public QWidget {
  Q_OBJECT

 public:
  explicit NetworkPanel(Document* document, QWidget* parent = nullptr);

  QTableView* table() const { return table_; }
  // The width that shows every column of the table whole: the panel widens
  // its dock to it when shown and when a project is opened (never narrows it).
  int preferredWidth() const;
  // Rows the table always has room for (more scroll).
  static constexpr int kRowsAlwaysShown = 4;
  DimensionTableModel* model() const { return model_; }

 private:
  void createTable();     // the dimension table and its model
  void createControls();  // the dimension count, the N label, the buttons, the layout
  void connectEdits();    // the count and the buttons edit the document
  // The buttons, the table's height and width follow the model and the document.
  void followTheTable();
  void sync();
  // The table's minimum height: its header and kRowsAlwaysShown rows (or all).
  void fitTableHeight();
  void growDockToFit();

 protected:
  void showEvent(QShowEvent* event) override;

 private:
  int currentRow() const;
  void selectRow(int row);

  Document* document_;
  DimensionTableModel* model_;
  QTableView* table_;
  QSpinBox* count_;
  QLabel* npus_;
  QPushButton* add_;
  QPushButton* remove_;
  QPushButton* up_;
  QPushButton* down_;
};

}  // namespace libra::studio
