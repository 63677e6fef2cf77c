// In-app help, offline: the manual's GUI guide and the glossary (docs/,
// compiled in as resources) in a browser window, and a tour of the window's
// parts that the first start shows and Help reopens.
#pragma once

#include <QDialog>
#include <QFrame>
#include <QPointer>
#include <QString>
#include <vector>

QT_BEGIN_NAMESPACE
class QLabel;
class QPushButton;
class QTabWidget;
class QTextBrowser;
QT_END_NAMESPACE

namespace libra::studio {

// The help pages: "guide" (docs/gui.md) and "glossary" (docs/glossary.md).
class HelpDialog : public QDialog {
  Q_OBJECT

 public:
  explicit HelpDialog(QWidget* parent = nullptr);
  void showPage(const QString& page);
  QTextBrowser* page(const QString& page) const;

 private:
  QTabWidget* tabs_;
};

// The Markdown of a help page compiled in; empty when missing.
QString helpText(const QString& page);

// A tour: a highlight around one part of the window and a card beside it that
// says what the part is for, with Back, Next and Close.
class Tour : public QFrame {
  Q_OBJECT

 public:
  struct Step {
    QString objectName;  // the part (a child of the window) by its object name
    QString title;
    QString text;
  };

  explicit Tour(QWidget* window);
  static std::vector<Step> defaultSteps();

  void start();
  void next();
  void back();
  int step() const { return step_; }
  int stepCount() const { return static_cast<int>(steps_.size()); }
  // The part shown at the current step, and the highlight's frame over it.
  QWidget* target() const;
  QWidget* highlight() const { return highlight_; }

 Q_SIGNALS:
  void finished();

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void show(int step);
  void place();

  QWidget* window_;
  std::vector<Step> steps_;
  int step_ = -1;
  QFrame* highlight_;
  QLabel* title_;
  QLabel* text_;
  QLabel* counter_;
  QPushButton* back_;
  QPushButton* next_;
};

}  // namespace libra::studio
