package codec

import (
	"strings"
	"testing"
)

// TestCheckSums: a value changed after sealing is named by the run of
// records its checksum covers.
func TestCheckSums(t *testing.T) {
	const n = 200
	var plain []byte
	vals := make([][]byte, n)
	for i := range n {
		plain = appendUvarint(plain, uint64(i))
		vals[i] = []byte(strings.Repeat("v", i%7+1))
	}
	for _, v := range vals {
		plain = appendUvarint(plain, uint64(len(v)))
	}
	start := len(plain)
	for _, v := range vals {
		plain = append(plain, v...)
	}
	sums, err := appendSums(nil, plain, n)
	if err != nil || len(sums) != 4*4 {
		t.Fatalf("%d bytes of checksums for %d records, %v; want 16", len(sums), n, err)
	}
	if err := checkSums(sums, plain, n); err != nil {
		t.Fatal(err)
	}
	ends, _ := valueEnds(plain, n)
	if ends[0] != start {
		t.Fatalf("values start at %d; want %d", ends[0], start)
	}
	plain[ends[100]] ^= 1 // record 101, the second run's
	err = checkSums(sums, plain, n)
	if err == nil || !strings.Contains(err.Error(), "records 65 to 128") {
		t.Fatalf("a changed value: %v; want records 65 to 128 named", err)
	}
}

func appendUvarint(b []byte, x uint64) []byte {
	for x >= 0x80 {
		b = append(b, byte(x)|0x80)
		x >>= 7
	}
	return append(b, byte(x))
}

// FuzzJoinWords: word columns of any bytes give texts or an error, never
// a panic or a hang.
func FuzzJoinWords(f *testing.F) {
	f.Add([]byte("\x02ab\x01c\x1e\x02\x00\x1e\x00\x01\x1e\x1e\x1e\x01 \x01 \x00\x00\x1e\x05"))
	f.Add([]byte("\x00\x1e\x01\x1e\x00\x1e\x1e\x1e\x00\x00\x1e\x07"))
	f.Fuzz(func(t *testing.T, data []byte) {
		parts := strings.SplitN(string(data), "\x1e", numWordColumns)
		cols := make([]decoder, numWordColumns)
		for i, p := range parts {
			cols[i].b = []byte(p)
		}
		w, err := joinWords(cols)
		if err != nil {
			return
		}
		var dst []byte
		for range 1000 {
			if cols[colCounts].off >= len(cols[colCounts].b) || w.err != nil {
				break
			}
			dst = w.next(dst[:0])
		}
		_ = w.done()
	})
}
