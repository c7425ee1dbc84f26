package oplog

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"
)

// One launch, one run. A game started by `mcplogd run` while a server
// follows its log file (or mirrors its console) is seen starting by two
// writers: the launch (a run marker whose data says "reason": "launch"),
// which knows when the process starts and how it ends, and the follower,
// which notices a moment later that the log was rewritten, created or
// began with the engine's banner. Both are the same start. The launch
// owns the run: another writer's run start joins the launch's run as a
// line when that run is still running, or when it ended before the
// follower read any of the file it names (a launch shorter than the
// follower's poll). Inside one `serve` a single writer owns each game's
// runs already; this is for a launch serve did not start.

// importedBefore is how long before a launch a run start must be dated to
// be an older log's, imported meanwhile, rather than the launch's own as
// its log dates it (to the second, in a local time zone perhaps).
const importedBefore = 10 * time.Minute

// launchReason is the run marker reason of a launch, importReason of
// another log imported into a source with runs.
const (
	launchReason = "launch"
	importReason = "import"
)

// joinLaunches turns each run marker of recs that another writer's launch
// already started into a line of that run.
func (l *Log) joinLaunches(recs []Record) {
	rs, ok := l.store.(RunStore)
	if !ok {
		return
	}
	for i := range recs {
		r := &recs[i]
		if r.Kind != KindMarker || r.Name != MarkerRun || markerReason(r.Data) == launchReason || markerReason(r.Data) == importReason {
			continue // an imported log is a session of its own, whenever it is imported
		}
		if l.launchOwns(rs, r) {
			r.Kind, r.Name, r.Level = KindLine, "", LevelInfo
			r.Text = strings.TrimPrefix(r.Text, "run started: ")
		}
	}
}

// launchOwns reports whether r, a run marker that is no launch, is the
// start of the run a launch of its source began.
func (l *Log) launchOwns(rs RunStore, r *Record) bool {
	cur, ok, err := rs.Run(r.Source, 0)
	if err != nil || !ok {
		return false
	}
	first, err := l.store.Get(cur.FirstID)
	if err != nil || first.Kind != KindMarker || first.Name != MarkerRun || markerReason(first.Data) != launchReason {
		return false
	}
	if r.Time.Before(first.Time.Add(-importedBefore)) {
		return false // an older log imported meanwhile: its runs are its own
	}
	if !cur.Ended() {
		return true
	}
	file := markerFile(r.Data)
	if file == "" || cur.Outcome == OutcomeEnded {
		return false // a relaunch outside mcplogd run; or the next run began
	}
	t, err := l.store.Tail(TailQuery{Filter: Filter{Source: r.Source, Runs: map[string]uint64{r.Source: cur.Run}},
		SinceID: cur.FirstID, HasSince: true, Limit: MaxTailLimit})
	if err != nil || t.More {
		return false
	}
	for _, x := range t.Lines {
		if markerFile(x.Data) == file {
			return false // the follower read this launch's file: r is the next launch
		}
	}
	return true
}

// markerReason returns data's "reason", or "".
func markerReason(data []byte) string { return dataString(data, "reason") }

// markerFile returns data's "file" (a followed file's path), or "".
func markerFile(data []byte) string { return dataString(data, "file") }

// dataString returns the string value of key in data, a JSON object, or "".
func dataString(data []byte, key string) string {
	if !bytes.Contains(data, []byte(`"`+key+`"`)) {
		return ""
	}
	var m map[string]json.RawMessage
	var s string
	if json.Unmarshal(data, &m) != nil || json.Unmarshal(m[key], &s) != nil {
		return ""
	}
	return s
}
