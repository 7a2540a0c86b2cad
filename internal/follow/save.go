package follow

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"os"
	"path/filepath"
	"strings"

	"github.com/a2acli/a2a/internal/output"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

// Saver is --save for a stream: the file content (raw parts) of every artifact goes to a file in dir as its chunks
// arrive, so the client holds none of it. At the end, each artifact that carried a file part is kept as one file
// (its chunks joined, named after its first file part or its id), the others are removed.
type Saver struct {
	w     io.Writer // where "saved …" is said
	dir   string
	files map[a2a.ArtifactID]*savedArtifact
	order []a2a.ArtifactID
	err   error // the first write error; sticky
}

type savedArtifact struct {
	tmp     *os.File
	name    string // the file name: the first file part's, else one from the artifact's name or id (fileName)
	hasFile bool
	n       int64
}

// NewSaver returns nil when dir is empty: no --save. It says what it saved on w.
func NewSaver(w io.Writer, dir string) *Saver {
	if dir == "" {
		return nil
	}
	return &Saver{w: w, dir: dir, files: map[a2a.ArtifactID]*savedArtifact{}}
}

// Wrap returns emit that first saves what ev carries.
func (s *Saver) Wrap(emit func(a2a.Event) error) func(a2a.Event) error {
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

func (s *Saver) observe(ev a2a.Event) error {
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
func (s *Saver) write(a *a2a.Artifact, restart bool) error {
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
		// File content goes to the file: raw parts, and the text chunks appended to an artifact that is a file (a
		// text file streamed as text). Data parts, and text beside a file part in the same chunk (a caption, a
		// summary), are printed, not saved, as a unary answer's are.
		if p == nil {
			continue
		}
		var b []byte
		switch c := p.Content.(type) {
		case a2a.Raw:
			b = c
			if !sa.hasFile {
				sa.hasFile, sa.name = true, fileName(a, p)
			}
		case a2a.Text:
			if !sa.hasFile || restart {
				continue
			}
			b = []byte(c)
		default:
			continue
		}
		n, err := sa.tmp.Write(b)
		sa.n += int64(n)
		if err != nil {
			return fmt.Errorf("--save: %w", err)
		}
	}
	return nil
}

// Finish keeps the artifacts that carried file parts, removes the rest and says what was saved on stderr. It also
// cleans up after a failed stream (failed set), keeping nothing.
func (s *Saver) Finish(failed bool) error {
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
		path, perr := place(sa.tmp.Name(), filepath.Join(s.dir, sa.name))
		if perr != nil {
			os.Remove(sa.tmp.Name()) //nolint:errcheck // a temporary file; nothing better to do if it stays
			err = fmt.Errorf("--save: %w", perr)
			continue
		}
		saved++
		fmt.Fprintf(s.w, "saved %s (%d bytes)\n", path, sa.n)
	}
	if err == nil && !failed && saved == 0 {
		fmt.Fprintln(s.w, "--save: no file parts to save")
	}
	return err
}

// SaveFiles writes the file parts of the task's artifacts (a unary answer) into dir and says where on w.
func SaveFiles(w io.Writer, dir string, artifacts []*a2a.Artifact) error {
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("--save: %w", err)
	}
	n := 0
	for _, a := range artifacts {
		for _, p := range a.Parts {
			raw := p.Raw()
			if raw == nil {
				continue
			}
			path, err := saveFile(dir, fileName(a, p), raw)
			if err != nil {
				return fmt.Errorf("--save: %w", err)
			}
			n++
			fmt.Fprintf(w, "saved %s (%d bytes)\n", output.Sanitize(path), len(raw))
		}
	}
	if n == 0 {
		fmt.Fprintln(w, "--save: no file parts to save")
	}
	return nil
}

// fileName names the file a file part of artifact a is saved as: the part's own file name, else the artifact's
// name, else its id, with an extension for the part's media type (place then keeps it from overwriting).
func fileName(a *a2a.Artifact, p *a2a.Part) string {
	if name := safeName(p.Filename); name != "" {
		return name
	}
	name := safeName(a.Name)
	if name == "" {
		name = safeName(string(a.ID))
	}
	if name == "" {
		name = "artifact"
	}
	ext := extension(p.MediaType)
	if strings.EqualFold(filepath.Ext(name), ext) {
		return name
	}
	return name + ext
}

// commonExtensions are the extensions people expect for common media types, where the system's table lists
// several (text/plain: .asc .txt …; image/jpeg: .jfif .jpe .jpeg .jpg) or none.
var commonExtensions = map[string]string{
	"text/plain": ".txt", "text/markdown": ".md", "text/html": ".html", "text/csv": ".csv",
	"application/json": ".json", "application/pdf": ".pdf", "application/zip": ".zip",
	"application/xml": ".xml", "text/xml": ".xml", "application/octet-stream": ".bin",
	"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp", "image/svg+xml": ".svg",
	"audio/mpeg": ".mp3", "audio/wav": ".wav", "video/mp4": ".mp4",
}

// extension is the file extension for a media type: the common one, else the first the system knows, else .bin.
func extension(mediaType string) string {
	mt, _, err := mime.ParseMediaType(mediaType)
	if err != nil {
		return ".bin"
	}
	if ext, ok := commonExtensions[mt]; ok {
		return ext
	}
	if exts, _ := mime.ExtensionsByType(mt); len(exts) > 0 {
		return exts[0]
	}
	return ".bin"
}

// safeName keeps a file name from an agent inside the target directory; "" when nothing of it is left.
func safeName(s string) string {
	s = filepath.Base(filepath.Clean("/" + s))
	if s == "/" {
		return ""
	}
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '/' || r == '\\' {
			return '_'
		}
		return r
	}, s)
	if s == "/" || s == "." || s == ".." {
		return ""
	}
	return s
}

// saveFile writes b to a new file in dir named name (or name-1, name-2, … when taken) and returns its path.
func saveFile(dir, name string, b []byte) (string, error) {
	tmp, err := os.CreateTemp(dir, ".a2a-save-*") // O_EXCL on a fresh name: never through a planted link
	if err != nil {
		return "", err
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	var path string
	if err == nil {
		path, err = place(tmp.Name(), filepath.Join(dir, name))
	}
	if err != nil {
		os.Remove(tmp.Name()) //nolint:errcheck // a temporary file; nothing better to do if it stays
		return "", err
	}
	return path, nil
}

// place gives the finished temporary file tmp its name: want, else the first of want-1, want-2, … that nothing in
// the directory holds. A name taken by anything, a symbolic link included (dangling or not), is never written
// through or replaced: the file is hard-linked to a name only if none exists (atomic), or, on a file system without
// hard links, renamed to a name found free.
func place(tmp, want string) (string, error) {
	ext := filepath.Ext(want)
	base := strings.TrimSuffix(want, ext)
	for i := 0; ; i++ {
		path := want
		if i > 0 {
			path = fmt.Sprintf("%s-%d%s", base, i, ext)
		}
		err := os.Link(tmp, path)
		if err == nil {
			os.Remove(tmp) //nolint:errcheck // the file has its name; a leftover temporary name is harmless
			return path, nil
		}
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if _, lerr := os.Lstat(path); lerr == nil {
			continue
		} else if !errors.Is(lerr, fs.ErrNotExist) {
			return "", err
		}
		if rerr := os.Rename(tmp, path); rerr != nil {
			return "", rerr
		}
		return path, nil
	}
}

// SaveFile writes one file part of artifact a into dir (made if missing) under the name --save gives it, never over
// a file there, and returns its path (a2a mcp --save).
func SaveFile(dir string, a *a2a.Artifact, p *a2a.Part) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return saveFile(dir, fileName(a, p), p.Raw())
}
