// Package studiotest helps the studio-scope tests: it starts a real
// VictoriaLogs (through internal/harness/vltest) and writes rows of the studio
// schema to it as the forwarder does, so that queries can be tested on
// rows of any shape (two machines, two revisions, an operation's two rows).
//
//	url := studiotest.Start(t)
//	studiotest.Ingest(t, url, []map[string]any{studiotest.Row("game", "alice-pc", 1, 1, &rec, sig)})
package studiotest
