// Command-line and input errors: one clear message on stderr, exit status 1,
// never a Python traceback.

// Unknown pass flag, as mlir-opt reports an unknown argument.
// RUN: not ms-opt %s --no-such-pass 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: ms-opt: Unknown command line argument '--no-such-pass'.  Try: 'ms-opt --help'
// UNKNOWN-NOT: Traceback
// A misspelt pass of ours gets a suggestion.
// RUN: not ms-opt %s --convert-mindir-to-linalgg 2>&1 | FileCheck %s --check-prefix=SUGGEST
// SUGGEST: ms-opt: Unknown command line argument '--convert-mindir-to-linalgg'.
// SUGGEST-NEXT: ms-opt: Did you mean '--convert-mindir-to-linalg'?

// Unknown pass inside --pass-pipeline.
// RUN: not ms-opt %s --pass-pipeline='builtin.module(canonicalize,no-such-pass)' 2>&1 | FileCheck %s --check-prefix=PIPE
// PIPE: error: 'no-such-pass' does not refer to a registered pass or pass pipeline
// PIPE-NOT: Traceback

// Bad options: upstream pass (unknown option, bad value) and one of ours.
// RUN: not ms-opt %s --canonicalize='no-such-option=1' 2>&1 | FileCheck %s --check-prefix=BADOPT
// BADOPT: ms-opt: for the --canonicalize option: <Pass-Options-Parser>: no such option no-such-option
// RUN: not ms-opt %s '--canonicalize{max-iterations=many}' 2>&1 | FileCheck %s --check-prefix=BADVAL
// BADVAL: ms-opt: for the --canonicalize option: for the --max-iterations option: 'many' value invalid for long argument!
// BADVAL-NOT: Traceback
// RUN: not ms-opt %s --convert-mindir-to-linalg='no-such-option=1' 2>&1 | FileCheck %s --check-prefix=OURS
// OURS: ms-opt: for the --convert-mindir-to-linalg option: 'convert-mindir-to-linalg' has no option 'no-such-option'
// RUN: not ms-opt %s --pass-pipeline='builtin.module(convert-mindir-to-linalg{no-such-option=1})' 2>&1 | FileCheck %s --check-prefix=OURS-PIPE
// OURS-PIPE: ms-opt: invalid pass pipeline: 'convert-mindir-to-linalg' has no option 'no-such-option'
// RUN: not ms-opt %s --mlir-print-debuginfo=maybe 2>&1 | FileCheck %s --check-prefix=BADBOOL
// BADBOOL: ms-opt: for the --mlir-print-debuginfo option: 'maybe' is invalid value for boolean argument!

// Malformed input: file:line:col of the error, the source line and a caret.
// RUN: not ms-opt %S/Inputs/malformed.mlir 2>&1 | FileCheck %s --check-prefix=MALFORMED
// MALFORMED:      {{.*}}Inputs/malformed.mlir:4:21: error: expected ':'
// MALFORMED-NEXT: {{^}}  %1 = mindir.exp %0 tensor<2x3xf32>{{$}}
// MALFORMED-NEXT: {{^}}                    ^{{$}}
// MALFORMED-NOT:  Traceback
// Nothing on stdout.
// RUN: not ms-opt %S/Inputs/malformed.mlir 2>/dev/null | count 0
// RUN: not ms-opt - < %S/Inputs/malformed.mlir 2>&1 | FileCheck %s --check-prefix=MALFORMED-STDIN
// MALFORMED-STDIN: <stdin>:4:21: error: expected ':'

// Invalid IR (a verifier error of the mindir dialect) is an error too.
// RUN: not ms-opt %s --split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=INVALID
// INVALID: errors.mlir:[[# @LINE + 6]]:8: error: cannot reshape [2, 3] (6 elements) to [4, 2] (8 elements)

// Missing input file.
// RUN: not ms-opt %S/Inputs/does-not-exist.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: ms-opt: cannot open input file '{{.*}}Inputs/does-not-exist.mlir': No such file or directory
func.func @r(%a: tensor<2x3xf32>) -> tensor<4x2xf32> {
  %0 = mindir.reshape %a {shape = array<i64: 4, 2>} : (tensor<2x3xf32>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// Too many inputs; a flag missing its value.
// RUN: not ms-opt %s %s 2>&1 | FileCheck %s --check-prefix=TWO
// TWO: ms-opt: Too many positional arguments specified!
// RUN: not ms-opt %s -o 2>&1 | FileCheck %s --check-prefix=NOVALUE
// NOVALUE: ms-opt: for the -o option: requires a value!
