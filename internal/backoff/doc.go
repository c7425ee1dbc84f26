// Package backoff is the wait between attempts at something that failed:
// the gateway reconnecting to a game's MCP server, the studio forwarder
// sending to VictoriaLogs. Each failure waits Factor times longer than the
// one before, from Min up to Max; a success resets it to Min.
//
//	retry := backoff.Backoff{Min: 250 * time.Millisecond, Max: 10 * time.Second}
//	for ctx.Err() == nil {
//		if err := connect(ctx); err != nil {
//			time.Sleep(retry.Next()) // 250 ms, 500 ms, 1 s, … 10 s, 10 s
//			continue
//		}
//		retry.Reset()
//	}
//
// Backoff only computes the waits; the caller sleeps (and stops sleeping
// when its context ends), so a test steps it without a clock. There is no
// jitter: each caller has one peer to wait for, not a crowd to spread out.
// It lives under internal because it is not part of mcplogd's API.
package backoff
