#include "libra/workload.hpp"

#include "text.hpp"

namespace libra {

std::string_view toString(CollectiveType type) {
  switch (type) {
    case CollectiveType::None:
      return "None";
    case CollectiveType::AllReduce:
      return "AllReduce";
    case CollectiveType::ReduceScatter:
      return "ReduceScatter";
    case CollectiveType::AllGather:
      return "AllGather";
    case CollectiveType::AllToAll:
      return "AllToAll";
    case CollectiveType::SendRecv:
      return "SendRecv";
  }
  return "None";
}

std::optional<CollectiveType> parseCollectiveType(std::string_view textIn) {
  std::string t = text::lower(text::trim(textIn));
  std::erase(t, '_');
  std::erase(t, '-');
  if (t == "none") return CollectiveType::None;
  if (t == "allreduce") return CollectiveType::AllReduce;
  if (t == "reducescatter") return CollectiveType::ReduceScatter;
  if (t == "allgather") return CollectiveType::AllGather;
  if (t == "alltoall") return CollectiveType::AllToAll;
  if (t == "sendrecv" || t == "p2p") return CollectiveType::SendRecv;
  return std::nullopt;
}

std::string_view toString(PhaseKind kind) {
  switch (kind) {
    case PhaseKind::Forward:
      return "forward";
    case PhaseKind::InputGrad:
      return "input_grad";
    case PhaseKind::WeightGrad:
      return "weight_grad";
  }
  return "forward";
}

std::string_view toString(TrainingLoop loop) {
  switch (loop) {
    case TrainingLoop::NoOverlap:
      return "no-overlap";
    case TrainingLoop::Recompute:
      return "recompute";
    case TrainingLoop::Overlap:
      return "overlap";
  }
  return "no-overlap";
}

std::optional<TrainingLoop> parseTrainingLoop(std::string_view textIn) {
  const std::string t = text::lower(text::trim(textIn));
  if (t == "no-overlap" || t == "nooverlap" || t == "no_overlap") return TrainingLoop::NoOverlap;
  if (t == "recompute") return TrainingLoop::Recompute;
  if (t == "overlap") return TrainingLoop::Overlap;
  return std::nullopt;
}

}  // namespace libra
