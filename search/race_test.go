//go:build race

package search_test

// The race detector's shadow memory is several times the program's own:
// the memory tests do not measure under it.
func init() { raceDetector = true }
