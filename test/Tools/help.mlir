// --help lists the options, our passes with their summaries and options, and
// says that every upstream pass is accepted; exit status 0.
// RUN: ms-opt --help | FileCheck %s
// RUN: ms-opt -h | FileCheck %s

// CHECK:      USAGE: ms-opt [options] <input file>
// CHECK:      --pass-pipeline=<value>
// CHECK:      --split-input-file
// CHECK:      --verify-diagnostics
// CHECK:      --mlir-print-ir-after-all
// CHECK:      every upstream MLIR pass accepted by mlir-opt
// CHECK:      msmlir passes:
// CHECK:      --convert-mindir-to-linalg {{ *}}- Lower mindir ops
// CHECK:      --msmlir-cpu-pipeline {{ *}}- {{.+}}(pipeline)
// CHECK-NEXT:     {{[a-z-]+}}=<{{[a-z]+}}> {{ *}}- {{.*}}(default: {{.+}})
