// Read-only views of a workload: its layers (compute time and collective of each
// phase) and its communicator (group size per phase kind and dimension).
#pragma once

#include <QAbstractTableModel>
#include <libra/workload.hpp>
#include <optional>
#include <string>
#include <vector>

namespace libra::studio {

class Document;

class LayerTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    Name,
    ForwardCompute,
    ForwardCollective,
    InputGradCompute,
    InputGradCollective,
    WeightGradCompute,
    WeightGradCollective,
    ColumnCount
  };

  explicit LayerTableModel(Document* document, QObject* parent = nullptr);

  // Which of the project's workloads is shown.
  void setWorkloadIndex(int index);
  int workloadIndex() const { return workload_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  void sync();
  int currentRows() const;

  Document* document_;
  int workload_ = 0;
  int rows_ = 0;
  // What the views were last told about: most edits (budgets, constraints) leave the
  // workload alone, and then the views are not disturbed at all.
  std::optional<Workload> shown_;
};

class CommunicatorTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  explicit CommunicatorTableModel(Document* document, QObject* parent = nullptr);

  void setWorkloadIndex(int index);

  int rowCount(const QModelIndex& parent = {}) const override;     // F, IG, WG
  int columnCount(const QModelIndex& parent = {}) const override;  // one per dimension
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  void sync();

  Document* document_;
  int workload_ = 0;
  int columns_ = 0;
  std::optional<Workload> shownWorkload_;
  std::vector<std::string> shownNames_;
};

}  // namespace libra::studio
