package tasks

import (
	"errors"
	"sync"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// The slots are counted per task and in all, refused past either bound, and given back to zero however the takes
// and gives interleave (the count of a task with no open subscription is dropped, so the map does not grow).
func TestSubLimitsBalance(t *testing.T) {
	l := newSubLimits(2, 3)
	if err := l.take("a"); err != nil {
		t.Fatal(err)
	}
	if err := l.take("a"); err != nil {
		t.Fatal(err)
	}
	if err := l.take("a"); !errors.Is(err, a2a.ErrUnsupportedOperation) {
		t.Fatalf("a third on one task: %v, want UnsupportedOperationError", err)
	}
	if err := l.take("b"); err != nil {
		t.Fatal(err)
	}
	if err := l.take("c"); !errors.Is(err, a2a.ErrUnsupportedOperation) {
		t.Fatalf("a fourth in all: %v, want UnsupportedOperationError", err)
	}
	if total, onA := l.open("a"); total != 3 || onA != 2 {
		t.Fatalf("open = %d, %d on a; want 3, 2", total, onA)
	}
	l.give("a")
	l.give("a")
	l.give("b")

	l = newSubLimits(1000, 1000)
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			id := a2a.TaskID(string(rune('a' + i%5)))
			for range 100 {
				if l.take(id) == nil {
					l.give(id)
				}
			}
		})
	}
	wg.Wait()
	if total, onA := l.open("a"); total != 0 || onA != 0 || len(l.byTask) != 0 {
		t.Fatalf("after every give: open = %d, %d on a, %d tasks counted; want none", total, onA, len(l.byTask))
	}
}
