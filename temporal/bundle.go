package temporal

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/userfile"
)

// MaxBundle caps a bundle's files, together, in bytes: the bundle is part of the workflow's
// input, which Temporal caps at 2 MB per payload.
const MaxBundle = 1 << 20

// Bundle is a DAG as it travels to the workers: the DAG file and every file its loading read
// (schema files, sub-DAG files), by their paths relative to the folder that holds them all, so
// that workers need no copy of the repository.
type Bundle struct {
	Main  string            `json:"main"`  // the DAG file's path in Files
	Files map[string][]byte `json:"files"` // by slash-separated relative path
	Hash  string            `json:"hash"`  // hex SHA-256 of the paths and contents
}

// NewBundle loads the DAG file at path with opts, recording each file the load reads, and
// bundles them.
func NewBundle(ctx context.Context, path string, opts dag.LoadOptions) (*Bundle, error) {
	read := map[string][]byte{}
	var mu sync.Mutex
	total := 0
	opts.ReadFile = func(p string) ([]byte, error) {
		b, err := userfile.Read(p, opts.MaxFileSize)
		if err != nil {
			return nil, err
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		mu.Lock()
		defer mu.Unlock()
		if _, ok := read[abs]; !ok {
			total += len(b)
			read[abs] = b
		}
		return b, nil
	}
	if _, err := dag.Load(ctx, path, opts); err != nil {
		return nil, err
	}
	if total > MaxBundle {
		return nil, fmt.Errorf("bundle %s: its files hold %d bytes, more than the %d a bundle may", path, total, MaxBundle)
	}
	main, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("bundle %s: %w", path, err)
	}
	root := filepath.Dir(main)
	for p := range read {
		for !within(root, p) {
			root = filepath.Dir(root)
		}
	}
	b := &Bundle{Files: make(map[string][]byte, len(read))}
	for p, data := range read {
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return nil, fmt.Errorf("bundle %s: %w", path, err)
		}
		b.Files[filepath.ToSlash(rel)] = data
	}
	rel, _ := filepath.Rel(root, main) // main is within root
	b.Main = filepath.ToSlash(rel)
	b.Hash = b.hash()
	return b, nil
}

// within reports whether p is root or under it.
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func (b *Bundle) hash() string {
	h := sha256.New()
	names := make([]string, 0, len(b.Files))
	for n := range b.Files {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		fmt.Fprintf(h, "%s\x00%d\x00", n, len(b.Files[n]))
		h.Write(b.Files[n])
	}
	fmt.Fprintf(h, "main\x00%s", b.Main)
	return hex.EncodeToString(h.Sum(nil))
}

// Check says what is wrong with a bundle that came over the wire, if anything.
func (b *Bundle) Check() error {
	if b == nil || b.Files == nil {
		return errors.New("no bundle")
	}
	if _, ok := b.Files[b.Main]; !ok {
		return fmt.Errorf("bundle %s: no file %s", b.Hash, b.Main)
	}
	for n := range b.Files {
		if !filepath.IsLocal(filepath.FromSlash(n)) {
			return fmt.Errorf("bundle %s: path %s leaves the bundle", b.Hash, n)
		}
	}
	if got := b.hash(); got != b.Hash {
		return fmt.Errorf("bundle %s: its files hash to %s", b.Hash, got)
	}
	return nil
}

// Load loads the bundle's DAG as if its files were under dir, reading them from the bundle.
func (b *Bundle) Load(ctx context.Context, dir string, opts dag.LoadOptions) (*dag.DAG, error) {
	opts.ReadFile = func(p string) ([]byte, error) {
		rel, err := filepath.Rel(dir, p)
		if err == nil {
			if data, ok := b.Files[filepath.ToSlash(rel)]; ok {
				return data, nil
			}
		}
		return nil, fmt.Errorf("bundle %s: no file %s", b.Hash, p)
	}
	return dag.Load(ctx, filepath.Join(dir, filepath.FromSlash(b.Main)), opts)
}

// Write puts the bundle's files under dir (made if need be), once: a folder that holds them
// already is left as it is. It returns the DAG file's path there.
func (b *Bundle) Write(dir string) (string, error) {
	main := filepath.Join(dir, filepath.FromSlash(b.Main))
	if _, err := os.Stat(filepath.Join(dir, ".complete")); err == nil {
		return main, nil
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".bundle-*")
	if err != nil {
		return "", fmt.Errorf("write bundle %s: %w", b.Hash, err)
	}
	defer os.RemoveAll(tmp)
	for n, data := range b.Files {
		p := filepath.Join(tmp, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", fmt.Errorf("write bundle %s: %w", b.Hash, err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return "", fmt.Errorf("write bundle %s: %w", b.Hash, err)
		}
	}
	if err := os.WriteFile(filepath.Join(tmp, ".complete"), nil, 0o644); err != nil {
		return "", fmt.Errorf("write bundle %s: %w", b.Hash, err)
	}
	// Another attempt may have written it meanwhile: then its copy stays.
	if err := os.Rename(tmp, dir); err != nil && !errors.Is(err, os.ErrExist) {
		if _, serr := os.Stat(filepath.Join(dir, ".complete")); serr != nil {
			return "", fmt.Errorf("write bundle %s: %w", b.Hash, err)
		}
	}
	return main, nil
}
