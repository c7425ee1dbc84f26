package studio

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestState_Adopt_Merges: batches that continue each other within the
// window merge into one journal entry; others stay apart.
func TestState_Adopt_Merges(t *testing.T) {
	t0 := time.Unix(1000, 0)
	tests := []struct {
		name  string
		next  batch
		at    time.Time
		merge bool
	}{
		{"Continues", batch{Revision: 1, Seq: 11, Lo: 110, Hi: 119}, t0.Add(time.Second), true},
		{"TooLate", batch{Revision: 1, Seq: 11, Lo: 110, Hi: 119}, t0.Add(5 * time.Second), false},
		{"Completions", batch{Revision: 1, Seq: 11, Comps: []uint64{5}, Lo: 110, Hi: 118}, t0.Add(time.Second), false},
		{"Gap", batch{Revision: 1, Seq: 12, Lo: 110, Hi: 119}, t0.Add(time.Second), false},
		{"OtherRevision", batch{Revision: 2, Seq: 11, Lo: 110, Hi: 119}, t0.Add(time.Second), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := state{Version: stateVersion}
			s.Journal = append(s.Journal, batch{Revision: 1, Seq: 1, Lo: 100, Hi: 109})
			s.adopt(&s.Journal[0], t0, 2*time.Second)
			s.Journal = append(s.Journal, tc.next)
			s.adopt(&s.Journal[1], tc.at, 2*time.Second)
			if merged := len(s.Journal) == 1; merged != tc.merge {
				t.Fatalf("journal %+v; merged %v, want %v", s.Journal, merged, tc.merge)
			}
			if s.Seq != tc.next.last() {
				t.Errorf("seq %d, want %d", s.Seq, tc.next.last())
			}
			if tc.merge {
				b := s.Journal[0]
				if b.Seq != 1 || b.rows() != 20 || !b.Acked.Equal(tc.at) {
					t.Errorf("merged batch %+v", b)
				}
				if id, comp := b.at(15); id != 114 || comp {
					t.Errorf("seq 15 stands for %d (completion %v), want record 114", id, comp)
				}
			}
			path := filepath.Join(t.TempDir(), "state.json")
			if err := s.save(path); err != nil {
				t.Fatal(err)
			}
			back, err := loadState(path)
			if err != nil || len(back.Journal) != len(s.Journal) || back.Seq != s.Seq {
				t.Fatalf("state read back %+v, %v", back, err)
			}
		})
	}
}

// TestState_Load_Damaged: a damaged state file is refused with what
// removing it does, which is what resume does: go on after the newest row
// VictoriaLogs holds, sending nothing twice.
func TestState_Load_Damaged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "studio-forward.json")
	if err := os.WriteFile(path, []byte(`{"version": 1, "seq": `), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := loadState(path)
	if err == nil || !strings.Contains(err.Error(), path+" is damaged") ||
		!strings.Contains(err.Error(), "asks VictoriaLogs for the newest row it holds of this machine") ||
		!strings.Contains(err.Error(), "nothing is sent twice") || strings.Contains(err.Error(), "forward every record again") {
		t.Errorf("loadState of a damaged file: %v", err)
	}
}
