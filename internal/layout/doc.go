// Package layout holds no code, only a test that keeps the tree's shape as
// ARCHITECTURE.md promises it: no non-test Go file over MaxFileLines lines,
// no function over MaxFuncLines lines, a package comment in every package.
// Run it with `go test ./internal/layout`; `-v` lists the largest files and
// functions.
package layout

// The limits the test enforces.
const (
	MaxFileLines = 500
	MaxFuncLines = 80
)
