package dag

import (
	"crypto/sha256"
	"maps"
	"sync"
)

// Source is a file a DAG's load read, as it read it.
type Source struct {
	Digest [sha256.Size]byte // SHA-256 of Data
	Data   []byte
}

// sourceSet records the files one load reads; the loader may read from several goroutines.
type sourceSet struct {
	mu    sync.Mutex
	files map[string]Source
}

func (s *sourceSet) add(path string, b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.files[path]; !ok {
		s.files[path] = Source{Digest: sha256.Sum256(b), Data: b}
	}
}

func (s *sourceSet) all() map[string]Source {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.files)
}

// recording returns opts whose ReadFile reads as opts would and records each file read in
// set: the sources of the DAG being loaded, at any depth, since a sub-DAG's loader reads
// through its parent's ReadFile.
func (opts LoadOptions) recording(set *sourceSet) LoadOptions {
	read := opts.read
	opts.ReadFile = func(path string) ([]byte, error) {
		b, err := read(path)
		if err == nil {
			set.add(path, b)
		}
		return b, err
	}
	return opts
}
