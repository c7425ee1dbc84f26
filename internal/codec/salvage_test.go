package codec_test

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/mcplogd/mcplogd/internal/codec"
	"github.com/mcplogd/mcplogd/internal/workload"
)

// TestSalvageBlock_FlippedBits flips one bit of a sealed block at a time,
// anywhere past its header, and reads it in part: every record given back
// is the one sealed, byte for byte; every other ID is in a lost run, once;
// and across the flips a share of the records comes back (a whole block
// did before: DecodeBlock fails on every flip).
func TestSalvageBlock_FlippedBits(t *testing.T) {
	for _, w := range []struct {
		name string
		gen  *workload.Generator
	}{{"game", workload.New(1)}, {"words", workload.NewWords(1)}} {
		ids, vals, _ := generatedBlock(w.gen)
		v, err := codec.AppendBlock(nil, 1, ids, vals, false)
		if err != nil {
			t.Fatal(err)
		}
		whole, err := codec.DecodeBlock(v)
		if err != nil {
			t.Fatal(err)
		}
		want := map[uint64][]byte{}
		for i := range whole.Len() {
			want[whole.ID(i)] = whole.Value(i)
		}
		rng := rand.New(rand.NewPCG(7, 7))
		const flips = 300
		kept, failed := 0, 0
		for range flips {
			bad := bytes.Clone(v)
			at := 8 + rng.IntN(len(bad)-8)
			bad[at] ^= 1 << rng.IntN(8)
			if _, err := codec.DecodeBlock(bad); err == nil {
				t.Fatalf("byte %d of %d flipped, the block still decodes whole", at, len(v))
			}
			b, lost, err := codec.SalvageBlock(bad)
			if err != nil {
				failed++
				continue
			}
			seen := map[uint64]bool{}
			for i := range b.Len() {
				id := b.ID(i)
				if !bytes.Equal(b.Value(i), want[id]) {
					t.Fatalf("%s, byte %d flipped: record %d given back as %q; want %q", w.name, at, id, b.Value(i), want[id])
				}
				seen[id] = true
			}
			for _, r := range lost {
				for id := r[0]; id <= r[1]; id++ {
					if _, ok := want[id]; !ok {
						continue // a lost run spans the block's IDs only
					}
					if seen[id] {
						t.Fatalf("%s, byte %d flipped: record %d given back and lost", w.name, at, id)
					}
					seen[id] = true
				}
			}
			if len(seen) != len(want) {
				t.Fatalf("%s, byte %d flipped: %d of %d records given back or lost", w.name, at, len(seen), len(want))
			}
			kept += b.Len()
		}
		share := float64(kept) / float64(flips*len(ids))
		t.Logf("%s: %d flipped bits in a block of %d records: %.0f%% of the records given back (%d flips lost the block whole)", w.name, flips, len(ids), 100*share, failed)
		if share < 0.25 {
			t.Errorf("%s: %.0f%% of a damaged block's records given back; want a quarter at least", w.name, 100*share)
		}
	}
}

// TestSalvageBlock_AnyBytes: a block read in part whatever its bytes
// (20,000 of them changed at random, cut short or grown) gives back
// records or an error, never a panic.
func TestSalvageBlock_AnyBytes(t *testing.T) {
	ids, vals, _ := generatedBlock(workload.NewWords(2))
	v, err := codec.AppendBlock(nil, 1, ids[:40], vals[:40], false)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(2, 3))
	for range 20_000 {
		w := bytes.Clone(v)
		switch rng.IntN(4) {
		case 0:
			w = w[:rng.IntN(len(w))]
		case 1:
			w = append(w, w[rng.IntN(len(w)):]...)
		default:
			for range 1 + rng.IntN(3) {
				w[rng.IntN(len(w))] ^= byte(1 + rng.IntN(255))
			}
		}
		if b, _, err := codec.SalvageBlock(w); err == nil {
			for i := range b.Len() {
				_ = b.Value(i)
			}
		}
	}
}
