// Depthwise convolutions with a squeeze-and-excitation block after them, as
// mobilenet_v3 (5x5, HardSwish) and efficientnet (3x3, SiLU) have: the
// activation feeds both the block's mean (a row reduction) and the multiply
// by its gate. fuse-form-fusions first forms each depthwise convolution's
// window kernel (its im2col read by the slices of fuse-lower-convolutions'
// sum over window offsets, the bias and the activation), then the rest:
// the mean's row kernel reads the activation from memory. Before, the mean
// pulled the sum into its row kernel as a prologue: the im2col (25 times the
// input for 5x5) was stored by a kernel of its own and the sum was split
// over several kernels. fuse-run --check compares the outputs with the
// reference runtime's on random inputs.

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --check --print-plan --cache-dir %t/cache | FileCheck %s --check-prefix=HOST
// RUN: %if ptxas %{ fuse-compile %s --target=sm_80 -o %t/sm_80 && FileCheck %s --check-prefix=GPU < %t/sm_80/bundle.txt %}

// HOST: plan: 4 kernels
// HOST: kernel 0 {{.*}}: window-reduction
// HOST-NEXT: ops {{.*}}im2col
// HOST: kernel 1 {{.*}}: row-reduction
// HOST-NOT: im2col
// HOST: kernel 2 {{.*}}: window-reduction
// HOST-NEXT: ops {{.*}}im2col
// HOST: kernel 3 {{.*}}: row-reduction
// HOST-NOT: im2col
// HOST-NOT: kernel
// HOST: check out0: {{.*}}: ok
// HOST: check out1: {{.*}}: ok
// HOST: check: passed, 2 outputs match the reference
// GPU-COUNT-2: schedule window-reduction
// GPU-NOT: schedule window-reduction

func.func @depthwise_se(%a: tensor<1x24x20x20xf32>, %wa: tensor<24x1x5x5xf32>, %ba: tensor<24xf32>,
                        %sa: tensor<1x24x1x1xf32>,
                        %b: tensor<1x16x15x15xf32>, %wb: tensor<16x1x3x3xf32>, %bb: tensor<16xf32>,
                        %sb: tensor<1x16x1x1xf32>)
    -> (tensor<1x24x20x20xf32>, tensor<1x16x8x8xf32>) {
  // 5x5, pads 2, bias, HardSwish: x * min(max(x + 3, 0), 6) / 6.
  %ca = fuse.conv %a, %wa, %ba strides = [1, 1] dilations = [1, 1] pads = [2, 2, 2, 2] group = 24
      : tensor<1x24x20x20xf32>, tensor<24x1x5x5xf32>, tensor<24xf32> -> tensor<1x24x20x20xf32>
  %three = fuse.constant dense<3.0> : tensor<1x24x20x20xf32>
  %zero = fuse.constant dense<0.0> : tensor<1x24x20x20xf32>
  %six = fuse.constant dense<6.0> : tensor<1x24x20x20xf32>
  %pa = fuse.add %ca, %three : tensor<1x24x20x20xf32>
  %ra = fuse.max %pa, %zero : tensor<1x24x20x20xf32>
  %la = fuse.min %ra, %six : tensor<1x24x20x20xf32>
  %ma = fuse.mul %ca, %la : tensor<1x24x20x20xf32>
  %ha = fuse.div %ma, %six : tensor<1x24x20x20xf32>
  // The gate: sigmoid(mean * s), spread over the map.
  %suma = fuse.reduce sum %ha dims = [2, 3] keep_dims : tensor<1x24x20x20xf32> -> tensor<1x24x1x1xf32>
  %ga = fuse.mul %suma, %sa : tensor<1x24x1x1xf32>
  %ea = fuse.sigmoid %ga : tensor<1x24x1x1xf32>
  %xa = fuse.broadcast %ea, dims = [0, 1, 2, 3] : tensor<1x24x1x1xf32> -> tensor<1x24x20x20xf32>
  %oa = fuse.mul %ha, %xa : tensor<1x24x20x20xf32>
  // 3x3, stride 2, pads 1, bias, SiLU: x * sigmoid(x).
  %cb = fuse.conv %b, %wb, %bb strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] group = 16
      : tensor<1x16x15x15xf32>, tensor<16x1x3x3xf32>, tensor<16xf32> -> tensor<1x16x8x8xf32>
  %eb = fuse.sigmoid %cb : tensor<1x16x8x8xf32>
  %hb = fuse.mul %cb, %eb : tensor<1x16x8x8xf32>
  %sumb = fuse.reduce sum %hb dims = [2, 3] keep_dims : tensor<1x16x8x8xf32> -> tensor<1x16x1x1xf32>
  %gb = fuse.mul %sumb, %sb : tensor<1x16x1x1xf32>
  %fb = fuse.sigmoid %gb : tensor<1x16x1x1xf32>
  %xb = fuse.broadcast %fb, dims = [0, 1, 2, 3] : tensor<1x16x1x1xf32> -> tensor<1x16x8x8xf32>
  %ob = fuse.mul %hb, %xb : tensor<1x16x8x8xf32>
  return %oa, %ob : tensor<1x24x20x20xf32>, tensor<1x16x8x8xf32>
}
