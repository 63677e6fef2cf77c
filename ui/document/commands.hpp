// The one undo command of the editor: it swaps the whole project value (a few
// kilobytes), so every edit is undoable the same way and undo restores exactly
// the state, and therefore the result, that was shown before.
//
// Repeated edits of one control merge into one step (Tiled's pattern): a command
// carries a merge key, and commands with the same non-empty key merge. Controls
// put a drag or typing session id in the key, so one slider drag is one step but
// two drags are two.
#pragma once

#include <QString>
#include <QUndoCommand>
#include <libra/project.hpp>

namespace libra::studio {

class Document;

struct MergeKey {
  QString control;  // e.g. "budget.total"; empty: never merge
  quint64 session = 0;

  bool isEmpty() const { return control.isEmpty(); }
  bool operator==(const MergeKey&) const = default;
};

class ProjectEditCommand : public QUndoCommand {
 public:
  static constexpr int kMergeableId = 0x4c42;  // 'LB'

  ProjectEditCommand(Document* document, const QString& text, Project before, Project after,
                     MergeKey key = {});

  void undo() override;
  void redo() override;
  int id() const override;
  bool mergeWith(const QUndoCommand* other) override;

  const MergeKey& mergeKey() const { return key_; }

 private:
  Document* document_;
  Project before_;
  Project after_;
  MergeKey key_;
};

}  // namespace libra::studio
