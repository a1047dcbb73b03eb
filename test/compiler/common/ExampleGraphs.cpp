#include "ExampleGraphs.h"

#include <cstdio>
#include <cstdlib>

namespace fuse::test {

namespace {

TensorType f32(std::vector<int64_t> shape) {
  return {ElementType::F32, std::move(shape)};
}

ElementType sampleType(TypeRule rule) {
  switch (rule) {
  case TypeRule::Integer:
    return ElementType::I32;
  default:
    return ElementType::F32;
  }
}

Graph finish(GraphBuilder &b) {
  Expected<Graph> graph = b.finish();
  if (!graph.ok()) {
    std::fprintf(stderr, "invalid example graph: %s\n",
                 graph.message().c_str());
    std::abort();
  }
  return graph.take();
}

} // namespace

std::vector<Graph> exampleGraphs(OpKind kind) {
  const OpInfo &info = opInfo(kind);
  std::vector<Graph> graphs;
  auto add = [&](auto fill) {
    GraphBuilder b;
    fill(b);
    graphs.push_back(finish(b));
  };
  if (info.form == OpForm::Unary) {
    for (ElementType type : {sampleType(info.typeRule), ElementType::F16})
      add([&](GraphBuilder &b) {
        ElementType t =
            info.typeRule == TypeRule::Integer ? ElementType::I8 : type;
        TensorId x = b.input({t, {2, 3}}, "x");
        b.output(b.unary(kind, x), "y");
      });
    return graphs;
  }
  if (info.form == OpForm::Binary) {
    add([&](GraphBuilder &b) {
      TensorType t{sampleType(info.typeRule), {4}};
      TensorId x = b.input(t, "x"), y = b.input(t, "y");
      b.output(b.binary(kind, x, y), "z");
    });
    if (kind == OpKind::Div || kind == OpKind::Rem)
      add([&](GraphBuilder &b) {
        TensorType t{ElementType::I32, {4}};
        TensorId x = b.input(t, "x"), y = b.input(t, "y");
        b.output(kind == OpKind::Div ? b.div(x, y, /*isUnsigned=*/true)
                                     : b.rem(x, y, /*fmod=*/true,
                                             /*isUnsigned=*/true),
                 "z");
      });
    return graphs;
  }
  switch (kind) {
  case OpKind::Compare:
    add([&](GraphBuilder &b) {
      TensorId x = b.input({ElementType::I64, {3}}, "x");
      TensorId y = b.input({ElementType::I64, {3}}, "y");
      b.output(b.compare(ComparePredicate::Ugt, x, y), "m");
    });
    break;
  case OpKind::Select:
    add([&](GraphBuilder &b) {
      TensorId c = b.input({ElementType::I1, {3}}, "c");
      TensorId x = b.input(f32({3}), "x"), y = b.input(f32({3}), "y");
      b.output(b.select(c, x, y), "z");
    });
    break;
  case OpKind::Cast:
    add([&](GraphBuilder &b) {
      TensorId x = b.input({ElementType::I8, {2}}, "x");
      b.output(b.cast(x, ElementType::BF16, /*isUnsigned=*/true), "y");
    });
    break;
  case OpKind::Constant:
    add([&](GraphBuilder &b) {
      b.output(b.splat({ElementType::F16, {2, 2}}, 1.5), "c");
    });
    add([&](GraphBuilder &b) {
      std::vector<double> values = {1.0, -2.5, 3.25};
      b.output(b.constant(DenseValue::fromDoubles(f32({3}), values)), "c");
    });
    add([&](GraphBuilder &b) {
      std::vector<int64_t> values = {1, 0, 1, 1};
      b.output(b.constant(DenseValue::fromInts({ElementType::I1, {4}}, values)),
               "c");
    });
    add([&](GraphBuilder &b) {
      std::vector<int64_t> values = {-7, 1LL << 40};
      b.output(
          b.constant(DenseValue::fromInts({ElementType::I64, {2}}, values)),
          "c");
    });
    break;
  case OpKind::Broadcast:
    add([&](GraphBuilder &b) {
      TensorId x = b.input(f32({1, 4}), "x");
      b.output(b.broadcast(x, {3, 2, 4}, {0, 2}), "y");
    });
    break;
  case OpKind::Reshape:
    add([&](GraphBuilder &b) {
      TensorId x = b.input(f32({2, 6}), "x");
      b.output(b.reshape(x, {3, 4}), "y");
    });
    break;
  case OpKind::Transpose:
    add([&](GraphBuilder &b) {
      TensorId x = b.input(f32({2, 3, 4}), "x");
      b.output(b.transpose(x, {2, 0, 1}), "y");
    });
    break;
  case OpKind::Slice:
    add([&](GraphBuilder &b) {
      TensorId x = b.input(f32({4, 6}), "x");
      b.output(b.slice(x, {1, 0}, {2, 3}, {1, 2}), "y");
    });
    break;
  case OpKind::Concat:
    add([&](GraphBuilder &b) {
      TensorId x = b.input(f32({2, 3}), "x"), y = b.input(f32({2, 5}), "y");
      b.output(b.concat({x, y, x}, 1), "z");
    });
    break;
  case OpKind::Reduce:
    for (ReduceKind k : {ReduceKind::Sum, ReduceKind::Prod, ReduceKind::Max,
                         ReduceKind::Min, ReduceKind::Mean})
      add([&](GraphBuilder &b) {
        TensorId x = b.input(f32({2, 3, 4}), "x");
        b.output(b.reduce(k, x, {0, 2}, /*keepDims=*/k == ReduceKind::Max),
                 "y");
      });
    break;
  case OpKind::ArgMax:
  case OpKind::ArgMin:
    add([&](GraphBuilder &b) {
      TensorId x = b.input(f32({3, 5}), "x");
      b.output(kind == OpKind::ArgMax ? b.argmax(x, 1, true, true)
                                      : b.argmin(x, 0, false, true),
               "i");
    });
    break;
  case OpKind::Pool:
    add([&](GraphBuilder &b) {
      TensorId x = b.input(f32({1, 3, 9, 9}), "x");
      b.output(b.pool(ReduceKind::Max, x,
                      {{3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, true, false}),
               "y");
    });
    add([&](GraphBuilder &b) {
      TensorId x = b.input(f32({2, 4, 10}), "x");
      b.output(
          b.pool(ReduceKind::Mean, x, {{3}, {2}, {2}, {2, 1}, false, true}),
          "y");
    });
    break;
  case OpKind::Im2col:
    add([&](GraphBuilder &b) {
      TensorId x = b.input(f32({1, 3, 9, 9}), "x");
      b.output(b.im2col(x, {{3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}}), "y");
    });
    add([&](GraphBuilder &b) {
      TensorId x = b.input(f32({2, 4, 10}), "x");
      b.output(b.im2col(x, {{3}, {2}, {2}, {2, 1}}), "y");
    });
    break;
  case OpKind::Matmul:
    add([&](GraphBuilder &b) {
      TensorId x = b.input(f32({2, 4, 8}), "x");
      TensorId w = b.input(f32({16, 8}), "w");
      b.output(b.matmul(x, w, /*transposeA=*/false, /*transposeB=*/true), "y");
    });
    add([&](GraphBuilder &b) {
      TensorId x = b.input(f32({3, 8, 4}), "x");
      TensorId y = b.input(f32({3, 8, 5}), "y");
      b.output(b.matmul(x, y, /*transposeA=*/true), "z");
    });
    break;
  case OpKind::Conv:
    add([&](GraphBuilder &b) {
      TensorId x = b.input(f32({1, 4, 6, 5}), "x");
      TensorId w = b.input(f32({6, 2, 3, 2}), "w");
      TensorId bias = b.input(f32({6}), "b");
      b.output(b.conv(x, w, bias, {2, 1}, {1, 2}, {1, 0, 1, 1}, 2), "y");
    });
    add([&](GraphBuilder &b) {
      TensorId x = b.input({ElementType::F16, {2, 3, 9}}, "x");
      TensorId w = b.input({ElementType::F16, {3, 1, 3}}, "w");
      b.output(b.conv(x, w, kInvalidTensor, {1}, {1}, {1, 1}, 3), "y");
    });
    break;
  case OpKind::Gather:
    add([&](GraphBuilder &b) {
      TensorId w = b.input(f32({50, 8}), "weights");
      TensorId ids = b.input({ElementType::I64, {2, 3}}, "ids");
      b.output(b.gather(w, ids, 0), "y");
    });
    add([&](GraphBuilder &b) {
      TensorId x = b.input({ElementType::F16, {2, 5, 3}}, "x");
      TensorId k = b.input({ElementType::I32, {}}, "k");
      b.output(b.gather(x, k, 1), "y");
    });
    break;
  case OpKind::Iota:
    add([&](GraphBuilder &b) {
      b.output(b.iota({ElementType::I64, {2, 5}}, 1), "y");
    });
    break;
  case OpKind::DimValue:
    add([&](GraphBuilder &b) {
      b.output(b.dimValue({ElementType::F32, {3}}, 4), "y");
    });
    break;
  case OpKind::Scatter:
    add([&](GraphBuilder &b) {
      TensorId x = b.input(f32({8, 4}), "x");
      TensorId i = b.input({ElementType::I64, {3}}, "i");
      TensorId u = b.input(f32({3, 4}), "u");
      b.output(b.scatter(x, i, u), "y");
    });
    add([&](GraphBuilder &b) {
      TensorId x = b.input({ElementType::I32, {10}}, "x");
      TensorId i = b.input({ElementType::I32, {2, 2}}, "i");
      TensorId u = b.input({ElementType::I32, {2, 2}}, "u");
      b.output(b.scatter(x, i, u, "max"), "y");
    });
    break;
  default:
    break;
  }
  return graphs;
}

} // namespace fuse::test
