//===- Recording.h - Recording ops into a stream's block --------*- C++ -*-===//
//
// Private to runtime/engine: how the op API records an op into the calling
// thread's block, and the handle of a tensor that failed.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_RUNTIME_ENGINE_RECORDING_H
#define FUSE_RUNTIME_ENGINE_RECORDING_H

#include "runtime/engine/SessionState.h"

namespace fuse::engine {

/// A materialized tensor of `session` that holds the error `message`.
Tensor failedTensor(std::shared_ptr<SessionState> session, TensorType type,
                    std::string message);

/// Records `kind` over `operands` into the current thread's block of
/// `session` (null: the operands' session).
Tensor record(std::shared_ptr<SessionState> session, OpKind kind,
              std::span<const Tensor> operands, AttrMap attributes,
              std::optional<TensorType> resultType);

/// record() in the operands' session.
Tensor recordOp(OpKind kind, std::span<const Tensor> operands,
                AttrMap attributes = {},
                std::optional<TensorType> resultType = {});

} // namespace fuse::engine

#endif // FUSE_RUNTIME_ENGINE_RECORDING_H
