// Package studiotest helps the studio-scope tests: it starts a real
// VictoriaLogs (through internal/harness/vltest) and writes rows of the studio
// schema to it as the forwarder does, so that queries can be tested on
// rows of any shape (two machines, two revisions, an operation's two rows).
//
//	url := studiotest.Start(t)
//	studiotest.Ingest(t, url, []map[string]any{studiotest.Row("game", "alice-pc", 1, 1, &rec, sig)})
//
// Impls runs a test over both implementations of oplog.Studio with the
// same rows: the in-memory oplogtest.Studio, which needs nothing and so
// runs everywhere, and studio.Client over a real VictoriaLogs, where one
// can run:
//
//	for _, impl := range studiotest.Impls {
//		t.Run(impl.Name, func(t *testing.T) {
//			s := impl.Open(t, "game", rows) // []oplogtest.StudioRow
//			...
//		})
//	}
package studiotest
