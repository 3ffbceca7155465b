package runs

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seam-dag/seam/internal/pgtest"
)

// backend is one implementation of Store the suite runs against.
type backend struct {
	name string
	// open opens a new, empty store, closed at the end of the test, and returns its location.
	open func(t testing.TB) (Store, string)
}

// backends returns every implementation of Store: the suite (every test that runs through
// eachBackend) is the contract each one keeps.
func backends() []backend {
	return []backend{
		{"sqlite", func(t testing.TB) (Store, string) { return openTemp(t) }},
		{"postgres", openTempPostgres},
	}
}

// eachBackend runs test once per backend, as a subtest named after it.
func eachBackend(t *testing.T, test func(t *testing.T, b backend)) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) { test(t, b) })
	}
}

// openTemp opens a new SQLite store in a temp folder.
func openTemp(t testing.TB) (*sqliteStore, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), ".seam", "seam.db")
	s, err := openSQLite(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

// openTempPostgres opens a new PostgreSQL store in a database of its own.
func openTempPostgres(t testing.TB) (Store, string) {
	t.Helper()
	dsn := pgtest.Database(t)
	s, err := Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, dsn
}

// count runs a query that counts, written with ? placeholders, on either backend.
func count(t *testing.T, s Store, query string, args ...any) int {
	t.Helper()
	var n int
	var err error
	switch s := s.(type) {
	case *sqliteStore:
		err = s.db.QueryRow(query, args...).Scan(&n)
	case *pgStore:
		for i := range args {
			query = strings.Replace(query, "?", fmt.Sprintf("$%d", i+1), 1)
		}
		err = s.pool.QueryRow(context.Background(), query, args...).Scan(&n)
	default:
		t.Fatalf("count: unknown store %T", s)
	}
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}
