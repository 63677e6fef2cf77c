#include "cost_level_model.hpp"

#include <QHeaderView>
#include <QLabel>
#include <QPalette>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "document.hpp"
#include "format.hpp"

namespace libra::studio {

namespace {

std::optional<double> priceOf(const CostLevel& level, int column) {
  if (column == CostLevelModel::Link) return level.link;
  if (column == CostLevelModel::Switch) return level.switchPrice;
  return level.nic;
}

std::optional<double>& priceOf(CostLevel& level, int column) {
  if (column == CostLevelModel::Link) return level.link;
  if (column == CostLevelModel::Switch) return level.switchPrice;
  return level.nic;
}

std::vector<std::pair<std::string, std::string>> usesOf(const Project& p) {
  std::vector<std::pair<std::string, std::string>> uses;
  for (const Dimension& d : p.network.dims) uses.emplace_back(d.name, d.costLevel);
  return uses;
}

}  // namespace

CostLevelModel::CostLevelModel(Document* document, QObject* parent)
    : QAbstractTableModel(parent), document_(document) {
  syncWithDocument();
  connect(document_, &Document::projectChanged, this, [this](Document::Parts parts) {
    if (parts & (Document::Network | Document::CostModel)) syncWithDocument();
  });
}

void CostLevelModel::syncWithDocument() {
  const Project& p = document_->project();
  if (p.costModel == shownModel_ && usesOf(p) == shownUses_ && !levels_.empty()) return;
  std::vector<std::string> levels;
  for (const auto& [name, level] : p.costModel.levels) levels.push_back(name);
  // A level a dimension names but the model lacks is a row too: its prices are
  // what the solve is missing.
  for (const Dimension& d : p.network.dims) {
    if (std::find(levels.begin(), levels.end(), d.costLevel) == levels.end())
      levels.push_back(d.costLevel);
  }
  shownModel_ = p.costModel;
  shownUses_ = usesOf(p);
  if (levels != levels_) {
    beginResetModel();
    levels_ = std::move(levels);
    endResetModel();
  } else if (!levels_.empty()) {
    Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
  }
}

int CostLevelModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(levels_.size());
}

int CostLevelModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant CostLevelModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return {};
  const std::string& name = levels_[static_cast<std::size_t>(index.row())];
  const auto& levels = document_->project().costModel.levels;
  const auto it = levels.find(name);
  const CostLevel level = it == levels.end() ? CostLevel{} : it->second;
  const int col = index.column();
  if (role == Qt::DisplayRole || role == Qt::EditRole) {
    if (col == Level) return role == Qt::EditRole ? toQString(name) : shownName(name);
    if (col == UsedBy) {
      QStringList dims;
      for (const Dimension& d : document_->project().network.dims) {
        if (d.costLevel == name) dims << shownName(d.name);
      }
      return dims.join(QStringLiteral(", "));
    }
    const std::optional<double> price = priceOf(level, col);
    if (role == Qt::EditRole) return price ? plainNumber(*price) : QString();
    return price ? QStringLiteral("$") + plainNumber(*price) : QStringLiteral("—");
  }
  if (role == Qt::TextAlignmentRole && col >= Link && col <= Nic)
    return QVariant(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::ForegroundRole && col >= Link && col <= Nic && !priceOf(level, col))
    return QPalette().color(QPalette::Disabled, QPalette::Text);
  if (role == Qt::ToolTipRole && col >= Link && col <= Nic) {
    return tr(
        "$ per GB/s of one NPU's bandwidth; empty: no price (a dimension that needs it "
        "cannot be priced)");
  }
  return {};
}

bool CostLevelModel::setData(const QModelIndex& index, const QVariant& value, int role) {
  if (role != Qt::EditRole || !checkIndex(index, CheckIndexOption::IndexIsValid) ||
      index.column() < Link || index.column() > Nic)
    return false;
  const QString text = value.toString().trimmed().remove(QLatin1Char('$'));
  std::optional<double> price;
  if (!text.isEmpty()) {
    bool ok = false;
    const double v = text.toDouble(&ok);
    if (!ok || !std::isfinite(v) || v < 0) return false;  // a price is a number >= 0
    price = v;
  }
  const std::string name = levels_[static_cast<std::size_t>(index.row())];
  const int col = index.column();
  const QString what = headerData(col, Qt::Horizontal, Qt::DisplayRole).toString().toLower();
  return document_->edit(tr("Set the %1 price of %2").arg(what, shownName(name)),
                         [&](Project& p) { priceOf(p.costModel.levels[name], col) = price; });
}

QVariant CostLevelModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal)
    return QAbstractTableModel::headerData(section, orientation, role);
  if (role != Qt::DisplayRole && role != Qt::ToolTipRole) return {};
  const bool tip = role == Qt::ToolTipRole;
  switch (section) {
    case Level:
      return tip ? tr("The cost level dimensions are priced at") : tr("Level");
    case Link:
      return tip ? tr("Link price, $ per GB/s (every building block pays it)") : tr("Link");
    case Switch:
      return tip ? tr("Switch price, $ per GB/s (Switch dimensions)") : tr("Switch");
    case Nic:
      return tip ? tr("NIC price, $ per GB/s (Switch dimensions)") : tr("NIC");
    case UsedBy:
      return tip ? tr("The dimensions priced at this level") : tr("Used by");
    default:
      return {};
  }
}

Qt::ItemFlags CostLevelModel::flags(const QModelIndex& index) const {
  Qt::ItemFlags f = QAbstractTableModel::flags(index);
  if (index.isValid() && index.column() >= Link && index.column() <= Nic) f |= Qt::ItemIsEditable;
  return f;
}

CostLevelPanel::CostLevelPanel(Document* document, QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("costLevelPanel"));
  table_ = new QTableView;
  table_->setObjectName(QStringLiteral("costLevelTable"));
  table_->setModel(new CostLevelModel(document, table_));
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed |
                          QAbstractItemView::AnyKeyPressed);
  auto* note =
      new QLabel(tr("Unit prices in $ per GB/s of one NPU's bandwidth. Ring and "
                    "FullyConnected dimensions pay the link price; Switch dimensions "
                    "pay link + switch + NIC. Double-click a price to edit it."));
  note->setWordWrap(true);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(table_, 1);
  layout->addWidget(note);
}

}  // namespace libra::studio
