// Package logtest holds the helpers that tests across mcplogd share: real
// stores in t.TempDir() (MustOpenDB, MustOpenLog), batches of lines, polling
// for a condition, and buffers for a logger's or a child process's output.
//
// A store opened here is checked when the test ends: MustCheck recounts the
// stats and per-name counters from the records (store.DB.Check) and fails
// the test on any difference, so that every test that writes also tests the
// counters it leaves behind, as bbolt's internal/btesting runs tx.Check.
//
//	func TestThing(t *testing.T) {
//		l, db := logtest.MustOpenLog(t, nil)
//		logtest.MustAppend(t, l, logtest.Lines(10, "x")...)
//		...
//	} // db is checked and closed here
package logtest
