package userfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/seam-dag/seam/internal/i18n"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	regular := filepath.Join(dir, "ok.yaml")
	if err := os.WriteFile(regular, []byte("a: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "pipe.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 20<<20); err != nil { // sparse: no 20 MiB written
		t.Fatal(err)
	}
	tests := []struct {
		name, path string
		limit      int64
		want       string // the error; "" reads the file
	}{
		{"regular", regular, 0, ""},
		{"at the limit", regular, 5, ""},
		{"named pipe", fifo, 0, fifo + ": not a regular file (a named pipe)"},
		{"device", "/dev/zero", 0, "/dev/zero: not a regular file (a character device)"},
		{"directory", dir, 0, dir + ": not a regular file (a directory)"},
		{"over the default limit", big, 0, big + ": 20.0 MiB is over the 16 MiB limit (SEAM_MAX_FILE_SIZE)"},
		{"over a limit", regular, 4, regular + ": 5 bytes is over the 4 bytes limit (SEAM_MAX_FILE_SIZE)"},
		{"missing", filepath.Join(dir, "no.yaml"), 0, "open " + filepath.Join(dir, "no.yaml") + ": no such file or directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := Read(tt.path, tt.limit)
			if tt.want == "" {
				if err != nil || string(b) != "a: 1\n" {
					t.Fatalf("Read = %q, %v; want the file", b, err)
				}
				return
			}
			if err == nil || err.Error() != tt.want {
				t.Fatalf("Read error = %v; want %s", err, tt.want)
			}
		})
	}
}

func TestReadAll(t *testing.T) {
	if _, err := ReadAll(strings.NewReader("12345"), "stdin", 4); err == nil || err.Error() != "stdin: more than 4 bytes: over the limit (SEAM_MAX_FILE_SIZE)" {
		t.Fatalf("ReadAll error = %v", err)
	}
	var tl *TooLargeError
	if _, err := ReadAll(strings.NewReader("12345"), "stdin", 4); !errors.As(err, &tl) {
		t.Fatalf("ReadAll error %v is not a TooLargeError", err)
	}
	if b, err := ReadAll(strings.NewReader("1234"), "stdin", 4); err != nil || string(b) != "1234" {
		t.Fatalf("ReadAll = %q, %v", b, err)
	}
}

func TestMaxSize(t *testing.T) {
	tests := []struct {
		env  string
		want int64
		err  string
	}{
		{"", DefaultMaxSize, ""},
		{"1000", 1000, ""},
		{"64MiB", 64 << 20, ""},
		{"2 GiB", 2 << 30, ""},
		{"8KiB", 8 << 10, ""},
		{"0", 0, `SEAM_MAX_FILE_SIZE="0": want a positive number of bytes, or one with KiB, MiB or GiB (e.g. 64MiB)`},
		{"lots", 0, `SEAM_MAX_FILE_SIZE="lots": want a positive number of bytes, or one with KiB, MiB or GiB (e.g. 64MiB)`},
		{"99999999999GiB", 0, `SEAM_MAX_FILE_SIZE="99999999999GiB": want a positive number of bytes, or one with KiB, MiB or GiB (e.g. 64MiB)`},
	}
	for _, tt := range tests {
		got, err := MaxSize(func(string) string { return tt.env })
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("MaxSize(%q) error = %v; want %s", tt.env, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("MaxSize(%q) = %d, %v; want %d", tt.env, got, err, tt.want)
		}
	}
}

// TestJapanese: a refused file, and a limit that cannot be read, say why in Japanese too.
func TestJapanese(t *testing.T) {
	dir := t.TempDir()
	regular := filepath.Join(dir, "ok.yaml")
	if err := os.WriteFile(regular, []byte("a: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	type inLang interface{ In(i18n.Lang) string }
	tests := []struct {
		name string
		err  func() error
		want string
	}{
		{"device", func() error { _, err := Read("/dev/zero", 0); return err }, "/dev/zero：通常のファイルではありません（キャラクターデバイス）"},
		{"directory", func() error { _, err := Read(dir, 0); return err }, dir + "：通常のファイルではありません（ディレクトリ）"},
		{"over a limit", func() error { _, err := Read(regular, 4); return err }, regular + "：5 バイト は上限の 4 バイト を超えています（SEAM_MAX_FILE_SIZE）"},
		{"stdin over a limit", func() error { _, err := ReadAll(strings.NewReader("12345"), "stdin", 4); return err },
			"stdin：4 バイト より大きく、上限を超えています（SEAM_MAX_FILE_SIZE）"},
		{"bad limit", func() error { _, err := MaxSize(func(string) string { return "lots" }); return err },
			`SEAM_MAX_FILE_SIZE="lots"：正のバイト数か、KiB、MiB、GiB を付けた数を指定してください（例：64MiB）`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.err()
			m, ok := err.(inLang)
			if !ok {
				t.Fatalf("%v (%T) does not say itself in a language", err, err)
			}
			if got := m.In(i18n.Japanese); got != tt.want {
				t.Errorf("In(ja) = %q\nwant     %q", got, tt.want)
			}
		})
	}
	if _, err := Read(dir, 0); !errors.Is(err, ErrNotRegular) {
		t.Errorf("a directory: %v is not ErrNotRegular", err)
	}
}
