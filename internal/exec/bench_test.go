package exec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// BenchmarkChunker measures splitting alone: 100,000 short lines, and 50 MB of 1 KiB lines.
func BenchmarkChunker(b *testing.B) {
	var short bytes.Buffer
	for i := range 100_000 {
		fmt.Fprintf(&short, "line %d\n", i)
	}
	long := bytes.Repeat([]byte(strings.Repeat("x", 1023)+"\n"), 50<<20/1024)
	for _, bc := range []struct {
		name string
		data []byte
	}{{"100k-short-lines", short.Bytes()}, {"50MB-1KiB-lines", long}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.data)))
			b.ReportAllocs()
			chunks := 0
			for b.Loop() {
				c := NewChunker(bytes.NewReader(bc.data), []byte("\n"), 0)
				for {
					if _, err := c.Next(); err != nil {
						if !errors.Is(err, io.EOF) {
							b.Fatal(err)
						}
						break
					}
					chunks++
				}
			}
			b.ReportMetric(float64(chunks)/b.Elapsed().Seconds(), "chunks/s")
		})
	}
}

// BenchmarkRun measures the whole path through a real process and pipe.
func BenchmarkRun(b *testing.B) {
	for _, bc := range []struct{ name, command string }{
		{"100k-short-lines", "seq 100000"},
		{"50MB-1KiB-lines", `yes "$(head -c 1023 /dev/zero | tr '\0' x)" | head -c 52428800`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			chunks, size := 0, 0
			for b.Loop() {
				_, err := Run(context.Background(), Cmd{Command: bc.command}, []byte("\n"), 0, func(c []byte) error {
					chunks++
					size += len(c) + 1
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(chunks)/b.Elapsed().Seconds(), "chunks/s")
			b.ReportMetric(float64(size)/1e6/b.Elapsed().Seconds(), "MB/s")
		})
	}
}
