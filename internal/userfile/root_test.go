package userfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestRoot: a Root reads and resolves files under its directory, directly or through a
// symbolic link that stays inside, and refuses every way out: .., an absolute path elsewhere,
// a symbolic link to a file or a folder outside.
func TestRoot(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "root")
	for _, d := range []string{dir, filepath.Join(dir, "sub"), filepath.Join(base, "out")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "sub", "in.yaml"), "in")
	write(filepath.Join(base, "secret.yaml"), "secret")
	write(filepath.Join(base, "out", "x.yaml"), "secret")
	for old, link := range map[string]string{
		filepath.Join(base, "secret.yaml"):   filepath.Join(dir, "link-out.yaml"),
		filepath.Join(base, "out"):           filepath.Join(dir, "dir-out"),
		filepath.Join(dir, "sub", "in.yaml"): filepath.Join(dir, "link-in.yaml"),
	} {
		if err := os.Symlink(old, link); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("sub/in.yaml", filepath.Join(dir, "rel-link-in.yaml")); err != nil {
		t.Fatal(err)
	}
	r, err := OpenRoot(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		want string // the content, or "" when refused with err
		err  error
	}{
		{"sub/in.yaml", "in", nil},
		{filepath.Join(dir, "sub", "in.yaml"), "in", nil},
		{"link-in.yaml", "in", nil},
		{"rel-link-in.yaml", "in", nil},
		{"sub/../sub/in.yaml", "in", nil},
		{"../secret.yaml", "", ErrOutsideRoot},
		{"sub/../../secret.yaml", "", ErrOutsideRoot},
		{filepath.Join(base, "secret.yaml"), "", ErrOutsideRoot},
		{"link-out.yaml", "", ErrOutsideRoot},
		{"dir-out/x.yaml", "", ErrOutsideRoot},
		{"missing.yaml", "", fs.ErrNotExist},
	} {
		t.Run(tc.path, func(t *testing.T) {
			b, err := r.Read(tc.path)
			if !errors.Is(err, tc.err) || string(b) != tc.want {
				t.Errorf("Read: %q, %v; want %q, %v", b, err, tc.want, tc.err)
			}
			real, err := r.Resolve(tc.path)
			if !errors.Is(err, tc.err) || (err == nil && !r.Inside(real)) {
				t.Errorf("Resolve: %q, %v; want a path inside, %v", real, err, tc.err)
			}
		})
	}
}
