// Documents: New, Open, Open Recent, bundled examples, Save, Save As, Rename,
// Import LIBRA files, the window title with its modified mark and the prompt before unsaved
// changes are dropped. Files are written atomically by the engine.
#pragma once

#include <QObject>
#include <QStringList>

QT_BEGIN_NAMESPACE
class QAction;
class QMenu;
class QWidget;
QT_END_NAMESPACE

namespace libra::studio {

class Document;

class FileController : public QObject {
  Q_OBJECT

 public:
  static constexpr int kMaxRecentFiles = 8;

  FileController(Document* document, QWidget* window);

  QAction* newAction() const { return new_; }
  QAction* openAction() const { return open_; }
  QAction* saveAction() const { return save_; }
  QAction* saveAsAction() const { return saveAs_; }
  QAction* importAction() const { return import_; }
  QAction* renameAction() const { return rename_; }
  QMenu* recentMenu() const { return recent_; }
  QMenu* examplesMenu() const { return examples_; }

  // Without dialogs (command line, drag and drop, tests): false with the reason in `error`.
  bool openFile(const QString& path, QString* error);
  bool saveFile(const QString& path, QString* error);
  bool openExample(const QString& id, QString* error);
  // Names the project (one undo step). An empty or blank name goes back to the
  // name its content suggests, which then follows edits again. False when
  // nothing changed.
  bool renameProject(const QString& name);

  // Interactive: report errors in a message box.
  bool open(const QString& path);
  bool save();
  bool saveAs();
  void newDocument();
  // Asks whether to save unsaved changes. False when the user cancels.
  bool maybeSave();
  // Tests switch the question off; unsaved changes are then dropped silently.
  void setPromptsEnabled(bool enabled) { prompts_ = enabled; }

  static QStringList recentFiles();
  static void addRecentFile(const QString& path);

 private:
  void updateTitle();
  void rebuildRecentMenu();
  void importLibraFiles();
  void error(const QString& title, const QString& text);

  Document* document_;
  QWidget* window_;
  QAction* new_;
  QAction* open_;
  QAction* save_;
  QAction* saveAs_;
  QAction* import_;
  QAction* rename_;
  QMenu* recent_;
  QMenu* examples_;
  bool prompts_ = true;
};

}  // namespace libra::studio
