#include "network_panel.hpp"

#include <QComboBox>
#include <QDockWidget>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMainWindow>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStyle>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <libra/edits.hpp>

#include "dimension_model.hpp"
#include "document.hpp"
#include "format.hpp"

namespace libra::studio {

namespace {

// Building blocks and cost levels are picked from lists (a cost level may also be typed).
class ChoiceDelegate : public QStyledItemDelegate {
 public:
  ChoiceDelegate(DimensionTableModel* model, QObject* parent)
      : QStyledItemDelegate(parent), model_(model) {}

  QWidget* createEditor(QWidget* parent, const QStyleOptionViewItem& option,
                        const QModelIndex& index) const override {
    if (index.column() == DimensionTableModel::Block ||
        index.column() == DimensionTableModel::CostLevel) {
      auto* combo = new QComboBox(parent);
      if (index.column() == DimensionTableModel::Block) {
        combo->addItems(DimensionTableModel::buildingBlockNames());
      } else {
        combo->setEditable(true);
        combo->addItems(model_->costLevelNames());
      }
      return combo;
    }
    if (index.column() == DimensionTableModel::Npus) {
      auto* spin = new QSpinBox(parent);
      spin->setRange(2, 1 << 20);
      return spin;
    }
    return QStyledItemDelegate::createEditor(parent, option, index);
  }
  void setEditorData(QWidget* editor, const QModelIndex& index) const override {
    if (auto* combo = qobject_cast<QComboBox*>(editor)) {
      combo->setCurrentText(index.data(Qt::EditRole).toString());
      return;
    }
    QStyledItemDelegate::setEditorData(editor, index);
  }
  void setModelData(QWidget* editor, QAbstractItemModel* model,
                    const QModelIndex& index) const override {
    if (auto* combo = qobject_cast<QComboBox*>(editor)) {
      model->setData(index, combo->currentText(), Qt::EditRole);
      return;
    }
    QStyledItemDelegate::setModelData(editor, model, index);
  }

 private:
  DimensionTableModel* model_;
};

QPushButton* toolButton(const QString& text, const QString& name, const QString& tip) {
  auto* b = new QPushButton(text);
  b->setObjectName(name);
  b->setToolTip(tip);
  return b;
}

}  // namespace

NetworkPanel::NetworkPanel(Document* document, QWidget* parent)
    : QWidget(parent), document_(document) {
  setObjectName(QStringLiteral("networkPanel"));
  createTable();
  createControls();
  connectEdits();
  followTheTable();
  sync();
}

void NetworkPanel::createTable() {
  model_ = new DimensionTableModel(document_, this);
  table_ = new QTableView;
  table_->setObjectName(QStringLiteral("dimensionTable"));
  table_->setModel(model_);
  table_->setItemDelegate(new ChoiceDelegate(model_, table_));
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed |
                          QAbstractItemView::AnyKeyPressed);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  // Not stretched: a stretched last section kept 100 px when there was no room.
  table_->horizontalHeader()->setStretchLastSection(false);
  table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 10);
  table_->setToolTip(tr("Dimensions, innermost (0) first. Double-click a cell to edit it."));
}

void NetworkPanel::createControls() {
  count_ = new QSpinBox;
  count_->setObjectName(QStringLiteral("dimensionCount"));
  count_->setRange(1, 8);
  count_->setToolTip(
      tr("Number of dimensions; new ones are added, or the outermost removed, at the end"));
  npus_ = new QLabel;
  npus_->setObjectName(QStringLiteral("totalNpus"));
  npus_->setToolTip(tr("N: the product of the NPU counts of all dimensions"));

  add_ = toolButton(tr("Add"), QStringLiteral("addDimension"),
                    tr("Insert a dimension after the selected one"));
  remove_ = toolButton(tr("Remove"), QStringLiteral("removeDimension"),
                       tr("Remove the selected dimension"));
  up_ = toolButton(tr("Move in"), QStringLiteral("moveDimensionUp"),
                   tr("Move the selected dimension inwards"));
  down_ = toolButton(tr("Move out"), QStringLiteral("moveDimensionDown"),
                     tr("Move the selected dimension outwards"));

  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("Dimensions")));
  top->addWidget(count_);
  top->addStretch(1);
  top->addWidget(npus_);
  auto* buttons = new QHBoxLayout;
  for (QPushButton* b : {add_, remove_, up_, down_}) buttons->addWidget(b);
  buttons->addStretch(1);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(top);
  layout->addWidget(table_, 1);
  layout->addLayout(buttons);
}

void NetworkPanel::connectEdits() {
  connect(count_, &QSpinBox::valueChanged, this, [this](int n) {
    document_->reportingEdit(tr("Set the number of dimensions to %1").arg(n),
                             [n](Project& p) { return setDimensionCount(p, n); });
  });
  connect(add_, &QPushButton::clicked, this, [this] {
    const int at = currentRow() + 1;
    const int row = at <= 0 ? document_->project().network.size() : at;
    document_->reportingEdit(tr("Add a dimension"),
                             [row](Project& p) { return insertDimension(p, row); });
    selectRow(row);
  });
  connect(remove_, &QPushButton::clicked, this, [this] {
    const int row = currentRow();
    if (row < 0 || document_->project().network.size() <= 1) return;
    const QString name = shownName(document_->project().network.dims[row].name);
    document_->reportingEdit(tr("Remove dimension %1").arg(name),
                             [row](Project& p) { return removeDimension(p, row); });
    selectRow(std::min(row, document_->project().network.size() - 1));
  });
  auto move = [this](int delta) {
    const int row = currentRow();
    const int to = row + delta;
    if (row < 0 || to < 0 || to >= document_->project().network.size()) return;
    const QString name = shownName(document_->project().network.dims[row].name);
    document_->reportingEdit(tr("Move dimension %1").arg(name),
                             [row, to](Project& p) { return moveDimension(p, row, to); });
    selectRow(to);
  };
  connect(up_, &QPushButton::clicked, this, [move] { move(-1); });
  connect(down_, &QPushButton::clicked, this, [move] { move(+1); });
}

void NetworkPanel::followTheTable() {
  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          &NetworkPanel::sync);
  connect(model_, &QAbstractItemModel::modelReset, this, [this] {
    // The view's selection model survives a reset; its buttons must follow.
    sync();
  });
  for (auto signal : {&QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved})
    connect(model_, signal, this, &NetworkPanel::fitTableHeight);
  connect(model_, &QAbstractItemModel::modelReset, this, &NetworkPanel::fitTableHeight);
  // Another project may need wider columns: after the table has laid them out.
  connect(document_, &Document::documentReset, this,
          [this] { QTimer::singleShot(0, this, &NetworkPanel::growDockToFit); });
  fitTableHeight();
  // Never narrower than the columns: at the window's minimum size the dock
  // scrolled Max and Fixed out of the table. Once the header has resized all
  // its sections (it does so one by one).
  auto* fitWidth = new QTimer(this);
  fitWidth->setSingleShot(true);
  fitWidth->setInterval(0);
  connect(fitWidth, &QTimer::timeout, this, [this] { setMinimumWidth(preferredWidth()); });
  connect(table_->horizontalHeader(), &QHeaderView::sectionResized, fitWidth,
          qOverload<>(&QTimer::start));
  connect(document_, &Document::projectChanged, this, [this](Document::Parts parts) {
    if (parts & (Document::Network | Document::CostModel)) sync();
  });
}

void NetworkPanel::fitTableHeight() {
  // At the window's minimum size the budget's dock squeezed the table to a
  // row and a half: the table keeps room for its header and a few rows.
  const int rows = std::clamp(model_->rowCount(), 1, kRowsAlwaysShown);
  const int frame = 2 * table_->frameWidth();
  const int scrollBar = table_->style()->pixelMetric(QStyle::PM_ScrollBarExtent);
  table_->setMinimumHeight(table_->horizontalHeader()->sizeHint().height() +
                           rows * table_->verticalHeader()->defaultSectionSize() + frame +
                           scrollBar);
}

int NetworkPanel::preferredWidth() const {
  const QHeaderView* header = table_->horizontalHeader();
  const QAbstractItemView* view = table_;  // sizeHintForColumn is public there
  int columns = 0;
  for (int c = 0; c < model_->columnCount(); ++c) {
    // The sections fit their contents once laid out; before, their contents.
    columns +=
        std::max({header->sectionSize(c), view->sizeHintForColumn(c), header->sectionSizeHint(c)});
  }
  const QMargins margins = layout()->contentsMargins();
  return columns + table_->verticalHeader()->width() + 2 * table_->frameWidth() + margins.left() +
         margins.right();
}

void NetworkPanel::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  QTimer::singleShot(0, this, &NetworkPanel::growDockToFit);
}

void NetworkPanel::growDockToFit() {
  auto* dock = qobject_cast<QDockWidget*>(parentWidget());
  auto* window = dock ? qobject_cast<QMainWindow*>(dock->parentWidget()) : nullptr;
  if (!window || !isVisible() || dock->isFloating()) return;
  const int missing = preferredWidth() - width();
  if (missing > 0) window->resizeDocks({dock}, {dock->width() + missing}, Qt::Horizontal);
}

int NetworkPanel::currentRow() const {
  const QModelIndex current = table_->selectionModel()->currentIndex();
  return current.isValid() ? current.row() : -1;
}

void NetworkPanel::selectRow(int row) {
  if (row < 0 || row >= model_->rowCount()) return;
  table_->selectRow(row);
  table_->setCurrentIndex(model_->index(row, 0));
}

void NetworkPanel::sync() {
  const Network& net = document_->project().network;
  {
    const QSignalBlocker block(count_);
    count_->setValue(net.size());
  }
  npus_->setText(tr("<b>%1</b> NPUs").arg(formatNpus(net.npuCount())));
  const int row = currentRow();
  remove_->setEnabled(row >= 0 && net.size() > 1);
  up_->setEnabled(row > 0);
  down_->setEnabled(row >= 0 && row + 1 < net.size());
}

}  // namespace libra::studio
