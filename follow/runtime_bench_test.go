package follow

import (
	"bytes"
	"testing"
)

// BenchmarkRuntimeLook measures what the runtimes' recognisers cost a line
// that starts no report, the look every line of a log gets: its prefix cut
// and its first words tested. One op is one line.
func BenchmarkRuntimeLook(b *testing.B) {
	for _, sample := range []string{"unity_editor.log", "minecraft_latest.log", "godot.log", "generic.log", "luanti/debug.txt"} {
		b.Run(sample, func(b *testing.B) {
			var lines []string
			for _, l := range bytes.Split(readSample(b, sample), []byte("\n")) {
				lines = append(lines, string(l))
			}
			b.ReportAllocs()
			b.ResetTimer()
			starts := 0
			for i := 0; i < b.N; i++ {
				s := trimRight(lines[i%len(lines)])
				n, _ := cutPrefix(s)
				if k, _ := startOf(trimLeft(s[n:])); k != rtNone {
					starts++
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/line")
		})
	}
}
