package tasks

import (
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
)

// streamParts applies a new artifact carrying first and then one append per chunk, as a --chunk run does.
func streamParts(s *Store, r *record, first string, chunks ...string) {
	info := a2a.TaskInfo{TaskID: r.task.ID, ContextID: r.task.ContextID}
	ev := a2a.NewArtifactEvent(info, a2a.NewTextPart(first))
	s.mu.Lock()
	defer s.mu.Unlock()
	s.applyLocked(r, ev)
	for _, c := range chunks {
		up := a2a.NewArtifactUpdateEvent(info, ev.Artifact.ID, a2a.NewTextPart(c))
		up.Append = true
		s.applyLocked(r, up)
	}
}

func TestArtifactBudget(t *testing.T) {
	t.Parallel()
	const o = partOverhead
	tests := []struct {
		name          string
		budget        int64
		first         string
		chunks        []string
		want          []string
		wantTruncated any // nil: no metadata entry
	}{
		// A budget counts the payload and partOverhead for each part and for the artifact.
		{"within budget", 10 + 4*o, "ab", []string{"cd", "ef"}, []string{"ab", "cd", "ef"}, nil},
		{"exactly at budget", 6 + 4*o, "ab", []string{"cd", "ef"}, []string{"ab", "cd", "ef"}, nil},
		{"oldest parts dropped", 5 + 3*o, "ab", []string{"cd", "ef", "gh"}, []string{"ef", "gh"}, int64(4)},
		{"overhead counted", 4 + 5*o, "a", []string{"b", "c", "d", "e", "f"}, []string{"c", "d", "e", "f"}, int64(2)},
		{"newest part kept when alone too big", 3 + 2*o, "ab", []string{"cdefgh"}, []string{"cdefgh"}, int64(2)},
		{"first part alone too big", 3 + 2*o, "abcdef", nil, []string{"abcdef"}, nil},
		{"no bound", -1, "ab", []string{strings.Repeat("x", 100)}, []string{"ab", strings.Repeat("x", 100)}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := NewStore(0, 0, nil)
			s.maxArtifactBytes = tt.budget
			r, err := s.insert(&a2a.Task{ID: "t", ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateWorking}})
			if err != nil {
				t.Fatal(err)
			}
			streamParts(s, r, tt.first, tt.chunks...)
			got, err := s.view("t", nil)
			if err != nil {
				t.Fatal(err)
			}
			var texts []string
			for _, p := range got.Artifacts[0].Parts {
				texts = append(texts, p.Text())
			}
			if diff := cmp.Diff(tt.want, texts); diff != "" {
				t.Errorf("stored parts mismatch (-want +got):\n%s", diff)
			}
			if got := got.Artifacts[0].Metadata[truncatedKey]; got != tt.wantTruncated {
				t.Errorf("metadata[%q] = %v, want %v", truncatedKey, got, tt.wantTruncated)
			}
			if want := artifactsSize(r.task.Artifacts); r.artBytes != want {
				t.Errorf("artBytes = %d, want %d (what the stored parts cost)", r.artBytes, want)
			}
		})
	}
}

// TestArtifactBudgetReplace checks the accounting when an artifact is replaced rather than appended to.
func TestArtifactBudgetReplace(t *testing.T) {
	t.Parallel()
	s := NewStore(0, 0, nil)
	s.maxArtifactBytes = 8 + 3*partOverhead
	r, err := s.insert(&a2a.Task{ID: "t", ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateWorking}})
	if err != nil {
		t.Fatal(err)
	}
	info := a2a.TaskInfo{TaskID: "t", ContextID: "c"}
	ev := a2a.NewArtifactEvent(info, a2a.NewTextPart("abcdef"))
	s.mu.Lock()
	s.applyLocked(r, ev)
	again := a2a.NewArtifactUpdateEvent(info, ev.Artifact.ID, a2a.NewTextPart("xy"))
	s.applyLocked(r, again) // not an append: replaces the artifact
	up := a2a.NewArtifactUpdateEvent(info, ev.Artifact.ID, a2a.NewTextPart("123456"))
	up.Append = true
	s.applyLocked(r, up)
	s.mu.Unlock()
	got, err := s.view("t", nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"xy", "123456"}, []string{got.Artifacts[0].Parts[0].Text(), got.Artifacts[0].Parts[1].Text()}); diff != "" {
		t.Errorf("parts mismatch (-want +got):\n%s", diff)
	}
	if r.artBytes != 8+3*partOverhead {
		t.Errorf("artBytes = %d, want %d", r.artBytes, 8+3*partOverhead)
	}
}

// TestArtifactCoalesce: past coalesceAfter parts, plain text chunks are joined into parts of about coalesceBlock
// bytes; the text is unchanged, parts with metadata stay apart, and no artifact keeps more than maxStoredParts.
func TestArtifactCoalesce(t *testing.T) {
	t.Parallel()
	s := NewStore(0, 0, nil)
	s.maxArtifactBytes = -1
	r, err := s.insert(&a2a.Task{ID: "t", ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateWorking}})
	if err != nil {
		t.Fatal(err)
	}
	chunks := make([]string, 100000)
	var want strings.Builder
	want.WriteString("first")
	for i := range chunks {
		chunks[i] = string(rune('a' + i%26))
		want.WriteString(chunks[i])
	}
	streamParts(s, r, "first", chunks...)
	got, err := s.view("t", nil)
	if err != nil {
		t.Fatal(err)
	}
	parts := got.Artifacts[0].Parts
	var text strings.Builder
	for _, p := range parts {
		text.WriteString(p.Text())
	}
	if text.String() != want.String() {
		t.Fatalf("the joined parts differ from the chunks (%d bytes, want %d)", text.Len(), want.Len())
	}
	if most := coalesceAfter + (len(chunks)-coalesceAfter)/coalesceBlock + 1; len(parts) > most {
		t.Errorf("%d parts kept, want at most %d", len(parts), most)
	}
	if parts[1].Text() != "a" || parts[coalesceAfter-2].Text() != chunks[coalesceAfter-3] {
		t.Errorf("the parts before the %dth are not kept as they came", coalesceAfter)
	}

	// Parts that cannot be joined: the oldest go past maxStoredParts, counted like the byte budget's.
	info := a2a.TaskInfo{TaskID: "t", ContextID: "c"}
	s.mu.Lock()
	for range maxStoredParts {
		p := a2a.NewTextPart("m")
		p.Metadata = map[string]any{"k": 1}
		up := a2a.NewArtifactUpdateEvent(info, got.Artifacts[0].ID, p)
		up.Append = true
		s.applyLocked(r, up)
	}
	s.mu.Unlock()
	got, err = s.view("t", nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(got.Artifacts[0].Parts); n != maxStoredParts {
		t.Errorf("%d parts kept, want %d", n, maxStoredParts)
	}
	if got.Artifacts[0].Metadata[truncatedKey] == nil {
		t.Error("no count of the dropped bytes")
	}
	if want := artifactsSize(r.task.Artifacts); r.artBytes != want {
		t.Errorf("artBytes = %d, want %d (what the stored parts cost)", r.artBytes, want)
	}
}
