// Package layout holds no code, only tests that keep the tree's shape as
// ARCHITECTURE.md promises it: no non-test Go file over MaxFileLines lines,
// no function over MaxFuncLines lines, a package comment in every package
// (TestLayout), and the import rules: adapters import only the domain
// (oplog, crash), api neither otlp nor metrics, the client links nothing
// but the standard library and oplog (TestImports). Run them with `go test ./internal/layout`; `-v` lists the
// largest files and functions.
package layout

// The limits the test enforces.
const (
	MaxFileLines = 500
	MaxFuncLines = 80
)
