// --mlir-timing: mlir-opt's execution time report on stderr, covering the
// driver (Parser, Output), upstream passes, msmlir's Python passes and the
// analyses; --mlir-timing-display=tree (default) nests pipelines, =list merges
// the timers by name and sorts them by time; --split-input-file chunks are
// merged into one report.

// RUN: ms-opt %s --split-input-file --mlir-disable-threading --convert-mindir-to-linalg --pass-pipeline='builtin.module(func.func(cse,canonicalize),cse)' --mlir-timing 2>&1 >/dev/null | FileCheck %s --check-prefix=TREE
// RUN: ms-opt %s --split-input-file --mlir-disable-threading --convert-mindir-to-linalg --pass-pipeline='builtin.module(func.func(cse,canonicalize),cse)' --mlir-timing --mlir-timing-display=tree 2>&1 >/dev/null | FileCheck %s --check-prefix=TREE
// RUN: ms-opt %s --split-input-file --mlir-disable-threading --convert-mindir-to-linalg --pass-pipeline='builtin.module(func.func(cse,canonicalize),cse)' --mlir-timing --mlir-timing-display=list 2>&1 >/dev/null | FileCheck %s --check-prefix=LIST
// The output itself is unchanged by the report (which goes to stderr).
// RUN: ms-opt %s --split-input-file --convert-mindir-to-linalg --mlir-timing 2>/dev/null | FileCheck %s --check-prefix=OUT
// A bad display mode is refused as mlir-opt refuses it.
// RUN: not ms-opt %s --mlir-timing --mlir-timing-display=flat 2>&1 | FileCheck %s --check-prefix=BAD

// TREE:      ===-------------------------------------------------------------------------===
// TREE-NEXT:                          ... Execution time report ...
// TREE-NEXT: ===-------------------------------------------------------------------------===
// TREE-NEXT:   Total Execution Time: {{[0-9]+\.[0-9]+}} seconds
// TREE-EMPTY:
// TREE-NEXT:   ----Wall Time----  ----Name----
// TREE-NEXT:   {{ *[0-9]+\.[0-9]{4} \( *[0-9.]+%\)}}  Parser
// TREE-NEXT:   {{.*}}%)  convert-mindir-to-linalg
// TREE-NEXT:   {{.*}}%)  'func.func' Pipeline
// TREE-NEXT:   {{.*}}%)    CSE
// TREE-NEXT:   {{.*}}%)      (A) DominanceInfo
// TREE-NEXT:   {{.*}}%)    Canonicalizer
// TREE-NEXT:   {{.*}}%)  CSE
// TREE-NEXT:   {{.*}}%)    (A) DominanceInfo
// TREE-NEXT:   {{.*}}%)  Output
// TREE-NEXT:   {{.*}}%)  Rest
// TREE-NEXT:   {{.*}}(100.0%)  Total
// TREE-NOT:  Execution time report

// LIST:      ... Execution time report ...
// LIST:      ----Wall Time----  ----Name----
// LIST-DAG:  %)  Parser
// LIST-DAG:  %)  convert-mindir-to-linalg
// LIST-DAG:  %)  'func.func' Pipeline
// LIST-DAG:  %)  CSE
// LIST-DAG:  %)  (A) DominanceInfo
// LIST-DAG:  %)  Canonicalizer
// LIST-DAG:  %)  Output
// LIST:      %)  Rest
// LIST-NEXT: (100.0%)  Total
// LIST-NOT:  %)    {{[A-Za-z(]}}

// OUT:     func.func @f(
// OUT:       linalg.generic
// OUT:     func.func @g(
// OUT-NOT: Execution time report

// BAD: ms-opt: for the --mlir-timing-display option: Cannot find option named 'flat'!

func.func @f(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = mindir.exp %a : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @g(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = mindir.neg %a : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
