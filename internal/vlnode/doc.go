// Package vlnode finds the pinned VictoriaLogs binary and runs it as a
// child process: a single node on 127.0.0.1 with its data in a folder of
// the caller's, for `mcplogd bench` (which sets it beside mcplogd) and for
// the test helpers of internal/harness/vltest.
//
//	bin := vlnode.Binary()
//	if bin == "" {
//		return errors.New("victoria-logs is not installed (scripts/need-victoria-logs)")
//	}
//	n, err := vlnode.Start(ctx, bin, dir, "-retentionPeriod=100y")
//	if err != nil {
//		return err
//	}
//	defer n.Stop()
//	resp, err := http.Get(n.URL + "/select/logsql/query?query=*")
package vlnode
