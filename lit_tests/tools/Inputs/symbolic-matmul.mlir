// A matmul on symbolic (batch, sequence) and a tanh: the matmul's kernel
// needs static dims (issue 22), so fuse-run compiles it per binding.
func.func @layer(%x: tensor<?x?x64xf32, #fuse.dims<batch, sequence>> {fuse.name = "x"},
                 %w: tensor<64x64xf32> {fuse.name = "w"})
    -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>> {
  %m = fuse.matmul %x, %w : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>, tensor<64x64xf32> -> tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  %t = fuse.tanh %m : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
  return %t : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>
}
