// The pass registry: typed options parsed from pipeline text, their
// diagnostics, and --help listing them from the same declarations.
// RUN: ms-opt %s --msmlir-cpu-lower-vectors="threads=2" | FileCheck %s --check-prefix=OK
// RUN: not ms-opt %s --msmlir-cpu-lower-vectors="threads=two" 2>&1 | FileCheck %s --check-prefix=BADINT
// RUN: not ms-opt %s --pass-pipeline='builtin.module(msmlir-cpu-pipeline{codegen=maybe})' 2>&1 | FileCheck %s --check-prefix=BADBOOL
// RUN: not ms-opt %s --pass-pipeline='builtin.module(msmlir-fuse-rows{rows=2})' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: ms-opt --help | FileCheck %s --check-prefix=HELP

// OK-LABEL: func.func @f
// BADINT: invalid value 'two' for option 'threads' of 'msmlir-cpu-lower-vectors'
// BADBOOL: invalid pass pipeline: invalid value 'maybe' for option 'codegen' of 'msmlir-cpu-pipeline'
// UNKNOWN: invalid pass pipeline: 'msmlir-fuse-rows' has no option 'rows' (options: threads, min-work)

// HELP:      --msmlir-cpu-fast-math
// HELP-NEXT:   ops=<str> {{ *}}- which math ops to rewrite (default: exp,tanh,erf)
// HELP-NEXT:   min-lanes=<int> {{ *}}- {{.*}} (default: 8)
// HELP:      --msmlir-cpu-pipeline
// HELP-NEXT:   graph-kernel=<bool> {{ *}}- {{.*}} (default: {{true|false}})
// HELP-NEXT:   codegen=<bool> {{ *}}- {{.*}} (default: {{true|false}})
// HELP-NEXT:   threads=<int>
// HELP-NEXT:   globalize=<bool> {{ *}}- {{.*}} (default: false)
// HELP-NEXT:   fast-math=<bool> {{ *}}- {{.*}} (default: true)
// HELP-NEXT:   min-work=<int> {{ *}}- {{.*}} (default: 8192)
func.func @f() {
  return
}
