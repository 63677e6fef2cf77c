// Extra constraint expressions, one per line, checked as you type: an expression
// that does not parse is underlined from the offending column and its message is
// listed under the editor. Only a fully valid list reaches the document, after a
// short pause in typing; one burst of typing is one undo step.
#pragma once

#include <QPlainTextEdit>
#include <QStringList>
#include <QTimer>
#include <QWidget>
#include <string>
#include <vector>

QT_BEGIN_NAMESPACE
class QLabel;
QT_END_NAMESPACE

namespace libra::studio {

class Document;
class ConstraintHighlighter;

struct ConstraintIssue {
  int line = 0;    // 0-based
  int column = 0;  // 1-based, as the engine reports it
  QString message;
};

class ConstraintEditor : public QWidget {
  Q_OBJECT

 public:
  explicit ConstraintEditor(Document* document, QWidget* parent = nullptr);

  QPlainTextEdit* textEdit() const { return edit_; }
  // The issues of the current text (empty when it is valid).
  const QList<ConstraintIssue>& issues() const { return issues_; }
  QString issuesText() const;
  // Validates now and commits a valid list at once (instead of after the pause).
  void commitNow();

  // Checks every non-empty line against the project's dimensions and prices.
  static QList<ConstraintIssue> validate(const QStringList& lines, const Document& document);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void onTextChanged();
  void syncFromDocument();
  QStringList currentLines() const;

  Document* document_;
  QPlainTextEdit* edit_;
  QLabel* issuesLabel_;
  ConstraintHighlighter* highlighter_;
  QTimer commitTimer_;
  QList<ConstraintIssue> issues_;
  quint64 session_ = 0;
  QString lastText_;
};

}  // namespace libra::studio
