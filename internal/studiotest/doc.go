// Package studiotest starts a real VictoriaLogs for the studio tests: a
// single node on 127.0.0.1 with a temporary data path, ended at cleanup
// (skipped, saying how to install it, when victoria-logs is missing), and
// writes rows of the studio schema to it as the forwarder does.
//
//	url := studiotest.Start(t)
//	studiotest.Ingest(t, url, []map[string]any{studiotest.Row("game", "alice-pc", 1, 1, &rec, sig)})
package studiotest
