package backoff

import (
	"math"
	"time"
)

// Backoff is a growing wait between failed attempts. Its zero value waits
// nothing and doubles nothing; set Min and Max. It is not safe for
// concurrent use: one loop owns one Backoff.
type Backoff struct {
	// Min is the first wait, and the one after Reset.
	Min time.Duration
	// Max bounds every wait. A value <= 0 means no bound; a value below
	// Min means Min.
	Max time.Duration
	// Factor multiplies the wait after each Next. A value below 1
	// (zero included) means 2.
	Factor float64

	next time.Duration // the wait Next gives unless Min or Max bounds it; 0 after Reset
}

// Next returns the wait before the next attempt and grows the one after:
// Min, Min·Factor, Min·Factor², … up to Max.
func (b *Backoff) Next() time.Duration {
	d := b.next
	if b.Max > 0 {
		d = min(d, b.Max)
	}
	d = max(d, b.Min)
	f := b.Factor
	if f < 1 {
		f = 2
	}
	if g := float64(d) * f; g < math.MaxInt64 {
		b.next = time.Duration(g)
	} else {
		b.next = math.MaxInt64
	}
	return d
}

// Reset makes the next wait Min again, after a success.
func (b *Backoff) Reset() { b.next = 0 }
