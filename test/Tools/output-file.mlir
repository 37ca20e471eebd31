// -o writes the result to a file (stdout stays empty); -o - is stdout.
// RUN: rm -f %t.out
// RUN: ms-opt %s -o %t.out | count 0
// RUN: FileCheck %s < %t.out
// RUN: ms-opt %s -o=%t.2.out --canonicalize
// RUN: FileCheck %s < %t.2.out
// RUN: ms-opt %s -o - | FileCheck %s
// On failure nothing is written, as mlir-opt.
// RUN: rm -f %t.bad
// RUN: not ms-opt %S/Inputs/malformed.mlir -o %t.bad
// RUN: not test -e %t.bad
// An output file that cannot be created is an error.
// RUN: not ms-opt %s -o %t.missing-dir/x.mlir 2>&1 | FileCheck %s --check-prefix=NODIR

// CHECK:      func.func @f(%[[A:.*]]: tensor<2x3xf32>) -> tensor<2x3xf32> {
// CHECK-NEXT:   %[[E:.*]] = mindir.exp %[[A]] : tensor<2x3xf32>
// CHECK-NEXT:   return %[[E]]
// NODIR: ms-opt: cannot open output file '{{.*}}missing-dir/x.mlir': No such file or directory
func.func @f(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = mindir.exp %a : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
