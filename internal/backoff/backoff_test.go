package backoff_test

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/mcplogd/mcplogd/internal/backoff"
)

const ms = time.Millisecond

// steps returns the next n waits of b.
func steps(b *backoff.Backoff, n int) []time.Duration {
	var d []time.Duration
	for range n {
		d = append(d, b.Next())
	}
	return d
}

// TestBackoff_Next steps each Backoff and compares the waits it gives: the
// gateway's and the studio forwarder's defaults, a factor, no bound, and
// bounds that contradict each other.
func TestBackoff_Next(t *testing.T) {
	for _, c := range []struct {
		name string
		b    backoff.Backoff
		want []time.Duration
	}{
		{"Gateway", backoff.Backoff{Min: 250 * ms, Max: 10 * time.Second},
			[]time.Duration{250 * ms, 500 * ms, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 10 * time.Second, 10 * time.Second}},
		{"Studio", backoff.Backoff{Min: 200 * ms, Max: 30 * time.Second},
			[]time.Duration{200 * ms, 400 * ms, 800 * ms, 1600 * ms, 3200 * ms, 6400 * ms, 12800 * ms, 25600 * ms, 30 * time.Second, 30 * time.Second}},
		{"Factor", backoff.Backoff{Min: 100 * ms, Max: time.Second, Factor: 1.5},
			[]time.Duration{100 * ms, 150 * ms, 225 * ms, 337500 * time.Microsecond, 506250 * time.Microsecond, 759375 * time.Microsecond, time.Second}},
		{"FactorOne", backoff.Backoff{Min: 100 * ms, Max: time.Second, Factor: 1},
			[]time.Duration{100 * ms, 100 * ms, 100 * ms}},
		{"MaxBelowMin", backoff.Backoff{Min: 100 * ms, Max: 50 * ms},
			[]time.Duration{100 * ms, 100 * ms}},
		{"Zero", backoff.Backoff{}, []time.Duration{0, 0}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := steps(&c.b, len(c.want)); !slices.Equal(got, c.want) {
				t.Errorf("waits %v; want %v", got, c.want)
			}
		})
	}
}

// TestBackoff_Next_NoMax: without Max the wait grows until it stops at the
// largest Duration rather than overflow.
func TestBackoff_Next_NoMax(t *testing.T) {
	b := backoff.Backoff{Min: time.Second}
	prev := time.Duration(0)
	for i := range 80 {
		d := b.Next()
		if d < prev {
			t.Fatalf("wait %d is %v, after %v", i, d, prev)
		}
		prev = d
	}
	if prev != math.MaxInt64 {
		t.Errorf("wait after 80 steps %v; want the largest Duration", prev)
	}
}

// TestBackoff_Reset: after a success the next wait is Min again and grows
// as from the start.
func TestBackoff_Reset(t *testing.T) {
	b := backoff.Backoff{Min: 20 * ms, Max: 200 * ms}
	steps(&b, 5)
	b.Reset()
	if got, want := steps(&b, 3), []time.Duration{20 * ms, 40 * ms, 80 * ms}; !slices.Equal(got, want) {
		t.Errorf("waits after Reset %v; want %v", got, want)
	}
}
