package exec

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// Run starts c, passes each chunk of its stdout (split as by [NewChunker] with delim and max, each chunk ending
// with its delimiter as with [Chunker.KeepDelimiters], so the chunks joined are stdout) to onChunk as soon as
// it arrives, and waits for the process. If onChunk returns an error, or reading stdout fails, the
// process group is stopped and that error is returned along with the Result. The chunk passed to onChunk is
// valid only during the call.
func Run(ctx context.Context, c Cmd, delim []byte, max int, onChunk func([]byte) error) (Result, error) {
	p, err := Start(ctx, c)
	if err != nil {
		return Result{}, err
	}
	var runErr error
	ch := NewChunker(p.Stdout(), delim, max).KeepDelimiters()
	for {
		chunk, err := ch.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			runErr = fmt.Errorf("read stdout: %w", err)
		} else {
			runErr = onChunk(chunk)
		}
		if runErr != nil {
			p.Stop()
			break
		}
	}
	res, err := p.Wait()
	if runErr != nil {
		return res, runErr
	}
	return res, err
}
