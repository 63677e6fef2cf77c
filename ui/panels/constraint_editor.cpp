#include "constraint_editor.hpp"

#include <QEvent>
#include <QLabel>
#include <QSignalBlocker>
#include <QSyntaxHighlighter>
#include <QTextDocument>
#include <QVBoxLayout>
#include <libra/constraints.hpp>
#include <libra/cost.hpp>
#include <libra/edits.hpp>
#include <libra/error.hpp>

#include "document.hpp"
#include "format.hpp"

namespace libra::studio {

class ConstraintHighlighter : public QSyntaxHighlighter {
 public:
  explicit ConstraintHighlighter(QTextDocument* doc) : QSyntaxHighlighter(doc) {}
  void setIssues(const QList<ConstraintIssue>& issues) {
    bool same = issues.size() == issues_.size();
    for (int i = 0; same && i < issues.size(); ++i) {
      same = issues[i].line == issues_[i].line && issues[i].column == issues_[i].column &&
             issues[i].message == issues_[i].message;
    }
    if (same) return;
    issues_ = issues;
    rehighlight();  // changes formats only; the editor ignores the textChanged this emits
  }

 protected:
  void highlightBlock(const QString& text) override {
    const int line = currentBlock().blockNumber();
    for (const ConstraintIssue& issue : issues_) {
      if (issue.line != line) continue;
      QTextCharFormat format;
      format.setUnderlineStyle(QTextCharFormat::WaveUnderline);
      format.setUnderlineColor(QColor(0xd0, 0x20, 0x20));
      format.setToolTip(issue.message);
      const int start =
          std::clamp(issue.column - 1, 0, std::max(0, static_cast<int>(text.size()) - 1));
      setFormat(start, std::max(1, static_cast<int>(text.size()) - start), format);
    }
  }

 private:
  QList<ConstraintIssue> issues_;
};

ConstraintEditor::ConstraintEditor(Document* document, QWidget* parent)
    : QWidget(parent), document_(document) {
  edit_ = new QPlainTextEdit;
  edit_->setObjectName(QStringLiteral("constraintEdit"));
  edit_->setTabChangesFocus(true);
  edit_->setPlaceholderText(tr("One per line, e.g.\nbw[0] >= bw[1]\nbw[pod] <= 50"));
  edit_->setToolTip(
      tr("Linear constraints over the per-dimension bandwidths (GB/s per NPU), one per "
         "line.\nTerms: numbers, bw[i] or bw[name], total (sum of all), cost ($); "
         "operators ==, <=, >=."));
  edit_->setMinimumHeight(60);
  edit_->installEventFilter(this);
  QFont mono = edit_->font();
  mono.setFamily(QStringLiteral("monospace"));
  mono.setStyleHint(QFont::Monospace);
  edit_->setFont(mono);
  highlighter_ = new ConstraintHighlighter(edit_->document());
  issuesLabel_ = new QLabel;
  issuesLabel_->setObjectName(QStringLiteral("constraintIssues"));
  issuesLabel_->setWordWrap(true);
  issuesLabel_->setStyleSheet(QStringLiteral("QLabel { color: #b01818; }"));
  issuesLabel_->hide();

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(edit_);
  layout->addWidget(issuesLabel_);

  commitTimer_.setSingleShot(true);
  commitTimer_.setInterval(350);
  connect(&commitTimer_, &QTimer::timeout, this, &ConstraintEditor::commitNow);
  connect(edit_, &QPlainTextEdit::textChanged, this, &ConstraintEditor::onTextChanged);
  connect(document_, &Document::projectChanged, this, [this](Document::Parts parts) {
    if (parts & (Document::Constraints | Document::Network)) syncFromDocument();
  });
  syncFromDocument();
}

QStringList ConstraintEditor::currentLines() const {
  QStringList lines;
  for (const QString& line : edit_->toPlainText().split(QLatin1Char('\n'))) lines << line;
  return lines;
}

QList<ConstraintIssue> ConstraintEditor::validate(const QStringList& lines,
                                                  const Document& document) {
  QList<ConstraintIssue> issues;
  const Project& project = document.project();
  const std::vector<std::string> names = project.network.names();
  std::vector<double> prices;
  QString priceError;
  try {
    prices = costPerBandwidth(project.network, project.costModel);
  } catch (const std::exception& e) {
    prices.assign(names.size(),
                  0.0);  // `cost` terms still parse; the project error shows elsewhere
    priceError = toQString(e.what());
  }
  for (int i = 0; i < lines.size(); ++i) {
    if (lines[i].trimmed().isEmpty()) continue;
    try {
      (void)parseConstraint(toStd(lines[i]), names, prices);
    } catch (const ConstraintError& e) {
      issues.append({i, e.column(), toQString(e.problem())});
    } catch (const std::exception& e) {
      issues.append({i, 1, toQString(e.what())});
    }
  }
  return issues;
}

QString ConstraintEditor::issuesText() const {
  QStringList parts;
  for (const ConstraintIssue& issue : issues_) {
    parts << tr("Line %1, column %2: %3").arg(issue.line + 1).arg(issue.column).arg(issue.message);
  }
  return parts.join(QLatin1Char('\n'));
}

void ConstraintEditor::onTextChanged() {
  // Re-highlighting changes formats and emits textChanged too: only real edits count.
  const QString text = edit_->toPlainText();
  if (text == lastText_) return;
  lastText_ = text;
  issues_ = validate(currentLines(), *document_);
  highlighter_->setIssues(issues_);
  issuesLabel_->setText(issuesText());
  issuesLabel_->setVisible(!issues_.isEmpty());
  if (issues_.isEmpty()) {
    commitTimer_.start();
  } else {
    commitTimer_.stop();
  }
}

void ConstraintEditor::commitNow() {
  commitTimer_.stop();
  issues_ = validate(currentLines(), *document_);
  if (!issues_.isEmpty()) return;
  std::vector<std::string> extra;
  for (const QString& line : currentLines()) {
    if (!line.trimmed().isEmpty()) extra.push_back(toStd(line.trimmed()));
  }
  if (session_ == 0) session_ = document_->newMergeSession();
  document_->edit(
      tr("Edit constraints"), [&](Project& p) { setExtraConstraints(p, extra); },
      MergeKey{QStringLiteral("constraints"), session_});
}

void ConstraintEditor::syncFromDocument() {
  const std::vector<std::string> extra = splitConstraints(document_->project().constraints).extra;
  std::vector<std::string> shown;
  for (const QString& line : currentLines()) {
    if (!line.trimmed().isEmpty()) shown.push_back(toStd(line.trimmed()));
  }
  // Never overwrite what is being typed and not yet committed.
  const bool typing = edit_->hasFocus() && (commitTimer_.isActive() || !issues_.isEmpty());
  if (shown != extra && !typing) {
    QStringList lines;
    for (const auto& e : extra) lines << toQString(e);
    const QSignalBlocker block(edit_);
    edit_->setPlainText(lines.join(QLatin1Char('\n')));
    lastText_ = edit_->toPlainText();
  }
  // Dimension names may have changed: re-check what is there.
  issues_ = validate(currentLines(), *document_);
  highlighter_->setIssues(issues_);
  issuesLabel_->setText(issuesText());
  issuesLabel_->setVisible(!issues_.isEmpty());
}

bool ConstraintEditor::eventFilter(QObject* watched, QEvent* event) {
  if (watched == edit_) {
    if (event->type() == QEvent::FocusIn) {
      session_ = document_->newMergeSession();  // a new typing burst, a new undo step
    } else if (event->type() == QEvent::FocusOut) {
      commitNow();
      session_ = 0;
    }
  }
  return QWidget::eventFilter(watched, event);
}

}  // namespace libra::studio
