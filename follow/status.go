package follow

import (
	"time"

	"github.com/mcplogd/mcplogd/oplog"
)

// Follower states, as FollowerStatus.State reports them (see
// oplog.FollowerState); a failing follower retries every Poll.
const (
	// StateWaiting means the file does not exist (yet).
	StateWaiting = oplog.FollowerWaiting
	// StateFollowing means the file is being read.
	StateFollowing = oplog.FollowerFollowing
	// StateFailing means reading or storing fails; retried every Poll.
	StateFailing = oplog.FollowerFailing
)

// Status returns the follower's state.
func (f *Follower) Status() oplog.FollowerStatus {
	f.mu.Lock()
	defer f.mu.Unlock()
	st := f.status
	st.Lines = f.lines.Load()
	return st
}

func (f *Follower) setState(state oplog.FollowerState, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	if f.status.State != state {
		f.status.State, f.status.Since = state, time.Now().UTC()
		if state == StateFailing {
			f.logger.Warn("follow: failing", "err", err)
		}
	}
	f.status.Error = msg
	if state == StateWaiting {
		f.status.Offset, f.status.Size = 0, 0
	} else if f.cur != nil {
		f.status.Size = f.cur.size
	}
}
