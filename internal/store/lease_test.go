package store

import (
	"context"
	"strings"
	"testing"
)

// TestColumnReportsRowError: a query whose third row fails on the server yields two rows and then an error; the
// column helper behind the sweep, the orphan and the cancel scans returns that error instead of the two rows, so
// a scan cut short is never taken for the whole answer.
func TestColumnReportsRowError(t *testing.T) {
	failing := map[string]struct{ query, want string }{
		// SQLite computes rows as they are stepped: abs() of the smallest integer overflows on the third.
		"sqlite": {`WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < 5)
			SELECT CASE WHEN n < 3 THEN CAST(n AS TEXT) ELSE CAST(abs(-9223372036854775807 - (n - 2)) AS TEXT) END FROM g`, "integer overflow"},
		// PostgreSQL sends the first rows, then the error for the third.
		"postgres": {`SELECT (1 / (3 - n))::text FROM generate_series(1, 5) AS n`, "division by zero"},
	}
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			s, _ := open(t, b.url(t), Options{})
			good, err := s.column(context.Background(), `SELECT id FROM a2a_tasks WHERE owner = ?`, "nobody")
			if err != nil || len(good) != 0 {
				t.Fatalf("column on an empty table = %q, %v; want no rows, no error", good, err)
			}
			f := failing[b.name]
			got, err := s.column(context.Background(), f.query)
			if err == nil || !strings.Contains(err.Error(), f.want) {
				t.Fatalf("column = %q, %v; want an error containing %q", got, err, f.want)
			}
		})
	}
}
