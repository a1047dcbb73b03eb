// Attention's scores q @ k^T on symbolic (batch, sequence), then a tanh: the
// matmul's N is the sequence, on which its kernel's code depends (only a
// matmul's rows take the dims at run time, issue 22), so fuse-run compiles
// it per binding.
func.func @scores(%q: tensor<?x?x64xf32, #fuse.dims<batch, sequence>> {fuse.name = "q"},
                  %k: tensor<?x?x64xf32, #fuse.dims<batch, sequence>> {fuse.name = "k"})
    -> tensor<?x?x?xf32, #fuse.dims<batch, sequence, sequence>> {
  %s = fuse.matmul %q, %k transpose_b : tensor<?x?x64xf32, #fuse.dims<batch, sequence>>, tensor<?x?x64xf32, #fuse.dims<batch, sequence>> -> tensor<?x?x?xf32, #fuse.dims<batch, sequence, sequence>>
  %t = fuse.tanh %s : tensor<?x?x?xf32, #fuse.dims<batch, sequence, sequence>>
  return %t : tensor<?x?x?xf32, #fuse.dims<batch, sequence, sequence>>
}
