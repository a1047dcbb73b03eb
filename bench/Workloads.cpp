//===- Workloads.cpp - The graphs the benchmark runs ----------------------===//

#include "bench/Workloads.h"

#include <cmath>
#include <cstdio>
#include <map>

namespace fuse::bench {

const char *boundName(Bound bound) {
  switch (bound) {
  case Bound::Bandwidth:
    return "bandwidth";
  case Bound::Transcendental:
    return "transcendental";
  case Bound::Compute:
    return "compute";
  }
  return "?";
}

namespace {

/// `text` with every `{KEY}` replaced by its value.
std::string substitute(std::string text,
                       const std::map<std::string, std::string> &values) {
  for (const auto &[key, value] : values) {
    std::string pattern = "{" + key + "}";
    for (std::size_t at = text.find(pattern); at != std::string::npos;
         at = text.find(pattern, at + value.size()))
      text.replace(at, pattern.size(), value);
  }
  return text;
}

std::string str(std::int64_t value) { return std::to_string(value); }

std::string floatText(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.9g", value);
  return buffer;
}

Workload addMulRow(std::int64_t rows, std::int64_t cols) {
  Workload w{"mul_add_row", "", Bound::Bandwidth, "", {}, 0};
  w.title = "a*b+c, c a broadcast row (" + str(rows) + "x" + str(cols) + ")";
  w.inputShapes = {{rows, cols}, {rows, cols}, {cols}};
  w.mlir = substitute(R"(
func.func @mul_add_row(%a: tensor<{R}x{C}xf32>, %b: tensor<{R}x{C}xf32>, %c: tensor<{C}xf32>) -> tensor<{R}x{C}xf32> {
  %ab = fuse.mul %a, %b : tensor<{R}x{C}xf32>
  %cb = fuse.broadcast %c, dims = [1] : tensor<{C}xf32> -> tensor<{R}x{C}xf32>
  %y = fuse.add %ab, %cb : tensor<{R}x{C}xf32>
  return %y : tensor<{R}x{C}xf32>
}
)",
                      {{"R", str(rows)}, {"C", str(cols)}});
  return w;
}

Workload gelu(std::int64_t n) {
  Workload w{"gelu", "", Bound::Transcendental, "", {}, 0};
  w.title = "GELU, tanh form (" + str(n) + ")";
  w.inputShapes = {{n}};
  w.mlir = substitute(R"(
func.func @gelu(%x: tensor<{N}xf32>) -> tensor<{N}xf32> {
  %half = fuse.constant dense<0.5> : tensor<{N}xf32>
  %one = fuse.constant dense<1.0> : tensor<{N}xf32>
  %c0 = fuse.constant dense<0.044715> : tensor<{N}xf32>
  %c1 = fuse.constant dense<0.797884583> : tensor<{N}xf32>
  %x2 = fuse.mul %x, %x : tensor<{N}xf32>
  %x3 = fuse.mul %x2, %x : tensor<{N}xf32>
  %t0 = fuse.mul %x3, %c0 : tensor<{N}xf32>
  %t1 = fuse.add %x, %t0 : tensor<{N}xf32>
  %t2 = fuse.mul %t1, %c1 : tensor<{N}xf32>
  %t3 = fuse.tanh %t2 : tensor<{N}xf32>
  %t4 = fuse.add %t3, %one : tensor<{N}xf32>
  %t5 = fuse.mul %x, %t4 : tensor<{N}xf32>
  %y = fuse.mul %t5, %half : tensor<{N}xf32>
  return %y : tensor<{N}xf32>
}
)",
                      {{"N", str(n)}});
  return w;
}

Workload softmax(std::int64_t rows, std::int64_t cols) {
  Workload w{"softmax", "", Bound::Transcendental, "", {}, 0};
  w.title = "row softmax (" + str(rows) + "x" + str(cols) + ")";
  w.inputShapes = {{rows, cols}};
  w.mlir = substitute(R"(
func.func @softmax(%x: tensor<{R}x{C}xf32>) -> tensor<{R}x{C}xf32> {
  %m = fuse.reduce max %x dims = [1] keep_dims : tensor<{R}x{C}xf32> -> tensor<{R}x1xf32>
  %mb = fuse.broadcast %m, dims = [0, 1] : tensor<{R}x1xf32> -> tensor<{R}x{C}xf32>
  %d = fuse.sub %x, %mb : tensor<{R}x{C}xf32>
  %e = fuse.exp %d : tensor<{R}x{C}xf32>
  %s = fuse.reduce sum %e dims = [1] keep_dims : tensor<{R}x{C}xf32> -> tensor<{R}x1xf32>
  %sb = fuse.broadcast %s, dims = [0, 1] : tensor<{R}x1xf32> -> tensor<{R}x{C}xf32>
  %y = fuse.div %e, %sb : tensor<{R}x{C}xf32>
  return %y : tensor<{R}x{C}xf32>
}
)",
                      {{"R", str(rows)}, {"C", str(cols)}});
  return w;
}

Workload layerNorm(std::int64_t rows, std::int64_t cols) {
  Workload w{"layernorm", "", Bound::Bandwidth, "", {}, 0};
  w.title =
      "row layernorm, scale and shift (" + str(rows) + "x" + str(cols) + ")";
  w.inputShapes = {{rows, cols}, {cols}, {cols}};
  w.mlir = substitute(R"(
func.func @layernorm(%x: tensor<{R}x{C}xf32>, %gamma: tensor<{C}xf32>, %beta: tensor<{C}xf32>) -> tensor<{R}x{C}xf32> {
  %mean = fuse.reduce mean %x dims = [1] keep_dims : tensor<{R}x{C}xf32> -> tensor<{R}x1xf32>
  %meanb = fuse.broadcast %mean, dims = [0, 1] : tensor<{R}x1xf32> -> tensor<{R}x{C}xf32>
  %d = fuse.sub %x, %meanb : tensor<{R}x{C}xf32>
  %d2 = fuse.mul %d, %d : tensor<{R}x{C}xf32>
  %var = fuse.reduce mean %d2 dims = [1] keep_dims : tensor<{R}x{C}xf32> -> tensor<{R}x1xf32>
  %eps = fuse.constant dense<1.0e-05> : tensor<{R}x1xf32>
  %ve = fuse.add %var, %eps : tensor<{R}x1xf32>
  %rstd = fuse.rsqrt %ve : tensor<{R}x1xf32>
  %rstdb = fuse.broadcast %rstd, dims = [0, 1] : tensor<{R}x1xf32> -> tensor<{R}x{C}xf32>
  %n = fuse.mul %d, %rstdb : tensor<{R}x{C}xf32>
  %g = fuse.broadcast %gamma, dims = [1] : tensor<{C}xf32> -> tensor<{R}x{C}xf32>
  %b = fuse.broadcast %beta, dims = [1] : tensor<{C}xf32> -> tensor<{R}x{C}xf32>
  %s = fuse.mul %n, %g : tensor<{R}x{C}xf32>
  %y = fuse.add %s, %b : tensor<{R}x{C}xf32>
  return %y : tensor<{R}x{C}xf32>
}
)",
                      {{"R", str(rows)}, {"C", str(cols)}});
  return w;
}

Workload sumAll(std::int64_t n) {
  Workload w{"sum", "", Bound::Bandwidth, "", {}, 0};
  w.title = "sum of all elements (" + str(n) + ")";
  w.inputShapes = {{n}};
  w.mlir = substitute(R"(
func.func @sum(%x: tensor<{N}xf32>) -> tensor<f32> {
  %s = fuse.reduce sum %x dims = [0] : tensor<{N}xf32> -> tensor<f32>
  return %s : tensor<f32>
}
)",
                      {{"N", str(n)}});
  return w;
}

Workload columnSum(std::int64_t rows, std::int64_t cols) {
  Workload w{"column_sum", "", Bound::Bandwidth, "", {}, 0};
  w.title = "column sums (" + str(rows) + "x" + str(cols) + ")";
  w.inputShapes = {{rows, cols}};
  w.mlir = substitute(R"(
func.func @column_sum(%x: tensor<{R}x{C}xf32>) -> tensor<{C}xf32> {
  %s = fuse.reduce sum %x dims = [0] : tensor<{R}x{C}xf32> -> tensor<{C}xf32>
  return %s : tensor<{C}xf32>
}
)",
                      {{"R", str(rows)}, {"C", str(cols)}});
  return w;
}

Workload matmulBiasRelu(std::int64_t m, std::int64_t k, std::int64_t n,
                        std::string name = "matmul_bias_relu") {
  Workload w{std::move(name), "", Bound::Compute, "", {}, 0};
  w.title = "relu(x@W+b) (" + str(m) + "x" + str(k) + "x" + str(n) + ")";
  w.inputShapes = {{m, k}, {k, n}, {n}};
  w.flops = 2.0 * double(m) * double(k) * double(n);
  w.mlir = substitute(R"(
func.func @matmul_bias_relu(%x: tensor<{M}x{K}xf32>, %w: tensor<{K}x{N}xf32>, %b: tensor<{N}xf32>) -> tensor<{M}x{N}xf32> {
  %0 = fuse.matmul %x, %w : tensor<{M}x{K}xf32>, tensor<{K}x{N}xf32> -> tensor<{M}x{N}xf32>
  %1 = fuse.broadcast %b, dims = [1] : tensor<{N}xf32> -> tensor<{M}x{N}xf32>
  %2 = fuse.add %0, %1 : tensor<{M}x{N}xf32>
  %zero = fuse.constant dense<0.0> : tensor<{M}x{N}xf32>
  %y = fuse.max %2, %zero : tensor<{M}x{N}xf32>
  return %y : tensor<{M}x{N}xf32>
}
)",
                      {{"M", str(m)}, {"K", str(k)}, {"N", str(n)}});
  return w;
}

/// A transformer MLP block, relu(x@W1+b1)@W2+b2: two matmul kernels, the
/// bias and relu in the first one's epilogue, the bias in the second's.
Workload mlp(std::int64_t tokens, std::int64_t hidden, std::int64_t inner) {
  Workload w{"mlp", "", Bound::Compute, "", {}, 0};
  w.title = "MLP (" + str(tokens) + " tokens, " + str(hidden) + " -> " +
            str(inner) + " -> " + str(hidden) + ")";
  w.inputShapes = {
      {tokens, hidden}, {hidden, inner}, {inner}, {inner, hidden}, {hidden}};
  w.flops = 4.0 * double(tokens) * double(hidden) * double(inner);
  w.mlir =
      substitute(R"(
func.func @mlp(%x: tensor<{T}x{H}xf32>, %w1: tensor<{H}x{F}xf32>, %b1: tensor<{F}xf32>, %w2: tensor<{F}x{H}xf32>, %b2: tensor<{H}xf32>) -> tensor<{T}x{H}xf32> {
  %0 = fuse.matmul %x, %w1 : tensor<{T}x{H}xf32>, tensor<{H}x{F}xf32> -> tensor<{T}x{F}xf32>
  %1 = fuse.broadcast %b1, dims = [1] : tensor<{F}xf32> -> tensor<{T}x{F}xf32>
  %2 = fuse.add %0, %1 : tensor<{T}x{F}xf32>
  %zero = fuse.constant dense<0.0> : tensor<{T}x{F}xf32>
  %3 = fuse.max %2, %zero : tensor<{T}x{F}xf32>
  %4 = fuse.matmul %3, %w2 : tensor<{T}x{F}xf32>, tensor<{F}x{H}xf32> -> tensor<{T}x{H}xf32>
  %5 = fuse.broadcast %b2, dims = [1] : tensor<{H}xf32> -> tensor<{T}x{H}xf32>
  %y = fuse.add %4, %5 : tensor<{T}x{H}xf32>
  return %y : tensor<{T}x{H}xf32>
}
)",
                 {{"T", str(tokens)}, {"H", str(hidden)}, {"F", str(inner)}});
  return w;
}

/// A BERT-style encoder layer (post-norm), the graph of
/// lit_tests/models/bert-encoder-layer.mlir at any size.
Workload encoderLayer(std::int64_t seq, std::int64_t hidden, std::int64_t heads,
                      std::int64_t ffn) {
  std::int64_t headDim = hidden / heads;
  Workload w{"encoder_layer", "", Bound::Compute, "", {}, 0};
  w.title = "encoder layer (seq " + str(seq) + ", hidden " + str(hidden) +
            ", " + str(heads) + " heads, FFN " + str(ffn) + ")";
  w.inputShapes = {{seq, hidden},    {seq, seq}, {hidden, hidden}, {hidden},
                   {hidden, hidden}, {hidden},   {hidden, hidden}, {hidden},
                   {hidden, hidden}, {hidden},   {hidden},         {hidden},
                   {hidden, ffn},    {ffn},      {ffn, hidden},    {hidden},
                   {hidden},         {hidden}};
  double s = double(seq), h = double(hidden), f = double(ffn);
  w.flops = 2.0 * (4 * s * h * h + 2 * s * s * h + 2 * s * h * f);
  w.params = {{"heads", heads}};
  w.mlir = substitute(R"(
func.func @encoder_layer(%x: tensor<{S}x{H}xf32>, %mask: tensor<{S}x{S}xf32>,
    %wq: tensor<{H}x{H}xf32>, %bq: tensor<{H}xf32>,
    %wk: tensor<{H}x{H}xf32>, %bk: tensor<{H}xf32>,
    %wv: tensor<{H}x{H}xf32>, %bv: tensor<{H}xf32>,
    %wo: tensor<{H}x{H}xf32>, %bo: tensor<{H}xf32>,
    %g1: tensor<{H}xf32>, %be1: tensor<{H}xf32>,
    %w1: tensor<{H}x{F}xf32>, %b1: tensor<{F}xf32>,
    %w2: tensor<{F}x{H}xf32>, %b2: tensor<{H}xf32>,
    %g2: tensor<{H}xf32>, %be2: tensor<{H}xf32>) -> tensor<{S}x{H}xf32> {
  %q0 = fuse.matmul %x, %wq : tensor<{S}x{H}xf32>, tensor<{H}x{H}xf32> -> tensor<{S}x{H}xf32>
  %bqb = fuse.broadcast %bq, dims = [1] : tensor<{H}xf32> -> tensor<{S}x{H}xf32>
  %q1 = fuse.add %q0, %bqb : tensor<{S}x{H}xf32>
  %q2 = fuse.reshape %q1 : tensor<{S}x{H}xf32> -> tensor<{S}x{NH}x{D}xf32>
  %q = fuse.transpose %q2, permutation = [1, 0, 2] : tensor<{S}x{NH}x{D}xf32> -> tensor<{NH}x{S}x{D}xf32>
  %k0 = fuse.matmul %x, %wk : tensor<{S}x{H}xf32>, tensor<{H}x{H}xf32> -> tensor<{S}x{H}xf32>
  %bkb = fuse.broadcast %bk, dims = [1] : tensor<{H}xf32> -> tensor<{S}x{H}xf32>
  %k1 = fuse.add %k0, %bkb : tensor<{S}x{H}xf32>
  %k2 = fuse.reshape %k1 : tensor<{S}x{H}xf32> -> tensor<{S}x{NH}x{D}xf32>
  %k = fuse.transpose %k2, permutation = [1, 0, 2] : tensor<{S}x{NH}x{D}xf32> -> tensor<{NH}x{S}x{D}xf32>
  %v0 = fuse.matmul %x, %wv : tensor<{S}x{H}xf32>, tensor<{H}x{H}xf32> -> tensor<{S}x{H}xf32>
  %bvb = fuse.broadcast %bv, dims = [1] : tensor<{H}xf32> -> tensor<{S}x{H}xf32>
  %v1 = fuse.add %v0, %bvb : tensor<{S}x{H}xf32>
  %v2 = fuse.reshape %v1 : tensor<{S}x{H}xf32> -> tensor<{S}x{NH}x{D}xf32>
  %v = fuse.transpose %v2, permutation = [1, 0, 2] : tensor<{S}x{NH}x{D}xf32> -> tensor<{NH}x{S}x{D}xf32>
  %s0 = fuse.matmul %q, %k transpose_b : tensor<{NH}x{S}x{D}xf32>, tensor<{NH}x{S}x{D}xf32> -> tensor<{NH}x{S}x{S}xf32>
  %scale = fuse.constant dense<{SCALE}> : tensor<{NH}x{S}x{S}xf32>
  %s1 = fuse.mul %s0, %scale : tensor<{NH}x{S}x{S}xf32>
  %maskb = fuse.broadcast %mask, dims = [1, 2] : tensor<{S}x{S}xf32> -> tensor<{NH}x{S}x{S}xf32>
  %s = fuse.add %s1, %maskb : tensor<{NH}x{S}x{S}xf32>
  %mx = fuse.reduce max %s dims = [2] : tensor<{NH}x{S}x{S}xf32> -> tensor<{NH}x{S}xf32>
  %mxb = fuse.broadcast %mx, dims = [0, 1] : tensor<{NH}x{S}xf32> -> tensor<{NH}x{S}x{S}xf32>
  %sh = fuse.sub %s, %mxb : tensor<{NH}x{S}x{S}xf32>
  %e = fuse.exp %sh : tensor<{NH}x{S}x{S}xf32>
  %sum = fuse.reduce sum %e dims = [2] : tensor<{NH}x{S}x{S}xf32> -> tensor<{NH}x{S}xf32>
  %sumb = fuse.broadcast %sum, dims = [0, 1] : tensor<{NH}x{S}xf32> -> tensor<{NH}x{S}x{S}xf32>
  %p = fuse.div %e, %sumb : tensor<{NH}x{S}x{S}xf32>
  %o0 = fuse.matmul %p, %v : tensor<{NH}x{S}x{S}xf32>, tensor<{NH}x{S}x{D}xf32> -> tensor<{NH}x{S}x{D}xf32>
  %o1 = fuse.transpose %o0, permutation = [1, 0, 2] : tensor<{NH}x{S}x{D}xf32> -> tensor<{S}x{NH}x{D}xf32>
  %o = fuse.reshape %o1 : tensor<{S}x{NH}x{D}xf32> -> tensor<{S}x{H}xf32>
  %a0 = fuse.matmul %o, %wo : tensor<{S}x{H}xf32>, tensor<{H}x{H}xf32> -> tensor<{S}x{H}xf32>
  %bob = fuse.broadcast %bo, dims = [1] : tensor<{H}xf32> -> tensor<{S}x{H}xf32>
  %a1 = fuse.add %a0, %bob : tensor<{S}x{H}xf32>
  %h = fuse.add %a1, %x : tensor<{S}x{H}xf32>
  %mean1 = fuse.reduce mean %h dims = [1] : tensor<{S}x{H}xf32> -> tensor<{S}xf32>
  %mean1b = fuse.broadcast %mean1, dims = [0] : tensor<{S}xf32> -> tensor<{S}x{H}xf32>
  %d1 = fuse.sub %h, %mean1b : tensor<{S}x{H}xf32>
  %d1sq = fuse.mul %d1, %d1 : tensor<{S}x{H}xf32>
  %var1 = fuse.reduce mean %d1sq dims = [1] : tensor<{S}x{H}xf32> -> tensor<{S}xf32>
  %eps = fuse.constant dense<1.0e-12> : tensor<{S}xf32>
  %ve1 = fuse.add %var1, %eps : tensor<{S}xf32>
  %rstd1 = fuse.rsqrt %ve1 : tensor<{S}xf32>
  %rstd1b = fuse.broadcast %rstd1, dims = [0] : tensor<{S}xf32> -> tensor<{S}x{H}xf32>
  %n1 = fuse.mul %d1, %rstd1b : tensor<{S}x{H}xf32>
  %g1b = fuse.broadcast %g1, dims = [1] : tensor<{H}xf32> -> tensor<{S}x{H}xf32>
  %n1g = fuse.mul %n1, %g1b : tensor<{S}x{H}xf32>
  %be1b = fuse.broadcast %be1, dims = [1] : tensor<{H}xf32> -> tensor<{S}x{H}xf32>
  %y = fuse.add %n1g, %be1b : tensor<{S}x{H}xf32>
  %f0 = fuse.matmul %y, %w1 : tensor<{S}x{H}xf32>, tensor<{H}x{F}xf32> -> tensor<{S}x{F}xf32>
  %b1b = fuse.broadcast %b1, dims = [1] : tensor<{F}xf32> -> tensor<{S}x{F}xf32>
  %f1 = fuse.add %f0, %b1b : tensor<{S}x{F}xf32>
  %c0 = fuse.constant dense<0.044715> : tensor<{S}x{F}xf32>
  %c1 = fuse.constant dense<0.797884583> : tensor<{S}x{F}xf32>
  %one = fuse.constant dense<1.0> : tensor<{S}x{F}xf32>
  %half = fuse.constant dense<0.5> : tensor<{S}x{F}xf32>
  %f1sq = fuse.mul %f1, %f1 : tensor<{S}x{F}xf32>
  %f1cube = fuse.mul %f1sq, %f1 : tensor<{S}x{F}xf32>
  %t0 = fuse.mul %f1cube, %c0 : tensor<{S}x{F}xf32>
  %t1 = fuse.add %f1, %t0 : tensor<{S}x{F}xf32>
  %t2 = fuse.mul %t1, %c1 : tensor<{S}x{F}xf32>
  %t3 = fuse.tanh %t2 : tensor<{S}x{F}xf32>
  %t4 = fuse.add %t3, %one : tensor<{S}x{F}xf32>
  %t5 = fuse.mul %f1, %half : tensor<{S}x{F}xf32>
  %gelu = fuse.mul %t5, %t4 : tensor<{S}x{F}xf32>
  %f2 = fuse.matmul %gelu, %w2 : tensor<{S}x{F}xf32>, tensor<{F}x{H}xf32> -> tensor<{S}x{H}xf32>
  %b2b = fuse.broadcast %b2, dims = [1] : tensor<{H}xf32> -> tensor<{S}x{H}xf32>
  %f3 = fuse.add %f2, %b2b : tensor<{S}x{H}xf32>
  %h2 = fuse.add %f3, %y : tensor<{S}x{H}xf32>
  %mean2 = fuse.reduce mean %h2 dims = [1] : tensor<{S}x{H}xf32> -> tensor<{S}xf32>
  %mean2b = fuse.broadcast %mean2, dims = [0] : tensor<{S}xf32> -> tensor<{S}x{H}xf32>
  %d2 = fuse.sub %h2, %mean2b : tensor<{S}x{H}xf32>
  %d2sq = fuse.mul %d2, %d2 : tensor<{S}x{H}xf32>
  %var2 = fuse.reduce mean %d2sq dims = [1] : tensor<{S}x{H}xf32> -> tensor<{S}xf32>
  %ve2 = fuse.add %var2, %eps : tensor<{S}xf32>
  %rstd2 = fuse.rsqrt %ve2 : tensor<{S}xf32>
  %rstd2b = fuse.broadcast %rstd2, dims = [0] : tensor<{S}xf32> -> tensor<{S}x{H}xf32>
  %n2 = fuse.mul %d2, %rstd2b : tensor<{S}x{H}xf32>
  %g2b = fuse.broadcast %g2, dims = [1] : tensor<{H}xf32> -> tensor<{S}x{H}xf32>
  %n2g = fuse.mul %n2, %g2b : tensor<{S}x{H}xf32>
  %be2b = fuse.broadcast %be2, dims = [1] : tensor<{H}xf32> -> tensor<{S}x{H}xf32>
  %z = fuse.add %n2g, %be2b : tensor<{S}x{H}xf32>
  return %z : tensor<{S}x{H}xf32>
}
)",
                      {{"S", str(seq)},
                       {"H", str(hidden)},
                       {"NH", str(heads)},
                       {"D", str(headDim)},
                       {"F", str(ffn)},
                       {"SCALE", floatText(1.0 / std::sqrt(double(headDim)))}});
  return w;
}

} // namespace

std::vector<Workload> makeWorkloads(bool quick) {
  if (quick)
    return {addMulRow(64, 256),
            gelu(4096),
            softmax(64, 256),
            layerNorm(64, 256),
            sumAll(16384),
            columnSum(64, 256),
            matmulBiasRelu(32, 64, 64),
            matmulBiasRelu(37, 70, 101, "matmul_bias_relu_2048"),
            matmulBiasRelu(40, 33, 70, "matmul_bias_relu_4096"),
            matmulBiasRelu(8, 16, 16, "matmul_bias_relu_128x256x256"),
            matmulBiasRelu(8, 16, 64, "matmul_bias_relu_128x256x1024"),
            matmulBiasRelu(32, 48, 96, "matmul_bias_relu_512x768x3072"),
            mlp(16, 64, 256),
            encoderLayer(16, 64, 4, 128)};
  return {addMulRow(4096, 4096), gelu(std::int64_t(1) << 24),
          softmax(4096, 4096), layerNorm(4096, 4096),
          sumAll(std::int64_t(1) << 26), columnSum(4096, 4096),
          matmulBiasRelu(1024, 1024, 1024),
          matmulBiasRelu(2048, 2048, 2048, "matmul_bias_relu_2048"),
          matmulBiasRelu(4096, 4096, 4096, "matmul_bias_relu_4096"),
          // The matmuls of transformer layers: hidden 256 and its FFN at
          // 128 tokens, BERT-base's FFN at 512 tokens.
          matmulBiasRelu(128, 256, 256, "matmul_bias_relu_128x256x256"),
          matmulBiasRelu(128, 256, 1024, "matmul_bias_relu_128x256x1024"),
          matmulBiasRelu(512, 768, 3072, "matmul_bias_relu_512x768x3072"),
          mlp(512, 1024, 4096), encoderLayer(512, 768, 12, 3072)};
}

} // namespace fuse::bench
