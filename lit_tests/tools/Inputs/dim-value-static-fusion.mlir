// A symbolic model whose dim_value sits in a fusion of static types
// (compile-dim-value.mlir).
func.func @main(%x: tensor<?x4xf32, #fuse.dims<seq>>, %c: tensor<4xi64>)
    -> (tensor<?x4xf32, #fuse.dims<seq>>, tensor<4xi64>) {
  %e = fuse.exp %x : tensor<?x4xf32, #fuse.dims<seq>>
  %n = fuse.dim_value {dim = #fuse.dims<seq>} : tensor<4xi64>
  %y = fuse.add %c, %n : tensor<4xi64>
  return %e, %y : tensor<?x4xf32, #fuse.dims<seq>>, tensor<4xi64>
}
