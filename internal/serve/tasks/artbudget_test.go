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
	tests := []struct {
		name          string
		budget        int64
		first         string
		chunks        []string
		want          []string
		wantTruncated any // nil: no metadata entry
	}{
		{"within budget", 10, "ab", []string{"cd", "ef"}, []string{"ab", "cd", "ef"}, nil},
		{"exactly at budget", 6, "ab", []string{"cd", "ef"}, []string{"ab", "cd", "ef"}, nil},
		{"oldest parts dropped", 5, "ab", []string{"cd", "ef", "gh"}, []string{"ef", "gh"}, int64(4)},
		{"newest part kept when alone too big", 3, "ab", []string{"cdefgh"}, []string{"cdefgh"}, int64(2)},
		{"first part alone too big", 3, "abcdef", nil, []string{"abcdef"}, nil},
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
			if want := partsSize(r.task.Artifacts[0].Parts); r.artBytes != want {
				t.Errorf("artBytes = %d, want %d (the stored parts)", r.artBytes, want)
			}
		})
	}
}

// TestArtifactBudgetReplace checks the accounting when an artifact is replaced rather than appended to.
func TestArtifactBudgetReplace(t *testing.T) {
	t.Parallel()
	s := NewStore(0, 0, nil)
	s.maxArtifactBytes = 8
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
	if r.artBytes != 8 {
		t.Errorf("artBytes = %d, want 8", r.artBytes)
	}
}
