// Package vltest runs real VictoriaLogs processes for tests: a single node
// (Start) or a cluster of storage nodes behind one front (StartCluster), on
// 127.0.0.1 with data in the test's temporary directory, ended at cleanup.
//
//	vl := vltest.Start(t)
//	// ... send to vl.URL ...
//	vl.ForceFlush(t)
//	rows := vl.Query(t, `{project="game"} | sort by (seq)`)
//
// The binary is the pinned victoria-logs (Version) that
// scripts/need-victoria-logs installs with go install; it is looked for on
// PATH, then in $(go env GOBIN) or $(go env GOPATH)/bin. Without it a test is skipped, or fails
// when MCPLOGD_REQUIRE_VICTORIALOGS=1 (as make test sets).
package vltest
