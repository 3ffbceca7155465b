package contract

import (
	"crypto/sha256"
	"fmt"
	"sync"
)

// FileCache keeps schema files compiled across Compilers, so that a contract file that many
// DAG loads name (a vendored webhook schema of 630 KB) is compiled once per process, not once
// per load. An entry is keyed by the file's absolute path and the options that change what
// it compiles to, and holds the SHA-256 of every file its compile read (the file, those it
// $refs, a catalog's). A Compiler given the cache (Options.Files) reads those files again
// through its own reader, so that confinement and what a load records of its sources are as
// a compile's: when every digest matches it takes the compiled schema, else it compiles the
// file afresh in a Compiler of the entry's own and replaces the entry. The zero FileCache is
// empty and ready; it is safe for concurrent use.
type FileCache struct {
	mu      sync.Mutex
	entries map[fileKey]*fileEntry
}

// fileKey is what a compiled file depends on besides the bytes it read.
type fileKey struct {
	path, root, catalog string
	annotate, content   bool
}

type fileEntry struct {
	schema *Schema
	reads  []fileRead // in the order the compile read them
}

type fileRead struct {
	path string
	sum  [sha256.Size]byte
}

// file returns the schema file at abs (named path in errors) compiled as c would compile it.
func (fc *FileCache) file(c *Compiler, path, abs string) (*Schema, error) {
	key := fileKey{path: abs, root: c.root, catalog: fmt.Sprint(c.opts.Catalog),
		annotate: c.annotateFormat, content: c.opts.AssertContent}
	fc.mu.Lock()
	e := fc.entries[key]
	fc.mu.Unlock()
	if e != nil && e.unchanged(c) {
		return e.schema, nil
	}
	// Compiled outside the lock: two loads of one new file may both compile it, and the
	// later entry wins; neither waits for the other.
	var reads []fileRead
	opts := c.opts
	opts.Standard, opts.Files = nil, nil
	opts.ReadFile = func(p string) ([]byte, error) {
		b, err := c.readFile(p)
		if err == nil {
			reads = append(reads, fileRead{path: p, sum: sha256.Sum256(b)})
		}
		return b, err
	}
	own, err := NewCompiler(opts)
	if err != nil {
		return nil, err
	}
	s, err := own.File(path)
	if err != nil {
		return nil, err // not kept: a load of the broken file reports it afresh
	}
	fc.mu.Lock()
	if fc.entries == nil {
		fc.entries = map[fileKey]*fileEntry{}
	}
	fc.entries[key] = &fileEntry{schema: s, reads: reads}
	fc.mu.Unlock()
	return s, nil
}

// unchanged reads every file e's compile read, through c, and reports whether each still
// holds what it held then.
func (e *fileEntry) unchanged(c *Compiler) bool {
	for _, r := range e.reads {
		if c.confined(r.path) != nil {
			return false
		}
		b, err := c.readFile(r.path)
		if err != nil || sha256.Sum256(b) != r.sum {
			return false
		}
	}
	return true
}
