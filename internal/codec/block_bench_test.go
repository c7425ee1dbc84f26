package codec_test

import (
	"testing"

	"github.com/mcplogd/mcplogd/internal/codec"
	"github.com/mcplogd/mcplogd/internal/workload"
	"github.com/mcplogd/mcplogd/oplog"
)

// BenchmarkAppendBlock seals blocks of workload records with each codec
// and expands them: the CPU a commit spends compressing and a read
// spends on a block, per expanded byte (MB/s) and as stored bytes per
// record.
func BenchmarkAppendBlock(b *testing.B) {
	for _, w := range []struct {
		name string
		gen  *workload.Generator
	}{{"game", workload.New(1)}, {"words", workload.NewWords(1)}} {
		ids, vals, size := generatedBlock(w.gen)
		for _, c := range []struct {
			name string
			fast bool
		}{{"zstd", false}, {"s2", true}} {
			v, err := codec.AppendBlock(nil, 1, ids, vals, c.fast)
			if err != nil {
				b.Fatal(err)
			}
			b.Run("workload="+w.name+"/codec="+c.name+"/op=seal", func(b *testing.B) {
				b.SetBytes(int64(size))
				var dst []byte
				for b.Loop() {
					dst, _ = codec.AppendBlock(dst[:0], 1, ids, vals, c.fast)
				}
				b.ReportMetric(float64(len(v))/float64(len(ids)), "B/record")
			})
			b.Run("workload="+w.name+"/codec="+c.name+"/op=expand", func(b *testing.B) {
				b.SetBytes(int64(size))
				for b.Loop() {
					if _, err := codec.DecodeBlock(v); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// workloadBlock returns a block's worth of benchmark-workload records (seed
// 1, IDs from 1): their IDs, values and the values' bytes.
func workloadBlock() (ids []uint64, vals [][]byte, size int) {
	return generatedBlock(workload.New(1))
}

// generatedBlock returns a block's worth of g's records, IDs from 1.
func generatedBlock(g *workload.Generator) (ids []uint64, vals [][]byte, size int) {
	recs := make([]oplog.Record, 4000) // more than a block takes
	g.Fill(recs)
	for i := range recs {
		v := codec.Append(nil, &recs[i])
		if size+len(v) > codec.BlockTarget {
			break
		}
		ids, vals, size = append(ids, uint64(i+1)), append(vals, v), size+len(v)
	}
	return ids, vals, size
}
