package temporal

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/seam-dag/seam/dag"
	"github.com/seam-dag/seam/internal/i18n"
)

// MaxBundle caps a bundle's files, together, in bytes: the bundle is part of the workflow's
// input, which Temporal caps at 2 MB per payload.
const MaxBundle = 1 << 20

// Bundle is a DAG as it travels to the workers: the DAG file, every file its loading read
// (schema files, sub-DAG files) and the files its exec nodes run (shipper), by their paths
// relative to the folder that holds them all, so that workers need no copy of the repository.
type Bundle struct {
	Main  string            `json:"main"`  // the DAG file's path in Files
	Files map[string][]byte `json:"files"` // by slash-separated relative path
	// Exec are the files of Files written executable, as they were on the client.
	Exec []string `json:"exec,omitempty"`
	// Dirs are the folders exec nodes run in (their dir), written even when empty.
	Dirs []string `json:"dirs,omitempty"`
	// Root is the client's folder that the paths of Files are relative to: a DAG that names
	// a file by its absolute path (a sub-DAG, a schema) finds it in Files under Root.
	Root string `json:"root,omitempty"`
	Hash string `json:"hash"` // hex SHA-256 of the paths and contents
}

// NewBundle bundles the loaded DAG d: the files its load read (d.Sources: its schema files
// and its sub-DAG files at any depth, as they were loaded, not read again) and the files the
// exec nodes of d and of its sub-DAGs run (shipper), each of those at most maxFile bytes
// (0: userfile.DefaultMaxSize). A file it cannot ship, or a bundle over MaxBundle, is
// refused in lang.
func NewBundle(d *dag.DAG, lang i18n.Lang, maxFile int64) (*Bundle, error) {
	s := &shipper{lang: lang, maxFile: maxFile, files: map[string]*shipped{}, dirs: map[string]bool{}}
	for p, src := range d.Sources {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, fmt.Errorf("bundle %s: %w", d.File, err)
		}
		s.add(abs, src.Data, false)
	}
	if s.total > MaxBundle {
		return nil, i18n.Errorf(lang, "bundle %s: its files hold %d bytes, more than the %d a bundle may (docs/limits.md)", d.File, s.total, MaxBundle)
	}
	main, err := filepath.Abs(d.File)
	if err != nil {
		return nil, fmt.Errorf("bundle %s: %w", d.File, err)
	}
	s.top = filepath.Dir(main)
	if err := s.ship(d); err != nil {
		return nil, err
	}
	root := filepath.Dir(main)
	for p := range s.files {
		for !within(root, p) {
			root = filepath.Dir(root)
		}
	}
	rel := func(p string) string {
		r, _ := filepath.Rel(root, p) // p is within root
		return filepath.ToSlash(r)
	}
	b := &Bundle{Files: make(map[string][]byte, len(s.files)), Root: root, Main: rel(main)}
	for p, f := range s.files {
		b.Files[rel(p)] = f.data
		if f.exec {
			b.Exec = append(b.Exec, rel(p))
		}
	}
	for p := range s.dirs {
		b.Dirs = append(b.Dirs, rel(p))
	}
	slices.Sort(b.Exec)
	slices.Sort(b.Dirs)
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
	// Only when set, so that the bundles in histories recorded before them hash the same.
	for _, n := range b.Exec {
		fmt.Fprintf(h, "\x00exec\x00%s", n)
	}
	for _, n := range b.Dirs {
		fmt.Fprintf(h, "\x00dir\x00%s", n)
	}
	if b.Root != "" {
		fmt.Fprintf(h, "\x00root\x00%s", b.Root)
	}
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
	for _, names := range [][]string{slices.Collect(maps.Keys(b.Files)), b.Exec, b.Dirs} {
		for _, n := range names {
			if !filepath.IsLocal(filepath.FromSlash(n)) {
				return fmt.Errorf("bundle %s: path %s leaves the bundle", b.Hash, n)
			}
		}
	}
	if got := b.hash(); got != b.Hash {
		return fmt.Errorf("bundle %s: its files hash to %s", b.Hash, got)
	}
	return nil
}

// Load loads the bundle's DAG with load (a workspace's LoadWith) as if its files were under
// dir, reading them from the bundle.
func (b *Bundle) Load(ctx context.Context, dir string, load func(ctx context.Context, path string, src []byte, read func(string) ([]byte, error)) (*dag.DAG, error)) (*dag.DAG, error) {
	read := func(p string) ([]byte, error) {
		if rel, err := filepath.Rel(dir, p); err == nil {
			if data, ok := b.Files[filepath.ToSlash(rel)]; ok {
				return data, nil
			}
		}
		if n := b.rooted(p); n != "" {
			return b.Files[n], nil
		}
		return nil, fmt.Errorf("bundle %s: no file %s", b.Hash, p)
	}
	return load(ctx, filepath.Join(dir, filepath.FromSlash(b.Main)), b.Files[b.Main], read)
}

// rooted is the name in Files of the file a DAG names by its absolute path p on the client,
// or "" when the bundle has none.
func (b *Bundle) rooted(p string) string {
	if b.Root == "" || !filepath.IsAbs(p) {
		return ""
	}
	rel, err := filepath.Rel(b.Root, p)
	if err != nil || !filepath.IsLocal(rel) {
		return ""
	}
	if _, ok := b.Files[filepath.ToSlash(rel)]; !ok {
		return ""
	}
	return filepath.ToSlash(rel)
}

// Write puts the bundle's files under dir (made if need be), once: a folder that holds them
// already is left as it is. Scripts keep their executable bit.
func (b *Bundle) Write(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, ".complete")); err == nil {
		return nil
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".bundle-*")
	if err != nil {
		return fmt.Errorf("write bundle %s: %w", b.Hash, err)
	}
	defer os.RemoveAll(tmp)
	for _, n := range b.Dirs {
		if err := os.MkdirAll(filepath.Join(tmp, filepath.FromSlash(n)), 0o755); err != nil {
			return fmt.Errorf("write bundle %s: %w", b.Hash, err)
		}
	}
	for n, data := range b.Files {
		p := filepath.Join(tmp, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("write bundle %s: %w", b.Hash, err)
		}
		mode := os.FileMode(0o644)
		if slices.Contains(b.Exec, n) {
			mode = 0o755
		}
		if err := os.WriteFile(p, data, mode); err != nil {
			return fmt.Errorf("write bundle %s: %w", b.Hash, err)
		}
	}
	if err := os.WriteFile(filepath.Join(tmp, ".complete"), nil, 0o644); err != nil {
		return fmt.Errorf("write bundle %s: %w", b.Hash, err)
	}
	// Another attempt may have written it meanwhile: then its copy stays.
	if err := os.Rename(tmp, dir); err != nil && !errors.Is(err, os.ErrExist) {
		if _, serr := os.Stat(filepath.Join(dir, ".complete")); serr != nil {
			return fmt.Errorf("write bundle %s: %w", b.Hash, err)
		}
	}
	return nil
}
