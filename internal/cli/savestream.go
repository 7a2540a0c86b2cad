package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// streamSaver is --save for a stream: the content of every artifact goes to a file in dir as its chunks arrive, so
// the client holds none of it. At the end, each artifact that carried a file part is kept as one file (its chunks
// joined, named after its first file part or its id), the others are removed.
type streamSaver struct {
	f     *factory
	dir   string
	files map[a2a.ArtifactID]*savedArtifact
	order []a2a.ArtifactID
	err   error // the first write error; sticky
}

type savedArtifact struct {
	tmp     *os.File
	name    string // the first file part's name
	hasFile bool
	n       int64
}

// newStreamSaver returns nil when dir is empty: no --save.
func newStreamSaver(f *factory, dir string) *streamSaver {
	if dir == "" {
		return nil
	}
	return &streamSaver{f: f, dir: dir, files: map[a2a.ArtifactID]*savedArtifact{}}
}

// wrap returns emit that first saves what ev carries.
func (s *streamSaver) wrap(emit func(a2a.Event) error) func(a2a.Event) error {
	if s == nil {
		return emit
	}
	return func(ev a2a.Event) error {
		if err := s.observe(ev); err != nil {
			return err
		}
		return emit(ev)
	}
}

func (s *streamSaver) observe(ev a2a.Event) error {
	if s.err != nil {
		return s.err
	}
	switch v := ev.(type) {
	case *a2a.TaskArtifactUpdateEvent:
		if v.Artifact != nil {
			s.err = s.write(v.Artifact, !v.Append)
		}
	case *a2a.Task:
		for _, a := range v.Artifacts { // a snapshot: only artifacts the stream has not carried
			if _, ok := s.files[a.ID]; a != nil && !ok {
				if s.err = s.write(a, true); s.err != nil {
					break
				}
			}
		}
	}
	return s.err
}

// write appends the bytes of a's parts to its file, starting it over when restart is set.
func (s *streamSaver) write(a *a2a.Artifact, restart bool) error {
	sa, ok := s.files[a.ID]
	if !ok {
		if err := os.MkdirAll(s.dir, 0o755); err != nil {
			return fmt.Errorf("--save: %w", err)
		}
		tmp, err := os.CreateTemp(s.dir, ".a2a-save-*")
		if err != nil {
			return fmt.Errorf("--save: %w", err)
		}
		sa = &savedArtifact{tmp: tmp}
		s.files[a.ID] = sa
		s.order = append(s.order, a.ID)
	} else if restart {
		if err := sa.tmp.Truncate(0); err != nil {
			return fmt.Errorf("--save: %w", err)
		}
		if _, err := sa.tmp.Seek(0, 0); err != nil {
			return fmt.Errorf("--save: %w", err)
		}
		sa.n = 0
	}
	for _, p := range a.Parts {
		if p == nil {
			continue
		}
		var b []byte
		switch c := p.Content.(type) {
		case a2a.Text:
			b = []byte(c)
		case a2a.Raw:
			b = c
			if !sa.hasFile {
				sa.hasFile, sa.name = true, safeName(p.Filename)
			}
		case a2a.Data:
			line, err := json.Marshal(c.Value)
			if err != nil {
				return fmt.Errorf("--save: encode data part: %w", err)
			}
			b = append(line, '\n')
		}
		n, err := sa.tmp.Write(b)
		sa.n += int64(n)
		if err != nil {
			return fmt.Errorf("--save: %w", err)
		}
	}
	return nil
}

// finish keeps the artifacts that carried file parts, removes the rest and says what was saved on stderr. It also
// cleans up after a failed stream (failed set), keeping nothing.
func (s *streamSaver) finish(failed bool) error {
	if s == nil {
		return nil
	}
	err := s.err
	saved := 0
	for _, id := range s.order {
		sa := s.files[id]
		cerr := sa.tmp.Close()
		if failed || err != nil || cerr != nil || !sa.hasFile {
			os.Remove(sa.tmp.Name()) //nolint:errcheck // a temporary file; nothing better to do if it stays
			err = errors.Join(err, cerr)
			continue
		}
		name := sa.name
		if name == "" {
			name = safeName(string(id)) + ".bin"
		}
		path := uniquePath(filepath.Join(s.dir, name))
		if rerr := os.Rename(sa.tmp.Name(), path); rerr != nil {
			err = fmt.Errorf("--save: %w", rerr)
			continue
		}
		saved++
		fmt.Fprintf(s.f.io.Err, "saved %s (%d bytes)\n", path, sa.n)
	}
	if err == nil && !failed && saved == 0 {
		fmt.Fprintln(s.f.io.Err, "--save: no file parts to save")
	}
	return err
}
