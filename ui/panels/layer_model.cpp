#include "layer_model.hpp"

#include <libra/report/units.hpp>
#include <libra/workload.hpp>

#include "document.hpp"
#include "format.hpp"

namespace libra::studio {

namespace {

const Workload* workloadAt(const Document* document, int index) {
  const auto& workloads = document->project().workloads;
  if (index < 0 || index >= static_cast<int>(workloads.size())) return nullptr;
  return &workloads[index];
}

QString formatBytes(double bytes) {
  return toQString(report::formatBytes(bytes));
}

QString phaseKindName(int kind) {
  switch (kind) {
    case 0:
      return QObject::tr("Forward");
    case 1:
      return QObject::tr("Input grad");
    default:
      return QObject::tr("Weight grad");
  }
}

}  // namespace

LayerTableModel::LayerTableModel(Document* document, QObject* parent)
    : QAbstractTableModel(parent), document_(document) {
  rows_ = currentRows();
  if (const Workload* w = workloadAt(document_, workload_)) shown_ = *w;
  connect(document_, &Document::projectChanged, this, [this](Document::Parts parts) {
    if (parts & Document::Workloads) sync();
  });
}

int LayerTableModel::currentRows() const {
  const Workload* w = workloadAt(document_, workload_);
  return w ? static_cast<int>(w->layers.size()) : 0;
}

void LayerTableModel::setWorkloadIndex(int index) {
  if (index == workload_) return;
  beginResetModel();
  workload_ = index;
  rows_ = currentRows();
  const Workload* w = workloadAt(document_, workload_);
  shown_ = w ? std::optional<Workload>(*w) : std::nullopt;
  endResetModel();
}

void LayerTableModel::sync() {
  const Workload* w = workloadAt(document_, workload_);
  if ((w == nullptr && !shown_) || (w && shown_ && *w == *shown_)) return;
  shown_ = w ? std::optional<Workload>(*w) : std::nullopt;
  const int rows = currentRows();
  if (rows != rows_) {
    beginResetModel();
    rows_ = rows;
    endResetModel();
  } else if (rows_ > 0) {
    Q_EMIT dataChanged(index(0, 0), index(rows_ - 1, ColumnCount - 1));
  }
}

int LayerTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : rows_;
}

int LayerTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant LayerTableModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return {};
  const Workload* w = workloadAt(document_, workload_);
  if (!w || index.row() >= static_cast<int>(w->layers.size())) return {};
  const Layer& layer = w->layers[index.row()];
  const int col = index.column();
  if (col == Name) {
    if (role == Qt::DisplayRole) return shownName(layer.name);
    return {};
  }
  const int kind = (col - 1) / 2;
  const bool isCompute = (col - 1) % 2 == 0;
  const Phase& phase = layer.phases[kind];
  if (role == Qt::DisplayRole) {
    if (isCompute) return formatTimeNs(phase.computeNs);
    if (phase.collective == CollectiveType::None) return QStringLiteral("—");
    return toQString(std::string(toString(phase.collective))) + QStringLiteral(" ") +
           formatBytes(phase.sizeBytes);
  }
  if (role == Qt::TextAlignmentRole && isCompute)
    return QVariant(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::ToolTipRole) {
    if (isCompute) {
      return tr("%1 compute: %2 ns").arg(phaseKindName(kind)).arg(formatCount(phase.computeNs));
    }
    if (phase.collective == CollectiveType::None) return tr("No collective");
    QString tip = tr("%1 %2 of %3 bytes")
                      .arg(phaseKindName(kind), toQString(std::string(toString(phase.collective))))
                      .arg(formatCount(phase.sizeBytes));
    if (!phase.groups.empty()) {
      QStringList g;
      for (int v : phase.groups) g << QString::number(v);
      tip += tr("\nGroups per dimension: %1").arg(g.join(QStringLiteral(" × ")));
    }
    return tip;
  }
  return {};
}

QVariant LayerTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation == Qt::Vertical)
    return role == Qt::DisplayRole ? QVariant(section + 1) : QVariant();
  if (role != Qt::DisplayRole) return {};
  switch (section) {
    case Name:
      return tr("Layer");
    case ForwardCompute:
      return tr("Fwd compute");
    case ForwardCollective:
      return tr("Fwd collective");
    case InputGradCompute:
      return tr("IG compute");
    case InputGradCollective:
      return tr("IG collective");
    case WeightGradCompute:
      return tr("WG compute");
    case WeightGradCollective:
      return tr("WG collective");
    default:
      return {};
  }
}

CommunicatorTableModel::CommunicatorTableModel(Document* document, QObject* parent)
    : QAbstractTableModel(parent), document_(document) {
  columns_ = document_->project().network.size();
  connect(document_, &Document::projectChanged, this, [this](Document::Parts parts) {
    if (parts & (Document::Workloads | Document::Network)) sync();
  });
}

void CommunicatorTableModel::setWorkloadIndex(int index) {
  if (index == workload_) return;
  beginResetModel();
  workload_ = index;
  endResetModel();
}

void CommunicatorTableModel::sync() {
  const Workload* w = workloadAt(document_, workload_);
  const std::vector<std::string> names = document_->project().network.names();
  const std::optional<Workload> current = w ? std::optional<Workload>(*w) : std::nullopt;
  if (current == shownWorkload_ && names == shownNames_) return;
  shownWorkload_ = current;
  shownNames_ = names;
  const int columns = document_->project().network.size();
  if (columns != columns_) {
    beginResetModel();
    columns_ = columns;
    endResetModel();
  } else if (columns_ > 0) {
    Q_EMIT dataChanged(index(0, 0), index(2, columns_ - 1));
    Q_EMIT headerDataChanged(Qt::Horizontal, 0, columns_ - 1);
  }
}

int CommunicatorTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : 3;
}

int CommunicatorTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : columns_;
}

QVariant CommunicatorTableModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return {};
  const Workload* w = workloadAt(document_, workload_);
  if (!w) return {};
  const auto& groups = w->communicator.groups[index.row()];
  if (index.column() >= static_cast<int>(groups.size())) return {};
  const int g = groups[index.column()];
  if (role == Qt::DisplayRole) return g <= 1 ? QStringLiteral("—") : QString::number(g);
  if (role == Qt::TextAlignmentRole) return QVariant(Qt::AlignCenter);
  if (role == Qt::ToolTipRole) {
    return g <= 1 ? tr("%1 collectives do not use this dimension").arg(phaseKindName(index.row()))
                  : tr("%1 collectives span %2 NPUs of this dimension")
                        .arg(phaseKindName(index.row()))
                        .arg(g);
  }
  return {};
}

QVariant CommunicatorTableModel::headerData(int section, Qt::Orientation orientation,
                                            int role) const {
  if (role != Qt::DisplayRole) return {};
  if (orientation == Qt::Vertical) return phaseKindName(section);
  const auto& dims = document_->project().network.dims;
  if (section < 0 || section >= static_cast<int>(dims.size())) return {};
  return shownName(dims[section].name);
}

}  // namespace libra::studio
