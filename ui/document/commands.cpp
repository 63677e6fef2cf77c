#include "commands.hpp"

#include "document.hpp"

namespace libra::studio {

ProjectEditCommand::ProjectEditCommand(Document* document, const QString& text, Project before,
                                       Project after, MergeKey key)
    : QUndoCommand(text),
      document_(document),
      before_(std::move(before)),
      after_(std::move(after)),
      key_(std::move(key)) {}

void ProjectEditCommand::undo() {
  document_->replaceProject(before_);
}

void ProjectEditCommand::redo() {
  document_->replaceProject(after_);
}

int ProjectEditCommand::id() const {
  return key_.isEmpty() ? -1 : kMergeableId;
}

bool ProjectEditCommand::mergeWith(const QUndoCommand* other) {
  const auto* next = dynamic_cast<const ProjectEditCommand*>(other);
  if (!next || key_.isEmpty() || !(next->key_ == key_)) return false;
  after_ = next->after_;
  setText(next->text());  // "Set total bandwidth to 700 GB/s": where the drag ended
  // A drag that ends where it started leaves nothing to undo.
  setObsolete(after_ == before_);
  return true;
}

}  // namespace libra::studio
