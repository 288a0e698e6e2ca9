package touch

import "testing"

// BenchmarkAssemble is the cost per record of parsing, reassembly and
// Event for the captured agent's records (PROCTITLE skipped unparsed, as
// in a run).
func BenchmarkAssemble(b *testing.B) {
	_, _, recs := capturedLog(b)
	data := make([][]byte, len(recs))
	for i, r := range recs {
		data[i] = []byte(r.Data)
	}
	events := 0
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		a := NewAssembler(func(Event) { events++ })
		for i, r := range recs {
			_ = a.Push(r.Type, data[i])
		}
		a.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(recs)), "ns/record")
	b.ReportMetric(float64(b.N*len(recs))/b.Elapsed().Seconds(), "records/s")
}
