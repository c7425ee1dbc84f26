// Package layout holds no code, only tests that keep the tree's shape as
// ARCHITECTURE.md promises it: no non-test Go file over MaxFileLines lines,
// no function over MaxFuncLines lines, a package comment in every package
// (TestLayout), and the import rules: adapters import only the domain
// (oplog, its query language oplog/query, and crash), api neither otlp
// nor metrics, the client links nothing but the standard library and
// oplog, internal's basement (shellwords, backoff) nothing but the
// standard library (TestImports).
//
// Files are split by concept, not by size: a type stays whole with its
// methods, and one compiler of the query language stays one file, so the
// file cap is a guard against a file that holds several concepts, set well
// above what one concept needs. Functions stay short enough to read at
// once. Run them with `go test ./internal/harness/layout`; `-v` lists the
// largest files and functions.
package layout

// The limits the test enforces.
const (
	MaxFileLines = 900
	MaxFuncLines = 80
)
