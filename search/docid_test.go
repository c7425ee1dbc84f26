package search

import (
	"math"
	"testing"
)

// A record's document ID reads back as its ID, and a document ID no
// record has does not.
func TestRecordDocID(t *testing.T) {
	for _, id := range []uint64{1, 9, 255, 256, 65535, 65536, 1<<24 - 1, 1 << 24, 1<<56 + 7, math.MaxUint64} {
		ext := recordDocID(id)
		if got, ok := parseDocID(ext); !ok || got != id {
			t.Errorf("parseDocID(recordDocID(%d)) = %d, %v", id, got, ok)
		}
	}
	if n := len(recordDocID(200_000)); n != 3 {
		t.Errorf("recordDocID(200000) takes %d bytes, want 3", n)
	}
	for _, ext := range []string{"\x00s", "", "123456789"} {
		if id, ok := parseDocID(ext); ok {
			t.Errorf("parseDocID(%q) = %d, true; want no record's", ext, id)
		}
	}
}
