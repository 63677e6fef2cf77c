#include "dimension_model.hpp"

#include <QBrush>
#include <QFont>
#include <QPalette>
#include <cmath>
#include <libra/cost.hpp>
#include <libra/edits.hpp>
#include <libra/network.hpp>

#include "document.hpp"
#include "format.hpp"

namespace libra::studio {

namespace {

std::optional<double>& boundOf(Dimension& d, int column) {
  if (column == DimensionTableModel::MinBandwidth) return d.minBandwidth;
  if (column == DimensionTableModel::MaxBandwidth) return d.maxBandwidth;
  return d.fixedBandwidth;
}

const std::optional<double>& boundOf(const Dimension& d, int column) {
  return boundOf(const_cast<Dimension&>(d), column);
}

}  // namespace

DimensionTableModel::DimensionTableModel(Document* document, QObject* parent)
    : QAbstractTableModel(parent), document_(document) {
  rows_ = document_->project().network.size();
  shown_ = document_->project().network;
  connect(document_, &Document::projectChanged, this, [this](Document::Parts parts) {
    if (parts & (Document::Network | Document::CostModel)) syncWithDocument();
  });
}

void DimensionTableModel::syncWithDocument() {
  // Most edits (budgets, constraints) leave the network alone: then say nothing.
  if (document_->project().network == shown_) return;
  shown_ = document_->project().network;
  const int rows = document_->project().network.size();
  if (rows != rows_) {
    beginResetModel();
    rows_ = rows;
    endResetModel();
    return;
  }
  if (rows_ > 0) {
    Q_EMIT dataChanged(index(0, 0), index(rows_ - 1, ColumnCount - 1));
    Q_EMIT headerDataChanged(Qt::Vertical, 0, rows_ - 1);
  }
}

int DimensionTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : rows_;
}

int DimensionTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QStringList DimensionTableModel::buildingBlockNames() {
  return {QStringLiteral("Ring"), QStringLiteral("FullyConnected"), QStringLiteral("Switch")};
}

QStringList DimensionTableModel::costLevelNames() const {
  QStringList names;
  for (const auto& [name, level] : document_->project().costModel.levels) names << toQString(name);
  return names;
}

QString DimensionTableModel::costLevelTip(int row) const {
  const Project& p = document_->project();
  const Dimension& d = p.network.dims[static_cast<std::size_t>(row)];
  QString tip = tr("Cost level %1: the unit prices this dimension is priced at (the Cost "
                   "Levels tab edits them).")
                    .arg(toQString(d.costLevel));
  try {
    // The engine's price of the dimension (link, + switch + NIC for a Switch).
    const auto at = static_cast<std::size_t>(row);
    tip += tr("<br>This dimension: <b>$%1 per GB/s</b> of one NPU's bandwidth, %2 per GB/s "
              "given to all %3 NPUs.")
               .arg(plainNumber(unitPrices(p.network, p.costModel)[at]))
               .arg(formatCostUsd(costPerBandwidth(p.network, p.costModel)[at]))
               .arg(formatNpus(p.network.npuCount()));
  } catch (const std::exception& e) {
    tip += QStringLiteral("<br>") + toQString(e.what()).toHtmlEscaped();
  }
  return tip;
}

QVariant DimensionTableModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return {};
  const Network& net = document_->project().network;
  if (index.row() >= net.size()) return {};
  const Dimension& d = net.dims[index.row()];
  const int col = index.column();

  if (role == Qt::DisplayRole || role == Qt::EditRole) {
    switch (col) {
      case Name:
        return role == Qt::EditRole ? toQString(d.name) : shownName(d.name);
      case Block:
        return toQString(std::string(toString(d.block)));
      case Npus:
        return d.npus;
      case CostLevel:
        return toQString(d.costLevel);
      case Latency:
        return role == Qt::EditRole ? QVariant(plainNumber(d.latencyNs))
                                    : QVariant(tr("%1 ns").arg(plainNumber(d.latencyNs)));
      default: {
        const auto& b = boundOf(d, col);
        if (!b) return role == Qt::EditRole ? QVariant(QString()) : QVariant(QStringLiteral("—"));
        return role == Qt::EditRole ? QVariant(plainNumber(*b)) : QVariant(formatBandwidth(*b));
      }
    }
  }
  if (role == Qt::TextAlignmentRole) {
    if (col == Npus || col >= Latency) return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    return {};
  }
  if (role == Qt::ForegroundRole && col >= MinBandwidth && !boundOf(d, col)) {
    return QBrush(QPalette().color(QPalette::Disabled, QPalette::Text));
  }
  if (role == Qt::ToolTipRole) {
    switch (col) {
      case Name:
        return tr("Dimension %1 (0 = innermost). Constraints refer to it as bw[%2].")
            .arg(index.row())
            .arg(shownName(d.name));
      case Block:
        return tr("Building block: Ring, FullyConnected or Switch");
      case Npus:
        return tr("NPUs in this dimension (at least 2)");
      case CostLevel:
        return costLevelTip(index.row());
      case Latency:
        return tr(
            "Latency of one link of this dimension, ns (a Switch step crosses two). "
            "Used when collectives are cut into chunks; LIBRA's ideal model ignores it.");
      case MinBandwidth:
        return tr("Lower bound on this dimension's bandwidth, GB/s per NPU (empty: none)");
      case MaxBandwidth:
        return tr("Upper bound on this dimension's bandwidth, GB/s per NPU (empty: none)");
      case FixedBandwidth:
        return tr("Fixed bandwidth, GB/s per NPU (empty: chosen by the optimizer)");
      default:
        return {};
    }
  }
  return {};
}

bool DimensionTableModel::setData(const QModelIndex& index, const QVariant& value, int role) {
  if (role != Qt::EditRole) return false;
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return false;
  const int row = index.row();
  const int col = index.column();
  const Dimension& current = document_->project().network.dims[row];
  const QString dimLabel = shownName(current.name);
  // Not applied: the cell shows the project's value again, and the window why.
  auto refuse = [&](const QString& why) {
    const QString what = headerData(col, Qt::Horizontal, Qt::DisplayRole).toString();
    Q_EMIT document_->inputRefused(tr("%1 of %2 not changed: %3").arg(what, dimLabel, why));
    return false;
  };
  const QString typed = value.toString().trimmed();

  switch (col) {
    case Name: {
      const QString name = value.toString().trimmed();
      if (name.isEmpty()) return refuse(tr("a dimension needs a name"));
      const auto other = document_->project().network.indexOf(toStd(name));
      if (other && *other != row)
        return refuse(tr("dimension %1 is already named %2").arg(*other).arg(name));
      document_->reportingEdit(tr("Rename dimension %1 to %2").arg(dimLabel, name),
                               [&](Project& p) { return renameDimension(p, row, toStd(name)); });
      return true;
    }
    case Block: {
      const auto block = parseBuildingBlock(toStd(value.toString()));
      if (!block)
        return refuse(tr("'%1' is not a building block (%2)")
                          .arg(typed, buildingBlockNames().join(QStringLiteral(", "))));
      document_->edit(tr("Set %1 building block").arg(dimLabel),
                      [&](Project& p) { p.network.dims[row].block = *block; });
      return true;
    }
    case Npus: {
      bool ok = false;
      const int npus = value.toInt(&ok);
      if (!ok) return refuse(tr("'%1' is not a whole number").arg(typed));
      if (npus < 2) return refuse(tr("a dimension has at least 2 NPUs, not %1").arg(npus));
      document_->reportingEdit(tr("Set %1 NPUs to %2").arg(dimLabel).arg(npus),
                               [&](Project& p) { return setDimensionNpus(p, row, npus); });
      return true;
    }
    case CostLevel: {
      const QString level = value.toString().trimmed();
      if (level.isEmpty()) return refuse(tr("a dimension needs a cost level"));
      document_->edit(tr("Set %1 cost level").arg(dimLabel),
                      [&](Project& p) { p.network.dims[row].costLevel = toStd(level); });
      return true;
    }
    case Latency: {
      QString text = value.toString().trimmed();
      if (text.endsWith(QStringLiteral("ns"))) text.chop(2);
      bool ok = false;
      const double ns = text.trimmed().toDouble(&ok);
      if (!ok || !std::isfinite(ns) || ns < 0)
        return refuse(tr("'%1' is not a latency in ns (a number >= 0)").arg(typed));
      document_->edit(tr("Set %1 latency to %2 ns").arg(dimLabel, plainNumber(ns)),
                      [&](Project& p) { p.network.dims[row].latencyNs = ns; });
      return true;
    }
    default: {
      std::optional<double> bound;
      const QString text = value.toString().trimmed();
      if (!text.isEmpty() && text != QStringLiteral("—")) {
        bool ok = false;
        const double v = text.toDouble(&ok);
        if (!ok || !std::isfinite(v) || v < 0)
          return refuse(tr("'%1' is not a bandwidth in GB/s (a number >= 0, or empty)").arg(text));
        bound = v;
      }
      const QString what = headerData(col, Qt::Horizontal, Qt::DisplayRole).toString();
      document_->edit(tr("Set %1 %2").arg(dimLabel, what.toLower()),
                      [&](Project& p) { boundOf(p.network.dims[row], col) = bound; });
      return true;
    }
  }
}

QVariant DimensionTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation == Qt::Vertical) {
    if (role == Qt::DisplayRole) return section;
    if (role == Qt::ToolTipRole) return tr("Dimension %1; 0 is the innermost").arg(section);
    return {};
  }
  if (role != Qt::DisplayRole && role != Qt::ToolTipRole) return {};
  switch (section) {
    case Name:
      return tr("Name");
    case Block:
      return tr("Block");
    case Npus:
      return tr("NPUs");
    case CostLevel:
      return tr("Cost level");
    case Latency:
      return role == Qt::DisplayRole ? tr("Latency") : tr("Link latency, ns");
    case MinBandwidth:
      return role == Qt::DisplayRole ? tr("Min") : tr("Minimum bandwidth, GB/s per NPU");
    case MaxBandwidth:
      return role == Qt::DisplayRole ? tr("Max") : tr("Maximum bandwidth, GB/s per NPU");
    case FixedBandwidth:
      return role == Qt::DisplayRole ? tr("Fixed") : tr("Fixed bandwidth, GB/s per NPU");
    default:
      return {};
  }
}

Qt::ItemFlags DimensionTableModel::flags(const QModelIndex& index) const {
  if (!index.isValid()) return Qt::NoItemFlags;
  return Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsEditable;
}

}  // namespace libra::studio
