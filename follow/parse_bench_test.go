package follow

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// BenchmarkParse feeds each parser its sample, line after line, round and
// round: one op is one line (ns/op is ns/line). The follower must keep up
// with 50,000 lines/s, 20 µs a line. "+markers" runs the parser inside the
// marker detection the follower wraps every parser in.
func BenchmarkParse(b *testing.B) {
	for _, tc := range []struct{ parser, sample string }{
		{"unity", "unity_editor.log"}, {"log4j", "minecraft_latest.log"},
		{"godot", "godot.log"}, {"generic", "generic.log"}, {"auto", "minecraft_latest.log"},
		{"unity+markers", "unity_editor.log"}, {"log4j+markers", "minecraft_latest.log"},
		{"unity/player", "unity/player-2019.4-mod-errors.log"}, {"unity/player+markers", "unity/player-2019.4-mod-errors.log"},
		{"godot/godot3_file", "godot/godot3_file.log"}, {"luanti", "luanti/debug.txt"}, {"luanti+markers", "luanti/debug.txt"},
		{"rust", "rust/tracing.log"}, {"generic/love", "love/error_update.txt"}, {"json", "json/zap.jsonl"},
		// The engines' parsers alone, without the runtimes' recognisers in
		// front of them (runtime.go): what reading beneath any prefix costs.
		{"unity+bare", "unity_editor.log"}, {"log4j+bare", "minecraft_latest.log"}, {"godot+bare", "godot.log"},
		{"generic+bare", "generic.log"}, {"luanti+bare", "luanti/debug.txt"},
	} {
		b.Run(tc.parser, func(b *testing.B) {
			data := readSample(b, tc.sample)
			var lines []string
			var ends []int64
			var off int64
			for _, l := range bytes.SplitAfter(data, []byte("\n")) {
				if len(l) > 0 {
					off += int64(len(l))
					lines = append(lines, string(bytes.TrimSuffix(l, []byte("\n"))))
					ends = append(ends, off)
				}
			}
			name, marked := strings.CutSuffix(tc.parser, "+markers")
			name, bare := strings.CutSuffix(name, "+bare")
			name, _, _ = strings.Cut(name, "/")
			p, err := newParser(name, func() time.Time { return fileDate }, func() time.Time { return testNow })
			if err != nil {
				b.Fatal(err)
			}
			if bare {
				p = p.(*runtimeLayer).p
			}
			if marked {
				p = withMarkers(p)
			}
			b.SetBytes(int64(len(data) / len(lines)))
			b.ReportAllocs()
			b.ResetTimer()
			entries := 0
			for i := 0; i < b.N; i++ {
				j := i % len(lines)
				entries += len(p.Line(lines[j], ends[j]+int64(i/len(lines))*off))
			}
			entries += len(p.Flush())
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/line")
			if entries == 0 && b.N > len(lines) {
				b.Fatal("no entries")
			}
		})
	}
}
