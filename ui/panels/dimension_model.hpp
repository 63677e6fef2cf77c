// The network's dimensions as an editable table. Reads the document's project;
// every edit is an undoable document command, so the model never holds state.
#pragma once

#include <QAbstractTableModel>
#include <QStringList>
#include <libra/network.hpp>
#include <string>
#include <vector>

namespace libra::studio {

class Document;

class DimensionTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    Name,
    Block,
    Npus,
    CostLevel,
    Latency,  // link latency, ns (used by chunked collective models)
    MinBandwidth,
    MaxBandwidth,
    FixedBandwidth,
    ColumnCount
  };

  explicit DimensionTableModel(Document* document, QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;
  Qt::ItemFlags flags(const QModelIndex& index) const override;

  // The choices the editors offer.
  static QStringList buildingBlockNames();
  QStringList costLevelNames() const;

 private:
  // The cost level's tooltip: its name and the dimension's price per GB/s.
  QString costLevelTip(int row) const;
  void syncWithDocument();

  Document* document_;
  int rows_ = 0;
  Network shown_;  // what the views were last told about
};

}  // namespace libra::studio
