// Package userfile reads the files a user or a client names (DAG files, params files,
// contracts, samples): regular files only, up to a size limit. /dev/zero or a named pipe
// given as a DAG would otherwise block the process or grow it without end.
//
// It lives in internal/ because cmd/seam, dag, runs and mcp all read such files; contract,
// which imports nothing of seam, takes Read as its Options.ReadFile.
package userfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/seam-dag/seam/internal/i18n"
)

// DefaultMaxSize is the size limit when $SEAM_MAX_FILE_SIZE does not set one: far above any
// DAG, params or schema file written by hand, far below what hurts a process.
const DefaultMaxSize = 16 << 20

// EnvMaxSize names the variable that overrides DefaultMaxSize: bytes, or a number with KiB,
// MiB or GiB.
const EnvMaxSize = "SEAM_MAX_FILE_SIZE"

// ErrNotRegular is returned (wrapped) for a named pipe, a device, a socket or a directory.
var ErrNotRegular = errors.New("not a regular file")

// notRegular is ErrNotRegular with the kind of file it is.
type notRegular struct{ kind string }

func (e notRegular) Error() string { return e.In(i18n.English) }
func (e notRegular) Unwrap() error { return ErrNotRegular }

// In says the error in lang.
func (e notRegular) In(lang i18n.Lang) string {
	return i18n.Sprintf(lang, "not a regular file (%s)", i18n.Format(lang, e.kind))
}

// TooLargeError is returned (wrapped) for a file over the limit.
type TooLargeError struct {
	Size  int64 // the size seen; -1 when only read up to the limit (stdin, a growing file)
	Limit int64
}

func (e *TooLargeError) Error() string { return e.In(i18n.English) }

// In says the error in lang.
func (e *TooLargeError) In(lang i18n.Lang) string {
	if e.Size < 0 {
		return i18n.Sprintf(lang, "more than %s: over the limit (%s)", size(lang, e.Limit, true), EnvMaxSize)
	}
	return i18n.Sprintf(lang, "%s is over the %s limit (%s)", size(lang, e.Size, false), size(lang, e.Limit, true), EnvMaxSize)
}

// Error is a refused file: its path and why.
type Error struct {
	Path string
	Err  error
}

func (e *Error) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// In says the error in lang: its Err in lang when that says itself in a language, as this
// package's do.
func (e *Error) In(lang i18n.Lang) string {
	if m, ok := e.Err.(interface{ In(i18n.Lang) string }); ok {
		return i18n.Sprintf(lang, "%s: %s", e.Path, m.In(lang))
	}
	return i18n.Sprintf(lang, "%s: %s", e.Path, e.Err.Error())
}

// MaxSize returns the limit $SEAM_MAX_FILE_SIZE sets through getenv, or DefaultMaxSize. A
// value it cannot read is an i18n.Message, said in the language of whoever prints it.
func MaxSize(getenv func(string) string) (int64, error) {
	v := strings.TrimSpace(getenv(EnvMaxSize))
	if v == "" {
		return DefaultMaxSize, nil
	}
	num, unit := v, int64(1)
	for _, u := range []struct {
		suffix string
		n      int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}} {
		if s, ok := strings.CutSuffix(v, u.suffix); ok {
			num, unit = strings.TrimSpace(s), u.n
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/unit {
		return 0, i18n.M("%s=%q: want a positive number of bytes, or one with KiB, MiB or GiB (e.g. 64MiB)", EnvMaxSize, v)
	}
	return n * unit, nil
}

// Read returns the content of the regular file at path, refusing anything else and a file
// over limit bytes (limit <= 0 is DefaultMaxSize). Errors opening the file are the
// *fs.PathError os gives; a refused file is an *Error.
func Read(path string, limit int64) ([]byte, error) {
	if limit <= 0 {
		limit = DefaultMaxSize
	}
	// O_NONBLOCK: opening a named pipe for reading blocks until a writer comes; stat first
	// and open after would race with the file being replaced by one.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return read(f, path, limit)
}

// read reads the file f opened at path, as Read does.
func read(f *os.File, path string, limit int64) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &Error{Path: path, Err: notRegular{kind(fi.Mode())}}
	}
	if fi.Size() > limit {
		return nil, &Error{Path: path, Err: &TooLargeError{Size: fi.Size(), Limit: limit}}
	}
	// The file may grow after Stat, and some (in /proc) say they are empty: read one byte
	// past the limit to tell.
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, &Error{Path: path, Err: &TooLargeError{Size: -1, Limit: limit}}
	}
	return b, nil
}

// ReadAll reads r (stdin) up to limit bytes (limit <= 0 is DefaultMaxSize); name says what r
// is in the error past it.
func ReadAll(r io.Reader, name string, limit int64) ([]byte, error) {
	if limit <= 0 {
		limit = DefaultMaxSize
	}
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, &Error{Path: name, Err: &TooLargeError{Size: -1, Limit: limit}}
	}
	return b, nil
}

// kind names a file's type for people, in English: a catalog format, but for other types.
func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return i18n.Key("a named pipe")
	case m&fs.ModeSocket != 0:
		return i18n.Key("a socket")
	case m&fs.ModeCharDevice != 0:
		return i18n.Key("a character device")
	case m&fs.ModeDevice != 0:
		return i18n.Key("a block device")
	case m.IsDir():
		return i18n.Key("a directory")
	}
	return "type " + m.Type().String()
}

// size shows a byte count in its largest binary unit: a limit in whole units when exact
// (16 MiB), as people set it; a size with one decimal (20.0 MiB); bytes in lang.
func size(lang i18n.Lang, n int64, whole bool) string {
	units := []string{"GiB", "MiB", "KiB"}
	for i, u := range units {
		d := int64(1) << (10 * (len(units) - i))
		if n >= d {
			if whole && n%d == 0 {
				return fmt.Sprintf("%d %s", n/d, u)
			}
			return fmt.Sprintf("%.1f %s", float64(n)/float64(d), u)
		}
	}
	return i18n.Sprintf(lang, "%d bytes", n)
}
