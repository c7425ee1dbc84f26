package studio

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/mcplogd/mcplogd/internal/atomicfile"
)

// stateVersion is the format of the state file; another version is refused.
const stateVersion = 1

// state is the forwarder's durable position, saved in the data directory
// (ForwardOptions.StatePath) before each batch is sent and again once
// VictoriaLogs acknowledged it.
type state struct {
	Version  int    `json:"version"`
	Project  string `json:"project"`
	Machine  string `json:"machine"`
	Revision uint64 `json:"revision"` // the store generation being forwarded; 0: none yet
	Seq      uint64 `json:"seq"`      // the last seq assigned to a row acknowledged (or adopted)
	Through  uint64 `json:"through"`  // the highest record ID whose row is acknowledged, or skipped
	// Pending are the operations sent pending whose completion is still to send.
	Pending []uint64 `json:"pending,omitempty"`
	// Reconciled: every seq at or below it was found in VictoriaLogs.
	Reconciled uint64 `json:"reconciled"`
	// Journal lists the batches above Reconciled, oldest first: what each
	// seq stands for, so that a row VictoriaLogs lost is sent again with
	// its own seq.
	Journal []batch `json:"journal,omitempty"`

	Resent uint64 `json:"resent,omitempty"`
	Lost   uint64 `json:"lost,omitempty"`
	TooOld uint64 `json:"tooOld,omitempty"`
}

// batch is one insert request: its rows have seqs Seq, Seq+1, ...: first
// the completions Comps (a second row of each operation), then one row per
// record Lo..Hi (none when Lo is 0).
type batch struct {
	Revision uint64   `json:"rev"`
	Seq      uint64   `json:"seq"`
	Comps    []uint64 `json:"comps,omitempty"`
	Lo       uint64   `json:"lo,omitempty"`
	Hi       uint64   `json:"hi,omitempty"`
	// NewPending are the operations of Lo..Hi sent pending.
	NewPending []uint64 `json:"newPending,omitempty"`
	// Acked is when VictoriaLogs answered 2xx (or when the answer was lost
	// and the rows are left to reconciliation); zero: not answered yet.
	Acked time.Time `json:"acked,omitzero"`
	// Checked is when a reconciliation last sent some of its rows again.
	Checked time.Time `json:"checked,omitzero"`
}

// rows is how many rows b has.
func (b *batch) rows() uint64 {
	n := uint64(len(b.Comps))
	if b.Lo != 0 {
		n += b.Hi - b.Lo + 1
	}
	return n
}

// last is b's highest seq.
func (b *batch) last() uint64 { return b.Seq + b.rows() - 1 }

// at says what row seq stands for in b: a completion of op (comp true) or
// the record id.
func (b *batch) at(seq uint64) (id uint64, comp bool) {
	i := seq - b.Seq
	if i < uint64(len(b.Comps)) {
		return b.Comps[i], true
	}
	return b.Lo + i - uint64(len(b.Comps)), false
}

// adopt counts b, the journal's last batch, as sent: the seqs, records and
// operations it covers. It merges b into the batch before it when b
// continues its run of seqs and IDs and was sent soon after it (within
// window), so that the journal stays short through a long outage of
// reconciliation (a storage node down) without delaying any check by
// more than window.
func (s *state) adopt(b *batch, at time.Time, window time.Duration) {
	b.Acked = at
	s.Seq = max(s.Seq, b.last())
	if b.Lo != 0 {
		s.Through = max(s.Through, b.Hi)
	}
	s.Pending = slices.DeleteFunc(s.Pending, func(id uint64) bool { return slices.Contains(b.Comps, id) })
	s.Pending = append(s.Pending, b.NewPending...)
	n := len(s.Journal)
	if n < 2 || b != &s.Journal[n-1] {
		return
	}
	prev := &s.Journal[n-2]
	if prev.Revision == b.Revision && len(b.Comps) == 0 && prev.Lo != 0 && b.Lo == prev.Hi+1 && b.Seq == prev.last()+1 &&
		!prev.Acked.IsZero() && prev.Checked.IsZero() && at.Sub(prev.Acked) < window {
		prev.Hi, prev.Acked = b.Hi, at
		prev.NewPending = append(prev.NewPending, b.NewPending...)
		s.Journal = s.Journal[:n-1]
	}
}

// loadState reads the state at path; a missing file is a fresh state.
func loadState(path string) (state, error) {
	s := state{Version: stateVersion}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	} else if err != nil {
		return s, err
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("studio state %s is damaged: %w (remove it: mcplogd then asks VictoriaLogs for the newest row it holds "+
			"of this machine and forwards the records after it; nothing is sent twice, and no record before that row is sent again)", path, err)
	}
	if s.Version != stateVersion {
		return s, fmt.Errorf("studio state %s has version %d; this mcplogd reads version %d", path, s.Version, stateVersion)
	}
	return s, nil
}

// save replaces the state file atomically and durably.
func (s *state) save(path string) error {
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, b, 0o600)
}
