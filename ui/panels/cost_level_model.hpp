// The cost levels of the project and their unit prices ($ per GB/s of one
// NPU's bandwidth): one row per level the cost model defines or a dimension
// names, with the dimensions priced at it. Link, Switch and NIC are edited in
// place, each edit one undoable step; an empty cell clears the price. A Switch
// dimension pays link + switch + NIC, Ring and FullyConnected the link
// (libra::costPerBandwidth).
#pragma once

#include <QAbstractTableModel>
#include <QWidget>
#include <libra/cost.hpp>
#include <string>
#include <vector>

QT_BEGIN_NAMESPACE
class QTableView;
QT_END_NAMESPACE

namespace libra::studio {

class Document;

class CostLevelModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { Level, Link, Switch, Nic, UsedBy, ColumnCount };

  explicit CostLevelModel(Document* document, QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;
  Qt::ItemFlags flags(const QModelIndex& index) const override;

 private:
  void syncWithDocument();

  Document* document_;
  std::vector<std::string> levels_;  // the rows, by name
  CostModel shownModel_;
  std::vector<std::pair<std::string, std::string>> shownUses_;  // (dimension, level)
};

// The "Cost levels" dock's content: the table and what its prices mean.
class CostLevelPanel : public QWidget {
  Q_OBJECT

 public:
  explicit CostLevelPanel(Document* document, QWidget* parent = nullptr);
  QTableView* table() const { return table_; }

 private:
  QTableView* table_;
};

}  // namespace libra::studio
