// Package gitrev reads files as they are at a git revision, through the git command, without
// touching the checkout: one `git cat-file --batch` process answers every read.
package gitrev

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/seam-dag/seam/internal/i18n"
)

// Tree is a repository's tree at one commit. Its methods may be called from one goroutine at
// a time or several: reads are serialised.
type Tree struct {
	root   string // the repository's top level, absolute, symlinks resolved
	rev    string // as the user named it
	commit string

	mu   sync.Mutex
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	lang i18n.Lang
}

// Open resolves rev in the git repository that holds dir and starts reading its tree. The
// errors say why in lang: dir is in no repository, git is not installed, rev names no commit
// (in a shallow clone, that history is missing). Close stops the reader.
func Open(ctx context.Context, dir, rev string, lang i18n.Lang) (*Tree, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return nil, i18n.Errorf(lang, "--against needs git: %v", err)
	}
	top, err := git(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, i18n.Errorf(lang, "--against %s: %s is not in a git repository (%v)", rev, dir, err)
	}
	root, err := filepath.EvalSymlinks(top)
	if err != nil {
		return nil, fmt.Errorf("repository root %s: %w", top, err)
	}
	if strings.HasPrefix(rev, "-") {
		return nil, i18n.Errorf(lang, "--against %s: a revision cannot start with '-'", rev)
	}
	commit, err := git(ctx, root, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		if shallow, _ := git(ctx, root, "rev-parse", "--is-shallow-repository"); shallow == "true" {
			return nil, i18n.Errorf(lang, "--against %s: no such revision in this shallow clone; fetch the history first (git fetch --unshallow, or fetch-depth: 0 in actions/checkout)", rev)
		}
		return nil, i18n.Errorf(lang, "--against %s: no such revision in %s (a branch, tag or commit; fetch it first if it is remote)", rev, root)
	}
	cmd := exec.Command("git", "-C", root, "cat-file", "--batch")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("git cat-file: %w", err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("git cat-file: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("git cat-file: %w", err)
	}
	return &Tree{root: root, rev: rev, commit: commit, cmd: cmd, in: in, out: bufio.NewReader(out), lang: lang}, nil
}

// Root is the repository's top level: absolute, symlinks resolved.
func (t *Tree) Root() string { return t.root }

// Commit is the commit the revision names.
func (t *Tree) Commit() string { return t.commit }

// ReadFile reads the file at rel (slash-separated, relative to Root) as it is at the commit.
// A file that is not there is an error wrapping fs.ErrNotExist; one larger than limit bytes
// (limit > 0) is refused.
func (t *Tree) ReadFile(rel string, limit int64) ([]byte, error) {
	if strings.ContainsAny(rel, "\n") || rel == "" || strings.HasPrefix(rel, "../") || rel == ".." {
		return nil, fmt.Errorf("%s: %w", rel, fs.ErrNotExist)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.in == nil {
		return nil, errors.New("git cat-file: closed")
	}
	if _, err := fmt.Fprintf(t.in, "%s:%s\n", t.commit, rel); err != nil {
		return nil, fmt.Errorf("git cat-file: %w", err)
	}
	head, err := t.out.ReadString('\n')
	if err != nil {
		return nil, fmt.Errorf("git cat-file: %w", err)
	}
	f := strings.Fields(head)
	if len(f) != 3 {
		// "<object> missing", or "ambiguous"
		return nil, i18n.Errorf(t.lang, "%s does not exist at %s: %w", rel, t.rev, fs.ErrNotExist)
	}
	size, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil {
		return nil, fmt.Errorf("git cat-file: bad header %q", head)
	}
	// The content is followed by a newline; it is read whatever happens, so that the next
	// answer starts in its place.
	buf := make([]byte, size+1)
	if _, err := io.ReadFull(t.out, buf); err != nil {
		return nil, fmt.Errorf("git cat-file: %w", err)
	}
	if f[1] != "blob" {
		return nil, i18n.Errorf(t.lang, "%s is a %s at %s, not a file: %w", rel, f[1], t.rev, fs.ErrNotExist)
	}
	if limit > 0 && size > limit {
		return nil, i18n.Errorf(t.lang, "%s is %d bytes at %s, over the limit of %d", rel, size, t.rev, limit)
	}
	return buf[:size], nil
}

// Close stops the reader.
func (t *Tree) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.in == nil {
		return nil
	}
	t.in.Close()
	t.in = nil
	return t.cmd.Wait()
}

// git runs git in dir and returns its output, trimmed; its error carries git's stderr.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return "", fmt.Errorf("%w: %s", err, msg)
		}
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}
