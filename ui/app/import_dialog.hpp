// File > Import LIBRA Files: picks the reference inputs (network yml/json,
// workload txt, optional communicator and cost model) and builds a project with
// the engine's importer. Errors stay in the dialog, naming the file and line,
// until a field changes. Tab moves from field to field (the Browse buttons take
// clicks only); the fields reopen as they were left (QSettings "import/...").
#pragma once

#include <QDialog>
#include <QStringList>
#include <libra/project.hpp>

QT_BEGIN_NAMESPACE
class QComboBox;
class QLabel;
class QLineEdit;
QT_END_NAMESPACE

namespace libra::studio {

class ImportDialog : public QDialog {
  Q_OBJECT

 public:
  explicit ImportDialog(QWidget* parent = nullptr);

  const Project& project() const { return project_; }
  // The importer's notes on what it filled in with defaults.
  const QStringList& notes() const { return notes_; }

  void accept() override;
  // Keeps the fields for the next time the dialog opens (any way it closes).
  void done(int result) override;

 private:
  QLineEdit* fileField(const QString& name, const QString& filter, bool required);
  static QString settingsKey(const QLineEdit* edit);

  QLineEdit* network_;
  QLineEdit* workload_;
  QLineEdit* communicator_;
  QLineEdit* costModel_;
  QLineEdit* name_;
  QComboBox* loop_;
  QLabel* error_;
  Project project_;
  QStringList notes_;
};

}  // namespace libra::studio
