package logtest

import (
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
)

// Seed returns the seed of a test's random damage and logs it, so that a
// failure can be replayed: $MCPLOGD_SEED when set, else a new one. A test
// draws from rand.New(rand.NewPCG(seed, n)), one n per sequence.
func Seed(tb testing.TB) uint64 {
	tb.Helper()
	seed := rand.Uint64()
	if s := os.Getenv("MCPLOGD_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			tb.Fatalf("MCPLOGD_SEED=%q: %v", s, err)
		}
	}
	tb.Logf("seed %d (MCPLOGD_SEED=%d replays it)", seed, seed)
	return seed
}
